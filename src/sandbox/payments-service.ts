// Simulated payments: paying a quote's instructions, receiving an incoming UMA payment.
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import { customers, internalAccounts, umaAddressIs, type Approval, type PlatformRow, type TransactionRow } from '../db/schema';
import { newId } from '../crypto/ids';
import { invalidFields, notFound } from '../http/errors';
import { computeExchange } from '../payments/rates';
import { instructionCurrencies } from '../payments/instructions';
import { quoteFrom, quotePaymentChange, type QuoteLoaded } from '../payments/quotes-service';
import type { Change } from '../http/change';
import { buildChange, changeOf, initiation, type PaymentDeps } from '../payments/transaction-change';
import { referenceFor } from '../payments/views';
import { incomingApproval } from '../payments/incoming-approval';

/**
 * POST /sandbox/send: simulates paying a real-time-funded quote's paymentInstructions. `currencyCode`
 * names the instruction paid (the sending currency's bank details, or BTC for the Lightning invoice,
 * which the service converts at the quoted rate); `currencyAmount`, when given, must be what the quote
 * asks. Funding arrives and the payment starts by its sandbox plan: the Change answers the transaction (its
 * shortfall is an error, not a change that answers one).
 */
export async function sandboxSend(
  deps: PaymentDeps,
  loaded: QuoteLoaded,
  input: { quoteId: string; currencyCode: string; currencyAmount?: number },
  now: number,
): Promise<Change<TransactionRow>> {
  const { quote } = quoteFrom(loaded);
  if (quote.paymentInstructions) {
    const accepted = instructionCurrencies(quote.sendingCurrency, quote.paymentInstructions);
    if (!accepted.includes(input.currencyCode)) {
      throw invalidFields('request body', [
        { field: 'currencyCode', message: `The quote's paymentInstructions take ${accepted.join(' or ')}` },
      ]);
    }
    if (
      input.currencyAmount !== undefined &&
      input.currencyCode === quote.sendingCurrency &&
      input.currencyAmount !== quote.totalSendingAmount
    ) {
      throw invalidFields('request body', [
        { field: 'currencyAmount', message: `The quote asks for exactly ${quote.totalSendingAmount} ${quote.sendingCurrency}` },
      ]);
    }
  }
  return quotePaymentChange(deps, loaded, now, 'send');
}

interface UmaReceiveInput {
  senderUmaAddress: string;
  receiverUmaAddress?: string;
  customerId?: string;
  receivingCurrencyCode: string;
  receivingCurrencyAmount: number;
}

/**
 * The receiving customer of an incoming UMA payment and its active internal accounts in the currency, as
 * loads for authentication's round trip (`platformId` SQL: see `RouteSpec.load`).
 */
export function receiverLoads(db: Db, platformId: SQL, input: UmaReceiveInput) {
  const byAddress = input.receiverUmaAddress ? umaAddressIs(input.receiverUmaAddress) : undefined;
  const which = and(
    eq(customers.platformId, platformId),
    eq(customers.isDeleted, false),
    byAddress,
    input.customerId ? eq(customers.id, input.customerId) : undefined,
  );
  return {
    customer: db.select().from(customers).where(which).limit(1),
    accounts: db
      .select()
      .from(internalAccounts)
      .where(
        and(
          eq(internalAccounts.customerId, db.select({ id: customers.id }).from(customers).where(which).limit(1)),
          eq(internalAccounts.currency, input.receivingCurrencyCode),
          eq(internalAccounts.status, 'ACTIVE'),
        ),
      ),
  };
}

/**
 * POST /sandbox/uma/receive: a payment from `senderUmaAddress` to the platform's customer whose UMA
 * address is `receiverUmaAddress` (404 UMA_NOT_FOUND for none), into that customer's internal account in
 * `receivingCurrencyCode`. It arrives PENDING (INCOMING_PAYMENT.PENDING). Without a webhookEndpoint it
 * completes a few seconds later, crediting the account (.COMPLETED); with one, that event asks the platform
 * to approve, and its answer decides (src/payments/incoming-approval.ts). A Change answering the transaction.
 */
