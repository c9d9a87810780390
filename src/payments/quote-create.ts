// POST /quotes: what a quote reads, its checks, its price and its rows, as the Change that records it.
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import type { Settings } from '../env';
import {
  customers,
  internalAccounts,
  quotes,
  type ExternalAccountRow,
  type InternalAccountRow,
  type PlatformRow,
  type QuoteRow,
  type TransactionRow,
} from '../db/schema';
import { isInternalAccountId, newId, sameUuidId } from '../crypto/ids';
import { badRequest, errorBody, invalidFields } from '../http/errors';
import { primaryIdentifier } from '../external-accounts/beneficiary';
import { railsOf } from '../external-accounts/corridors';
import { externalAccountNotFound, liveExternalAccount } from '../external-accounts/service';
import { internalAccountNotFound } from '../accounts/internal-service';
import { customerDeleted, customerNotFound } from '../customers/service';
import { scheduleTransition } from '../transitions/schedule';
import { resolveUmaReceiver } from './sandbox-uma-receivers';
import { checkQuoteLookup, quoteLookupLoad, usableLookup } from './lookups-service';
import { computeExchange } from './rates';
import type { Scenario } from './rail';
import {
  customerCounterparty,
  externalCounterparty,
  insufficientFunds,
  ownerFrom,
  requireActiveExternal,
  requireActiveInternal,
} from './parties';
import { FUNDING_NETWORKS } from './instructions';
import { QUOTE_TTL_MS } from './quotes-service';
import type { CryptoNetwork, QuoteRequest, QuoteView } from './schema';
import { buildChange, changeOf, EXPIRE_TRANSITION, initiation, type PaymentDeps } from './transaction-change';
import type { Change } from '../http/change';
import { quoteView, referenceFor } from './views';

type Destination =
  | { kind: 'external'; account: ExternalAccountRow }
  | { kind: 'internal'; account: InternalAccountRow }
  | { kind: 'uma'; address: string; currency: string; scenario: Scenario; name: string };

function resolveDestination(input: QuoteRequest['destination'], loaded: QuoteRequestLoaded, s: Settings): Destination {
  if (input.destinationType === 'UMA_ADDRESS') {
    const receiver = resolveUmaReceiver(input.umaAddress, s);
    if (input.currency && input.currency !== receiver.currency) {
      throw invalidFields('request body', [
        { field: 'destination.currency', message: `${input.umaAddress} receives ${receiver.currency} only` },
      ]);
    }
    return { kind: 'uma', address: receiver.address, currency: receiver.currency, scenario: receiver.scenario, name: receiver.name };
  }
  if (isInternalAccountId(input.accountId)) {
    const account = loaded.destinationInternal[0];
    if (!account) throw internalAccountNotFound();
    requireActiveInternal(account);
    return { kind: 'internal', account };
  }
  const account = loaded.destinationExternal[0];
  if (!account) throw externalAccountNotFound();
  requireActiveExternal(account);
  return { kind: 'external', account };
}

/**
 * What pricing a quote reads, as loads for one round trip (authentication's: `platformId` SQL, see
 * `RouteSpec.load`): the source account, the customer the quote is for (the source account's, or real-time
 * funding's `customerId`), and the destination account with its holder.
 */
export function quoteRequestLoads(db: Db, platformId: SQL, input: QuoteRequest) {
  const internal = (id: string) =>
    db
      .select()
      .from(internalAccounts)
      .where(and(eq(internalAccounts.id, id), eq(internalAccounts.platformId, platformId)))
      .limit(1);
  const holderOf = (id: string) => db.select({ id: internalAccounts.customerId }).from(internalAccounts).where(eq(internalAccounts.id, id));
  const customer = (id: string | ReturnType<typeof holderOf>) =>
    db
      .select()
      .from(customers)
      .where(and(eq(customers.id, id as string), eq(customers.platformId, platformId)))
      .limit(1);
  const sourceId = input.source.sourceType === 'ACCOUNT' ? input.source.accountId : '';
  const destinationId = input.destination.destinationType === 'ACCOUNT' ? input.destination.accountId : '';
  return {
    source: internal(sourceId),
    customer: input.source.sourceType === 'ACCOUNT' ? customer(holderOf(sourceId)) : customer(input.source.customerId ?? ''),
    destinationInternal: internal(destinationId),
    destinationExternal: liveExternalAccount(db, platformId, destinationId).limit(1),
    destinationHolder: customer(holderOf(destinationId)),
    lookup: quoteLookupLoad(db, platformId, input.lookupId),
  };
}
export type QuoteRequestLoaded = Loaded<ReturnType<typeof quoteRequestLoads>>;

