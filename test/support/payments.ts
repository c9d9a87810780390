import { env } from 'cloudflare:test';
import { and, asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { database, type Db } from '../../src/db/client';
import { directoryEntry, homeD1, homesOf } from '../../src/db/homes';
import { internalAccounts, ledgerMovements, transactions, webhookDeliveries, webhookEvents } from '../../src/db/schema';
import { eventFields, legacyEvent } from '../../src/webhooks/outbox';
import { api, type TestPlatform } from './api';
import { ADDRESS, accountsOf, createCustomer } from './customers';
import { clabeWithSuffix, iban } from './identifiers';

export const db = () => database(env.DB);

/** The database of the platform's home (the directory's answer; its first home when it has none). */
export const dbOf = async (platformId: string) => database(homeD1(env, (await directoryEntry(env, platformId))?.home ?? 'DB'));

/** Rows of every home (a payment lives in its platform's; these helpers know only its id). */
const fromEveryHome = async <T>(read: (db: Db) => Promise<T[]>): Promise<T[]> =>
  (await Promise.all(homesOf(env).map((home) => read(database(homeD1(env, home)))))).flat();

/**
 * The ledger invariant: every movement takes from one account what it gives another, so each internal
 * account's balance is exactly what reached it minus what left it, and never negative. Returns the
 * platform's movements.
 */
export async function expectLedgerInvariant(platformId: string) {
  const home = await dbOf(platformId);
  const movements = await home.select().from(ledgerMovements).where(eq(ledgerMovements.platformId, platformId));
  for (const m of movements) expect(m.amount, `${m.kind} of ${m.reference}`).toBeGreaterThan(0);
  const accounts = await home.select().from(internalAccounts).where(eq(internalAccounts.platformId, platformId));
  for (const a of accounts) {
    const mine = movements.filter((m) => m.currency === a.currency);
    const sum = mine.reduce((n, m) => n + (m.toAccountId === a.id ? m.amount : 0) - (m.fromAccountId === a.id ? m.amount : 0), 0);
    expect(a.balance, `balance of ${a.id}`).toBe(sum);
    expect(a.balance).toBeGreaterThanOrEqual(0);
  }
  return movements;
}

// A payment's movements in the order its life posts them (one batch may post several at the same time).
const LIFE = ['FUNDING', 'DEBIT', 'CREDIT', 'SETTLE', 'RETURN', 'REFUND'];

/** The ledger kinds posted for a transaction, in order, e.g. ['DEBIT', 'SETTLE']. */
export async function postings(reference: string) {
  const movements = await fromEveryHome((d) => d.select().from(ledgerMovements).where(eq(ledgerMovements.reference, reference)));
  movements.sort((a, b) => a.createdAt - b.createdAt || LIFE.indexOf(a.kind) - LIFE.indexOf(b.kind));
  return movements.map((m) => m.kind);
}

/** The statuses a transaction went through, from its history. */
export async function statusPath(transactionId: string) {
  const [row] = await fromEveryHome((d) =>
    d.select({ history: transactions.history }).from(transactions).where(eq(transactions.id, transactionId)),
  );
  return (row?.history ?? []).map(([, to]) => to);
}

/** Webhook events written for the platform, oldest first. */
export async function events(platformId: string) {
  // An event is in each of its deliveries (a chaos DUPLICATE has two): one per event id.
  const rows = await (
    await dbOf(platformId)
  )
    .select(eventFields)
    .from(webhookDeliveries)
    .leftJoin(webhookEvents, legacyEvent)
    .where(eq(webhookDeliveries.platformId, platformId))
    .orderBy(asc(webhookDeliveries.eventId));
  return [...new Map(rows.map((e) => [e.id, e])).values()];
}

export async function eventsAbout(platformId: string, id: string) {
  return (await events(platformId)).filter((e) => (e.data as { id?: string }).id === id);
}

/** Moves the platform's sandbox clock forward, applying what becomes due. */
export async function advance(p: TestPlatform, seconds: number) {
  const res = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function balanceOf(p: TestPlatform, accountId: string): Promise<number> {
  const row = (
    await (
      await dbOf(p.id)
    )
      .select()
      .from(internalAccounts)
      .where(and(eq(internalAccounts.id, accountId), eq(internalAccounts.platformId, p.id)))
  )[0];
  return row!.balance;
}

export async function fund(p: TestPlatform, accountId: string, amount: number) {
  const res = await api('POST', `/sandbox/internal-accounts/${accountId}/fund`, { auth: p.auth, body: { amount } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', birthDate: '1990-01-15', nationality: 'US', address: ADDRESS };

/** An external account whose primary identifier ends with `suffix` (the sandbox outcome's magic suffix). */
export function bankInfo(currency: string, suffix: string) {
  const digits = `${Math.floor(Math.random() * 1e9)}`.padStart(9, '0');
  switch (currency) {
    case 'USD':
      return {
        accountType: 'USD_ACCOUNT',
        accountNumber: `${digits}${suffix}`,
        routingNumber: '021000021',
        bankName: 'Chase Bank',
        beneficiary: person,
      };
    case 'EUR':
      return { accountType: 'EUR_ACCOUNT', iban: iban('DE', `${digits}000000${suffix}`), beneficiary: person };
    case 'MXN':
      return { accountType: 'MXN_ACCOUNT', clabeNumber: clabeWithSuffix(suffix), beneficiary: person };
    default:
      throw new Error(`no bank fixture for ${currency}`);
  }
}

export async function externalAccount(p: TestPlatform, customerId: string | undefined, currency: string, suffix: string) {
  const path = customerId ? '/customers/external-accounts' : '/platform/external-accounts';
  const res = await api('POST', path, {
    auth: p.auth,
    body: { ...(customerId ? { customerId } : {}), currency, accountInfo: bankInfo(currency, suffix) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** A customer with its internal accounts by currency (`wallet`: the embedded wallet). */
export async function customerWithAccounts(p: TestPlatform, body?: Record<string, unknown>) {
  const customer = await createCustomer(p, body);
  const accounts = await accountsOf(p, customer.id);
  const byCurrency: Record<string, string> = {};
  for (const a of accounts) {
    if (a.type === 'EMBEDDED_WALLET') byCurrency.wallet = a.id;
    else byCurrency[a.balance.currency.code] = a.id;
  }
  return { customer, accounts: byCurrency };
}

let keys = 0;
export const idemKey = () => `key-${Date.now()}-${keys++}`;

export async function createQuote(p: TestPlatform, body: Record<string, unknown>) {
  const res = await api('POST', '/quotes', { auth: p.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export function execute(p: TestPlatform, quoteId: string, key = idemKey(), headers: Record<string, string> = {}) {
  return api('POST', `/quotes/${quoteId}/execute`, { auth: p.auth, headers: { 'Idempotency-Key': key, ...headers } });
}

export async function tx(p: TestPlatform, id: string) {
  const res = await api('GET', `/transactions/${id}`, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export function transfer(p: TestPlatform, direction: 'in' | 'out', source: string, destination: string, amount: number, key = idemKey()) {
  return api('POST', `/transfer-${direction}`, {
    auth: p.auth,
    headers: { 'Idempotency-Key': key },
    body: { source: { accountId: source }, destination: { accountId: destination }, amount },
  });
}

/**
 * A customer's funded USD account and its bank account, with one transfer-out of 500 (201) and one quote of
 * 1,000 (not executed) from the one to the other.
 */
export async function transferAndQuote(p: TestPlatform) {
  const { customer, accounts } = await customerWithAccounts(p);
  const usd = accounts.USD!;
  const bank = await externalAccount(p, customer.id, 'USD', '000');
  await fund(p, usd, 100_000);
  const out = await transfer(p, 'out', usd, bank, 500);
  expect(out.status, JSON.stringify(out.body)).toBe(201);
  const quote = await createQuote(p, {
    source: { sourceType: 'ACCOUNT', accountId: usd },
    destination: { destinationType: 'ACCOUNT', accountId: bank },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
  return { customer, usd, bank, out, quote };
}
