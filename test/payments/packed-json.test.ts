import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, newPlatform, type ApiResult, type TestPlatform } from '../support/api';
import { individualBody } from '../support/customers';
import { createQuote, customerWithAccounts, execute, externalAccount, fund, transfer } from '../support/payments';

/**
 * The JSON objects of a payment's rows (rate details, a transaction's ends, a quote's source) are stored without
 * their key names. The API shows exactly what it showed before: the same keys in the same order as the response
 * built from the request, and the same answer from a row the previous release wrote (the plain object).
 */
const PACKED = { transactions: ['source', 'destination', 'rate_details'], quotes: ['source', 'rate_details'] } as const;
type Table = keyof typeof PACKED;

async function stored(table: Table, id: string): Promise<Record<string, string | null>> {
  const row = await env.DB.prepare(`SELECT ${PACKED[table].join(', ')} FROM ${table} WHERE id = ?`)
    .bind(id)
    .first<Record<string, string | null>>();
  expect(row, id).not.toBeNull();
  return row!;
}

const get = async (p: TestPlatform, table: Table, id: string) => {
  const res = await api('GET', `/${table}/${id}`, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Record<string, unknown>;
};

/** The fields read from packed columns, as JSON text (key order included). */
const packedFields = (body: Record<string, unknown>) =>
  ['source', 'destination', 'rateDetails'].map((k) => (body[k] === undefined ? undefined : JSON.stringify(body[k])));

/**
 * A resource whose response to its creation is `created`: its packed columns are arrays (shorter than the
 * object), GET shows the fields as created; rewritten as the previous release stored them (the objects the API
 * shows), GET answers the same, byte for byte.
 */
async function check(p: TestPlatform, table: Table, created: ApiResult, packed: string[]) {
  expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
  const id = created.body.id as string;
  const row = await stored(table, id);
  for (const column of packed) expect(JSON.parse(row[column]!), `${table}.${column}`).toBeInstanceOf(Array);
  const body = await get(p, table, id);
  expect(packedFields(body)).toEqual(packedFields(created.body));

  const previous: Record<string, string | null> = {};
  for (const column of PACKED[table]) {
    const field = column === 'rate_details' ? 'rateDetails' : column;
    if (row[column] === null) continue;
    // The object the API shows for a transaction's end is the stored one; a quote's source is shown as stored.
    previous[column] = JSON.stringify(body[field]);
    expect(previous[column]!.length, `${table}.${column}`).toBeGreaterThan(row[column]!.length);
  }
  const set = Object.keys(previous);
  await env.DB.prepare(`UPDATE ${table} SET ${set.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`)
    .bind(...set.map((c) => previous[c]), id)
    .run();
  expect(JSON.stringify(await get(p, table, id))).toBe(JSON.stringify(body));
}

describe('packed JSON columns', () => {
  it('a quote between accounts and its transaction', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const bank = await externalAccount(p, customer.id, 'EUR', '000');
    await fund(p, accounts.USD!, 100_000);
    const body = {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: bank },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    };
    const created = await api('POST', '/quotes', { auth: p.auth, body });
    await check(p, 'quotes', created, ['source', 'rate_details']);
    const executed = await execute(p, created.body.id);
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    const tx = await get(p, 'transactions', created.body.transactionId);
    await check(p, 'transactions', { status: 200, body: tx, headers: new Headers() }, ['source', 'destination', 'rate_details']);
  });

  it('a realtime-funded quote to a UMA address', async () => {
    const p = await newPlatform();
    const { customer } = await customerWithAccounts(p);
    const quote = await createQuote(p, {
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USD' },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.test', currency: 'EUR' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    await check(p, 'quotes', { status: 201, body: quote, headers: new Headers() }, ['rate_details']);
    const row = await stored('transactions', quote.transactionId);
    const tx = await get(p, 'transactions', quote.transactionId);
    expect(JSON.parse(row.destination!)).toBeInstanceOf(Array);
    await check(p, 'transactions', { status: 200, body: tx, headers: new Headers() }, ['source', 'destination', 'rate_details']);
  });

  it('a transfer-out and an incoming UMA payment', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p, individualBody({ umaAddress: `$rita@${p.umaDomain}` }));
    const bank = await externalAccount(p, customer.id, 'USD', '000');
    await fund(p, accounts.USD!, 100_000);
    await check(p, 'transactions', await transfer(p, 'out', accounts.USD!, bank, 1_000), ['source', 'destination']);
    const received = await api('POST', '/sandbox/uma/receive', {
      auth: p.auth,
      body: {
        senderUmaAddress: '$sam@sender.example',
        receiverUmaAddress: `$rita@${p.umaDomain}`,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: 2_500,
      },
    });
    await check(p, 'transactions', received, ['source', 'destination', 'rate_details']);
  });
});