/** The platform's limits for the sending currency: its `supportedCurrencies` entry (OUTGOING enabled, min and max). */
function checkSendingLimits(platform: PlatformRow, code: string, amount: number, requireConfig: boolean): void {
  const config = platform.supportedCurrencies.find((c) => c.currencyCode === code);
  if (!config) {
    if (requireConfig)
      throw invalidFields('request body', [
        { field: 'source.currency', message: `${code} is not among the platform's supported currencies` },
      ]);
    return;
  }
  if (!config.enabledTransactionTypes.includes('OUTGOING'))
    throw badRequest(`Outgoing payments in ${code} are not enabled for this platform`);
  if (amount < config.minAmount || amount > config.maxAmount) {
    throw invalidFields('request body', [
      {
        field: 'lockedCurrencyAmount',
        message: `The sending amount ${amount} is outside ${config.minAmount} to ${config.maxAmount} ${code}`,
      },
    ]);
  }
}

/** Real-time funding's `cryptoNetwork`: for crypto currencies only, one they arrive on, named when required. */
function checkFundingNetwork(currency: string, network: CryptoNetwork | undefined): void {
  const funding = FUNDING_NETWORKS[currency];
  const problem = !funding
    ? network && `Only for crypto currencies; ${currency} is not one`
    : network
      ? !funding.networks.includes(network) && `${currency} real-time funding arrives on ${funding.networks.join(', ')} only`
      : funding.required && `Required for ${currency}: the network the payer deposits on (${funding.networks.join(', ')})`;
  if (problem) throw invalidFields('request body', [{ field: 'source.cryptoNetwork', message: problem }]);
}

/**
 * POST /quotes: prices a conversion from an internal account (embedded wallets included) or real-time
 * funding to an external account, an internal account or a UMA address, with `computeExchange` on the
 * mode's rate source (the same numbers as GET /exchange-rates; no rate is 503 RATES_UNAVAILABLE). The quote and its transaction (PENDING) are written together, with the
 * due transition that expires it.
 */
