// Payment instructions of a real-time-funded quote (bank details, Lightning invoice) and their networks.
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { infoFor } from '../accounts/funding-instructions';
import type { PaymentInstructions } from '../accounts/internal-schema';
import type { CryptoNetwork } from './schema';

/**
 * The networks real-time funding in each crypto currency arrives on (those its payment instructions give), and
 * whether the payer must name one: a stablecoin exists on several chains, so the deposit address depends on it.
 */
export const FUNDING_NETWORKS: Record<string, { networks: readonly CryptoNetwork[]; required: boolean }> = {
  BTC: { networks: ['SPARK', 'LIGHTNING'], required: false },
  USDC: { networks: ['SOLANA'], required: true },
};

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** A sandbox Lightning invoice (regtest prefix) for the quote, stable for its id. */
function invoiceFor(seed: Uint8Array): string {
  return `lnbcrt1p${Array.from({ length: 90 }, (_, i) => BECH32[(seed[i % seed.length]! + i * 11) % BECH32.length]).join('')}`;
}

/**
 * Where to pay a real-time-funded quote: bank details in the sending currency where a rail
 * exists (USD_ACCOUNT with accountNumber, routingNumber, bankName, reference; EUR_ACCOUNT; MXN_ACCOUNT...)
 * and a SPARK_WALLET with an address and a Lightning invoice. Each entry names the `currencyCode` that
 * POST /sandbox/send takes to simulate paying it. Details derive from the quote id, so they never change.
 */
export function quotePaymentInstructions(quoteId: string, sendingCurrency: string, reference: string): PaymentInstructions[] {
  const seed = sha256(utf8ToBytes(quoteId));
  const out: PaymentInstructions[] = [];
  const bank = sendingCurrency === 'BTC' ? null : infoFor(sendingCurrency, seed, reference);
  if (bank) {
    if (bank.accountType === 'USD_ACCOUNT') bank.bankName = 'Sandbox Bank';
    out.push({
      instructionsNotes: `Pay exactly the quote's totalSendingAmount in ${sendingCurrency}${'reference' in bank ? ` with the reference ${reference} in the memo` : ''}. Sandbox: simulate it with POST /sandbox/send {"quoteId", "currencyCode": "${sendingCurrency}"}.`,
      accountOrWalletInfo: bank,
    });
  }
  const spark = infoFor('BTC', seed, reference)!;
  out.push({
    instructionsNotes:
      'Pay the Lightning invoice (converted at the quoted rate). Sandbox: simulate it with POST /sandbox/send {"quoteId", "currencyCode": "BTC"}.',
    accountOrWalletInfo: { ...spark, invoice: invoiceFor(seed) },
  });
  return out;
}

/** The currency codes POST /sandbox/send accepts for these instructions. */
export function instructionCurrencies(sendingCurrency: string, instructions: Record<string, unknown>[]): string[] {
  return instructions.map((i) =>
    (i.accountOrWalletInfo as { accountType?: string }).accountType === 'SPARK_WALLET' ? 'BTC' : sendingCurrency,
  );
}