export async function sandboxReceiveUma(
  deps: PaymentDeps,
  platform: PlatformRow,
  input: UmaReceiveInput,
  loaded: Loaded<ReturnType<typeof receiverLoads>>,
  now: number,
): Promise<Change<TransactionRow>> {
  const customer = loaded.customer[0];
  if (!customer)
    throw notFound('UMA_NOT_FOUND', `No customer of this platform receives at ${input.receiverUmaAddress ?? input.customerId}`);
  const code = input.receivingCurrencyCode;
  const config = platform.supportedCurrencies.find((c) => c.currencyCode === code);
  if (!config || !config.enabledTransactionTypes.includes('INCOMING')) {
    throw invalidFields('request body', [{ field: 'receivingCurrencyCode', message: `The platform does not receive ${code}` }]);
  }
  // The holding account of the currency, else the customer's embedded wallet in it.
  const account = loaded.accounts.find((a) => a.type !== 'EMBEDDED_WALLET') ?? loaded.accounts[0];
  if (!account)
    throw invalidFields('request body', [
      { field: 'receivingCurrencyCode', message: `The receiver has no active ${code} internal account` },
    ]);

  const rates = computeExchange(
    platform,
    { sendingCurrency: code, receivingCurrency: code, amount: input.receivingCurrencyAmount, lockedSide: 'SENDING' },
    await deps.rates(now),
  );
  const id = newId('Transaction', now);
  const sender = input.senderUmaAddress;
  const row: TransactionRow = {
    id,
    platformId: platform.id,
    customerId: customer.id,
    platformCustomerId: customer.platformCustomerId,
    type: 'INCOMING',
    kind: 'UMA_RECEIVE',
    status: 'PENDING',
    version: 0,
    source: { sourceType: 'UMA_ADDRESS', umaAddress: sender, currency: code },
    destination: { destinationType: 'ACCOUNT', accountId: account.id, currency: code },
    sentAmount: null,
    sentCurrency: null,
    receivedAmount: input.receivingCurrencyAmount,
    receivedCurrency: code,
    exchangeRate: null,
    // The sender's side paid the conversion; the receiver gets the amount whole.
    fees: 0,
    rateDetails: {
      serviceApiMultiplier: rates.rateDetails.serviceApiMultiplier,
      serviceApiFixedFee: 0,
      serviceApiVariableFeeRate: 0,
      serviceApiVariableFeeAmount: 0,
    },
    storedQuoteId: null,
    paymentInstructions: null,
    counterpartyInformation: { FULL_NAME: senderName(sender) },
    description: null,
    reference: referenceFor('UMA', id),
    senderUmaAddress: sender,
    receiverUmaAddress: customer.umaAddress,
    failureReason: null,
    refund: null,
    settledAt: null,
    agentId: null,
    approval: null,
    scenario: 'UMA_RECEIVE',
    createdAt: now,
    updatedAt: now,
    history: null,
  };
  const { db } = deps;
  // With a webhookEndpoint the platform decides (its answer to INCOMING_PAYMENT.PENDING); without one it is approved.
  const start = platform.webhookEndpoint ? awaitingDecision(db, row, now) : initiation(db, row, now, deps.mode);
  // The account was read: its balance event needs no second read.
  const draft = await buildChange(db, row, start.hops, {
    now,
    mode: deps.mode,
    insert: true,
    transitions: start.transitions,
    accounts: [account],
  });
  return changeOf(draft, { status: 200, body: draft.row });
}

/**
 * The sandbox sender (local part, any domain) whose side asks for information about the recipient: its
 * approval request carries these in `requestedReceiverCustomerInfoFields`.
 */
export const INFO_REQUESTING_SENDER = 'requires.info';
export const INFO_REQUESTED: NonNullable<Approval['requestedFields']> = [
  { name: 'NATIONALITY', mandatory: true },
  { name: 'POSTAL_ADDRESS', mandatory: false },
];

/** The payment recorded PENDING and awaiting the platform's decision: nothing moves, only its deadline is scheduled. */
function awaitingDecision(db: PaymentDeps['db'], row: TransactionRow, now: number) {
  const local = (row.senderUmaAddress ?? '').replace(/^\$/, '').split('@')[0]!.toLowerCase();
  const asked = local === INFO_REQUESTING_SENDER ? INFO_REQUESTED : [];
  const { approval, deadline } = incomingApproval(db, row, now, asked);
  return { hops: [{ status: 'PENDING' as const, set: { approval } }], transitions: [deadline] };
}

/** A display name for a sandbox sender: its local part, words capitalised. */
function senderName(address: string): string {
  const local = address.replace(/^\$/, '').split('@')[0]!;
  return local
    .split(/[._+-]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