export async function createQuote(
  deps: PaymentDeps,
  platform: PlatformRow,
  input: QuoteRequest,
  loaded: QuoteRequestLoaded,
  s: Settings,
  now: number,
): Promise<Change<QuoteView>> {
  const { db } = deps;
  const lookup = input.lookupId === undefined ? undefined : usableLookup(loaded.lookup[0], now);
  let sourceAccount: InternalAccountRow | null = null;
  let customerId: string | null;
  let sendingCurrency: string;
  if (input.source.sourceType === 'ACCOUNT') {
    if (!isInternalAccountId(input.source.accountId)) {
      throw invalidFields('request body', [
        { field: 'source.accountId', message: 'Must be an internal account; pull from an external account with POST /transfer-in' },
      ]);
    }
    sourceAccount = loaded.source[0] ?? null;
    if (!sourceAccount) throw internalAccountNotFound();
    requireActiveInternal(sourceAccount);
    if (input.source.customerId !== undefined && input.source.customerId !== (sourceAccount.customerId ?? platform.id)) {
      throw invalidFields('request body', [{ field: 'source.customerId', message: 'Is not the owner of source.accountId' }]);
    }
    if (input.immediatelyExecute && sourceAccount.type === 'EMBEDDED_WALLET') {
      throw invalidFields('request body', [
        { field: 'immediatelyExecute', message: 'Not available for EMBEDDED_WALLET sources: execute with a signed retry' },
      ]);
    }
    customerId = sourceAccount.customerId;
    sendingCurrency = sourceAccount.currency;
  } else {
    customerId = input.source.customerId ?? null;
    if (customerId) {
      if (!loaded.customer[0]) throw customerNotFound();
      if (loaded.customer[0].isDeleted) throw customerDeleted();
    }
    sendingCurrency = input.source.currency;
    checkFundingNetwork(sendingCurrency, input.source.cryptoNetwork);
  }
  const destination = resolveDestination(input.destination, loaded, s);
  if (destination.kind !== 'uma' && destination.account.id === sourceAccount?.id) {
    throw invalidFields('request body', [{ field: 'destination.accountId', message: 'Must differ from the source account' }]);
  }
  const receivingCurrency = destination.kind === 'uma' ? destination.currency : destination.account.currency;
  // A look-up named: the quote must be to what it looked up, for whom, with the payer data it asked for.
  if (lookup) {
    checkQuoteLookup(lookup, {
      receiverType: destination.kind === 'uma' ? 'UMA_ADDRESS' : 'ACCOUNT',
      receiver: destination.kind === 'uma' ? destination.address : destination.account.id,
      customerId,
      receivingCurrency,
      senderCustomerInfo: input.senderCustomerInfo,
      purposeOfPayment: input.purposeOfPayment,
    });
  }

  const rates = await deps.rates(now);
  const x = computeExchange(
    platform,
    { sendingCurrency, receivingCurrency, amount: input.lockedCurrencyAmount, lockedSide: input.lockedCurrencySide },
    rates,
  );
  if (x.totalReceivingAmount <= 0 || x.totalSendingAmount <= 0) {
    throw invalidFields('request body', [
      { field: 'lockedCurrencyAmount', message: `Too small to cover the fees (${x.feesIncluded} ${sendingCurrency})` },
    ]);
  }
  checkSendingLimits(platform, sendingCurrency, x.totalSendingAmount, input.source.sourceType === 'REALTIME_FUNDING');

  let rail: string | undefined;
  if (destination.kind === 'external') {
    const rails = railsOf(destination.account);
    const wanted = input.destination.destinationType === 'ACCOUNT' ? input.destination.paymentRail : undefined;
    if (wanted && !rails.includes(wanted)) {
      throw invalidFields('request body', [
        { field: 'destination.paymentRail', message: `The account is paid over ${rails.join(', ') || 'its wallet network'} only` },
      ]);
    }
    rail = wanted ?? rails[0];
  }

  const quoteId = newId('Quote', now);
  // The transaction shares the quote's UUID: it stores no link to its quote (`transactionQuoteId`).
  const transactionId = sameUuidId('Transaction', quoteId);
  const owner = ownerFrom(platform, customerId, loaded.customer[0]);
  const funded = input.source.sourceType === 'REALTIME_FUNDING';
  let scenario: Scenario;
  let counterparty: Record<string, string> | null;
  // The rail the payment will take binds it now (503 in production without one); a conversion between
  // internal accounts stays in the ledger, unless its money comes from outside (real-time funding).
  if (destination.kind === 'external') {
    scenario = deps.rail.scenario('QUOTE_PAYOUT', primaryIdentifier(destination.account).suffix);
    counterparty = externalCounterparty(destination.account);
  } else if (destination.kind === 'internal') {
    scenario = funded ? deps.rail.scenario('FUNDED_CONVERSION', null) : 'INTERNAL_CONVERSION';
    counterparty = customerCounterparty(destination.account.customerId ? loaded.destinationHolder[0] : undefined);
  } else {
    scenario = destination.scenario;
    counterparty = { FULL_NAME: destination.name };
  }
  const reference = referenceFor(funded ? 'QUOTE' : 'TX', quoteId);
  const expiresAt = now + QUOTE_TTL_MS;
  // Where the payer pays comes from the rail that receives the money (the sandbox's made-up details, or the operator's).
  const instructions =
    input.source.sourceType === 'REALTIME_FUNDING'
      ? await deps.rail.fundingInstructions({
          paymentId: transactionId,
          quoteId,
          platformId: platform.id,
          amount: x.totalSendingAmount,
          currency: sendingCurrency,
          ...(input.source.cryptoNetwork ? { cryptoNetwork: input.source.cryptoNetwork } : {}),
          reference,
          expiresAt,
        })
      : null;

  const quoteSource =
    input.source.sourceType === 'ACCOUNT'
      ? { sourceType: 'ACCOUNT', accountId: sourceAccount!.id, ...(customerId ? { customerId } : {}) }
      : {
          sourceType: 'REALTIME_FUNDING',
          ...(customerId ? { customerId } : {}),
          currency: sendingCurrency,
          ...(input.source.cryptoNetwork ? { cryptoNetwork: input.source.cryptoNetwork } : {}),
        };
  const quoteDestination =
    destination.kind === 'uma'
      ? { destinationType: 'UMA_ADDRESS', umaAddress: destination.address, currency: receivingCurrency }
      : { destinationType: 'ACCOUNT', accountId: destination.account.id, ...(rail ? { paymentRail: rail } : {}) };
  const quote: QuoteRow = {
    id: quoteId,
    platformId: platform.id,
    transactionId,
    sourceType: input.source.sourceType,
    source: quoteSource,
    destination: quoteDestination,
    lockedSide: input.lockedCurrencySide,
    sendingCurrency,
    receivingCurrency,
    totalSendingAmount: x.totalSendingAmount,
    totalReceivingAmount: x.totalReceivingAmount,
    exchangeRate: x.exchangeRate,
    feesIncluded: x.feesIncluded,
    rateDetails: { ...x.rateDetails },
    paymentInstructions: instructions,
    counterpartyInformation: counterparty,
    expiresAt,
    createdAt: now,
  };
  const tx: TransactionRow = {
    id: transactionId,
    platformId: platform.id,
    customerId,
    platformCustomerId: owner.platformCustomerId,
    type: 'OUTGOING',
    kind: 'QUOTE',
    status: 'PENDING',
    version: 0,
    source:
      input.source.sourceType === 'ACCOUNT'
        ? { sourceType: 'ACCOUNT', accountId: sourceAccount!.id, currency: sendingCurrency }
        : { sourceType: 'REALTIME_FUNDING', ...(customerId ? { customerId } : {}), currency: sendingCurrency },
    destination:
      destination.kind === 'uma'
        ? { destinationType: 'UMA_ADDRESS', umaAddress: destination.address, currency: receivingCurrency }
        : { destinationType: 'ACCOUNT', accountId: destination.account.id, currency: receivingCurrency },
    sentAmount: x.totalSendingAmount,
    sentCurrency: sendingCurrency,
    receivedAmount: x.totalReceivingAmount,
    receivedCurrency: receivingCurrency,
    exchangeRate: x.exchangeRate,
    fees: x.feesIncluded,
    rateDetails: { ...x.rateDetails },
    storedQuoteId: null,
    paymentInstructions: instructions,
    counterpartyInformation: counterparty,
    description: input.description ?? null,
    reference,
    senderUmaAddress: destination.kind === 'uma' ? owner.umaAddress : null,
    receiverUmaAddress: destination.kind === 'uma' ? destination.address : null,
    failureReason: null,
    refund: null,
    settledAt: null,
    agentId: null,
    approval: null,
    scenario,
    createdAt: now,
    updatedAt: now,
    history: null,
  };
  const expiry = scheduleTransition(db, {
    platformId: platform.id,
    subjectId: transactionId,
    kind: EXPIRE_TRANSITION,
    from: 'PENDING',
    to: 'EXPIRED',
    dueAt: expiresAt,
    now,
  });
  // A quote is only a price until executed: its transaction is created quietly (no webhook).
  const draft = await buildChange(db, tx, [], { now, mode: deps.mode, insert: true, quiet: true, transitions: [expiry] });
  const before = [db.insert(quotes).values(quote)];
  const created = changeOf(draft, { status: 201, body: quoteView(quote, 'PENDING') }, { before });
  if (!(input.immediatelyExecute && sourceAccount)) return created;
  // Executed in the same batch: created PENDING (quietly), then started by its plan. A shortfall keeps the
  // quote, unexecuted, and answers 400 INVALID_AMOUNT (INSUFFICIENT_FUNDS).
  const start = initiation(db, draft.row, now, deps.mode);
  const executed = await buildChange(db, tx, [{ status: 'PENDING' }, ...start.hops], {
    now,
    mode: deps.mode,
    insert: true,
    quiet: true,
    transitions: [expiry, ...start.transitions],
    accounts: [sourceAccount],
  });
  const refused = insufficientFunds(sourceAccount.id);
  return changeOf(
    executed,
    { status: 201, body: quoteView(quote, executed.row.status) },
    { before, shortfall: { ...created, shortfall: undefined, status: refused.status, body: errorBody(refused) } },
  );
}
