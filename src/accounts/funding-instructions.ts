// An internal account's funding instructions: stable sandbox bank and wallet details derived from its id.
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { ServiceMode } from '../env';
import { withCbuCheckDigits } from '../common/identifiers';
import type { InternalAccountRow } from '../db/schema';
import type { PaymentInstructions } from './internal-schema';

/** `n` decimal digits derived from the account id, so an account's sandbox details never change. */
function digits(seed: Uint8Array, n: number, from = 0): string {
  let out = '';
  for (let i = 0; out.length < n; i++) out += (seed[(from + i) % seed.length]! % 10).toString();
  return out;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const pick = (seed: Uint8Array, alphabet: string, n: number) =>
  Array.from({ length: n }, (_, i) => alphabet[(seed[i % seed.length]! + i * 7) % alphabet.length]).join('');

/** IBAN check digits (ISO 13616 mod 97) so generated IBANs validate in client libraries. */
function iban(country: string, bban: string): string {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rem = 0;
  for (const ch of numeric) rem = (rem * 10 + Number(ch)) % 97;
  return `${country}${String(98 - rem).padStart(2, '0')}${bban}`;
}

/** CLABE control digit (weights 3, 7, 1). */
function clabe(first17: string): string {
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * weights[i % 3]!) % 10;
  return `${first17}${(10 - (sum % 10)) % 10}`;
}

type Info = Record<string, unknown> & { accountType: string };

/** Sandbox bank or wallet details in `currency`, derived from `seed` (also used for quote payment instructions). */
export function infoFor(currency: string, seed: Uint8Array, reference: string): Info | null {
  switch (currency) {
    case 'USD':
      return {
        accountType: 'USD_ACCOUNT',
        accountNumber: digits(seed, 12),
        routingNumber: '021000021',
        paymentRails: ['ACH', 'WIRE', 'RTP'],
        reference,
      };
    case 'EUR':
      return {
        accountType: 'EUR_ACCOUNT',
        iban: iban('DE', digits(seed, 18)),
        swiftCode: 'SBOXDEFF',
        paymentRails: ['SEPA', 'SEPA_INSTANT'],
        reference,
      };
    case 'MXN':
      return { accountType: 'MXN_ACCOUNT', clabeNumber: clabe(`646180${digits(seed, 11)}`), paymentRails: ['SPEI'], reference };
    case 'BRL':
      return {
        accountType: 'BRL_ACCOUNT',
        qrCode: `00020126580014br.gov.bcb.pix0136sandbox-${digits(seed, 12)}5204000053039865802BR6304${reference.slice(-4)}`,
      };
    case 'INR':
      return { accountType: 'INR_ACCOUNT', vpa: `fund${digits(seed, 10)}@sandbox`, paymentRails: ['UPI'], reference };
    case 'GBP':
      return {
        accountType: 'GBP_ACCOUNT',
        sortCode: digits(seed, 6),
        accountNumber: digits(seed, 8, 6),
        paymentRails: ['FASTER_PAYMENTS'],
        reference,
      };
    case 'CAD':
      return {
        accountType: 'CAD_ACCOUNT',
        bankCode: digits(seed, 3),
        branchCode: digits(seed, 5, 3),
        accountNumber: digits(seed, 10, 8),
        paymentRails: ['BANK_TRANSFER'],
        reference,
      };
    case 'NGN':
      return {
        accountType: 'NGN_ACCOUNT',
        accountNumber: digits(seed, 10),
        bankName: 'Sandbox Bank',
        paymentRails: ['BANK_TRANSFER'],
        reference,
      };
    case 'PHP':
      return {
        accountType: 'PHP_ACCOUNT',
        bankName: 'Sandbox Bank',
        accountNumber: digits(seed, 12),
        paymentRails: ['BANK_TRANSFER'],
        reference,
      };
    case 'KES':
      return {
        accountType: 'KES_ACCOUNT',
        phoneNumber: `+2547${digits(seed, 8)}`,
        provider: 'M-PESA',
        paymentRails: ['MOBILE_MONEY'],
        reference,
      };
    case 'ARS':
      // The reference's PaymentArsAccountInfo has only the CVU: a provider's CVU starts with 000.
      return { accountType: 'ARS_ACCOUNT', accountNumber: withCbuCheckDigits(`0000${digits(seed, 3)}`, digits(seed, 13, 3)) };
    case 'BTC':
      return { accountType: 'SPARK_WALLET', address: `spark1${pick(seed, BECH32, 58)}`, assetType: 'BTC' };
    case 'USDC':
      return { accountType: 'SOLANA_WALLET', address: pick(seed, BASE58, 44), assetType: 'USDC' };
    default:
      return null; // no rail the sandbox can describe for this currency (e.g. JPY)
  }
}

/**
 * The account's funding instructions. Sandbox: stable details generated from the account id (money arrives
 * through `POST /sandbox/internal-accounts/{id}/fund`). Production: none until a banking partner issues real
 * details, because invented bank numbers must never reach someone who might wire real money to them.
 */
export function fundingInstructions(account: InternalAccountRow, mode: ServiceMode): PaymentInstructions[] {
  if (mode !== 'sandbox') return [];
  const seed = sha256(utf8ToBytes(account.id));
  const reference = `FUND-${Array.from(seed.slice(0, 4), (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase()}`;
  const info = infoFor(account.currency, seed, reference);
  if (!info) return [];
  return [
    {
      instructionsNotes:
        'reference' in info
          ? `Sandbox details: include the reference ${reference} in the payment memo. Simulate a deposit with POST /sandbox/internal-accounts/{accountId}/fund.`
          : 'Sandbox address: simulate a deposit with POST /sandbox/internal-accounts/{accountId}/fund.',
      isPlatformAccount: account.customerId === null,
      accountOrWalletInfo: info,
    },
  ];
}
