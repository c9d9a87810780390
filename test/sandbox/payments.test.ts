import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/index';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currency } from '../../src/common/currencies';
import * as schema from '../../src/db/schema';
import { api, BASE, expectError, failingFields, newPlatform } from '../support/api';
import { individualBody, postForm, productionApi } from '../support/customers';
import {
  advance,
  balanceOf,
  createQuote,
  customerWithAccounts,
  db,
  eventsAbout,
  expectLedgerInvariant,
  externalAccount,
  fund,
  postings,
  statusPath,
  transfer,
  tx,
} from '../support/payments';

const T0 = Date.parse('2032-05-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const receive = (auth: string, body: Record<string, unknown>) => api('POST', '/sandbox/uma/receive', { auth, body });

describe('POST /sandbox/uma/receive', () => {
  it("credits the receiver's internal account: PENDING, then COMPLETED", async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p, individualBody({ umaAddress: `$bob@${p.umaDomain}` }));
    const res = await receive(p.auth, {
      senderUmaAddress: '$alice.smith@sender.example',
      receiverUmaAddress: `$Bob@${p.umaDomain}`,
      receivingCurrencyCode: 'EUR',
      receivingCurrencyAmount: 2_500,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^Transaction:/),
      status: 'PENDING',
      type: 'INCOMING',
      source: { sourceType: 'UMA_ADDRESS', umaAddress: '$alice.smith@sender.example', currency: 'EUR' },
      destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR, currency: 'EUR' },
      customerId: customer.id,
      platformCustomerId: customer.platformCustomerId,
      createdAt: new Date(T0).toISOString(),
      updatedAt: new Date(T0).toISOString(),
      counterpartyInformation: { FULL_NAME: 'Alice Smith' },
      senderUmaAddress: '$alice.smith@sender.example',
      receiverUmaAddress: `$bob@${p.umaDomain}`,
      reconciliationInstructions: { reference: expect.stringMatching(/^UMA-/) },
      receivedAmount: { amount: 2_500, currency: currency('EUR') },
      fees: 0,
      rateDetails: {
        serviceApiMultiplier: expect.any(Number),
        serviceApiFixedFee: 0,
        serviceApiVariableFeeRate: 0,
        serviceApiVariableFeeAmount: 0,
      },
    });
    expect(await balanceOf(p, accounts.EUR!)).toBe(0);
    await advance(p, 4);
    expect((await tx(p, res.body.id)).status).toBe('PENDING');
    await advance(p, 1);
    const done = await tx(p, res.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', settledAt: new Date(T0 + 5000).toISOString() });
    expect(await balanceOf(p, accounts.EUR!)).toBe(2_500);
    expect(await statusPath(res.body.id)).toEqual(['PENDING', 'COMPLETED']);
    expect(await postings(res.body.id)).toEqual(['CREDIT']);
    expect((await eventsAbout(p.id, res.body.id)).map((e) => e.type)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
    await expectLedgerInvariant(p.id);
  });

  it('answers 404 UMA_NOT_FOUND for an unknown receiver and 400 for what cannot be received', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    await customerWithAccounts(other, individualBody({ umaAddress: `$carol@${other.umaDomain}` }));
    const { customer } = await customerWithAccounts(p, individualBody({ umaAddress: `$dave@${p.umaDomain}` }));
    const body = { senderUmaAddress: '$x@s.example', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 };
    expectError(await receive(p.auth, { ...body, receiverUmaAddress: `$nobody@${p.umaDomain}` }), 404, 'UMA_NOT_FOUND');
    expectError(await receive(p.auth, { ...body, receiverUmaAddress: `$carol@${other.umaDomain}` }), 404, 'UMA_NOT_FOUND');
    let res = await receive(p.auth, { ...body, receiverUmaAddress: `$dave@${p.umaDomain}`, receivingCurrencyCode: 'GBP' });
    expect(failingFields(res)).toEqual(['receivingCurrencyCode']);
    res = await receive(p.auth, { senderUmaAddress: 'bad', receivingCurrencyAmount: 0 });
    expect(failingFields(res)).toEqual(['senderUmaAddress', 'receivingCurrencyCode', 'receivingCurrencyAmount']);
    res = await receive(p.auth, body);
    expect(failingFields(res)).toEqual(['receiverUmaAddress']);
    expect((await receive(p.auth, { ...body, customerId: customer.id })).status).toBe(200);
    // A deleted customer receives nothing (one with a payment under way cannot be deleted: a fresh one).
    const { customer: gone } = await customerWithAccounts(p, individualBody({ umaAddress: `$erin@${p.umaDomain}` }));
    expect((await api('DELETE', `/customers/${gone.id}`, { auth: p.auth })).status).toBe(200);
    expectError(await receive(p.auth, { ...body, receiverUmaAddress: `$erin@${p.umaDomain}` }), 404, 'UMA_NOT_FOUND');
    expectError(await receive(p.auth, { ...body, customerId: gone.id }), 404, 'UMA_NOT_FOUND');
  });
});

/** The database's tables that have a platform_id column. */
async function platformTables(): Promise<string[]> {
  const { results } = await env.DB.prepare(
    `SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c ON c.name = 'platform_id'
     WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_cf_%' ORDER BY m.name`,
  ).all<{ name: string }>();
  return results.map((r) => r.name);
}

/** How many rows of the table are the platform's. */
const rowsOf = async (table: string, platformId: string) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM "${table}" WHERE platform_id = ?`).bind(platformId).first<{ n: number }>())!.n;

describe('POST /sandbox/reset', () => {
  it("deletes the platform's data except its tokens and config, and resets its clock", async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const theirs = await customerWithAccounts(other);
    await fund(p, accounts.USD!, 10_000);
    await fund(other, theirs.accounts.USD!, 10_000);
    const ext = await externalAccount(p, customer.id, 'USD', '005');
    await transfer(p, 'out', accounts.USD!, ext, 1_000);
    await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    const pdf = new TextEncoder().encode('%PDF-1.4 test');
    const doc = await postForm('/documents', p.auth, [
      { name: 'documentHolder', value: customer.id },
      { name: 'documentType', value: 'PASSPORT' },
      { name: 'country', value: 'US' },
      { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: pdf },
    ]);
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    await api('POST', '/verifications', { auth: p.auth, body: { customerId: customer.id } });
    await advance(p, 10);
    const token = await api('POST', '/tokens', { auth: p.auth, body: { name: 'kept', permissions: ['VIEW'] } });
    const configBefore = (await api('GET', '/config', { auth: p.auth })).body;
    const objects = await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` });
    expect(objects.objects.length).toBe(1);

    const populated = Object.fromEntries(
      await Promise.all((await platformTables()).map(async (name) => [name, await rowsOf(name, p.id)] as const)),
    );
    const res = await api('POST', '/sandbox/reset', { auth: p.auth });
    expect(res.status).toBe(204);

    // Every table with a platform_id column, read from the database itself, so a table added later is checked too.
    const s = schema;
    const count = async (table: any, column: any, id: string) => (await db().select().from(table).where(eq(column, id))).length;
    const remaining = Object.fromEntries(
      await Promise.all((await platformTables()).map(async (name) => [name, await rowsOf(name, p.id)] as const)),
    );
    const before = Object.values(populated).filter((n) => n > 0).length;
    // Kept: the tokens, the platform's range in the search index, the maintained counts (of what is left), and
    // its entry in the directory of homes.
    const KEPT = ['api_tokens', 'customer_search_ranges', 'list_counts', 'platform_homes'];
    expect(before).toBeGreaterThanOrEqual(15);
    expect(Object.keys(remaining).length).toBeGreaterThanOrEqual(30);
    for (const [table, n] of Object.entries(remaining)) if (!KEPT.includes(table)) expect(n, table).toBe(0);
    expect(remaining.api_tokens).toBe(2);
    const { results: counted } = await env.DB.prepare('SELECT list, n FROM list_counts WHERE platform_id = ? AND n != 0')
      .bind(p.id)
      .all<{ list: string; n: number }>();
    expect(counted).toEqual([{ list: 'api_tokens', n: 2 }]);
    expect((await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` })).objects).toEqual([]);
    // Kept: tokens and config; the clock is back to real time.
    expect((await api('GET', '/tokens', { auth: p.auth })).body.data.map((t: any) => t.id)).toContain(token.body.id);
    expect((await api('GET', '/config', { auth: p.auth })).body).toEqual(configBefore);
    expect((await db().select().from(s.platforms).where(eq(s.platforms.id, p.id)))[0]!.clockOffsetMs).toBe(0);
    expect((await api('GET', '/transactions', { auth: p.auth })).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
    // Another platform is untouched.
    expect(await count(s.customers, s.customers.platformId, other.id)).toBe(1);
    expect(await balanceOf(other, theirs.accounts.USD!)).toBe(10_000);
    await expectLedgerInvariant(other.id);
    // The platform works again from scratch; its pending 005 failure never fires.
    const again = await customerWithAccounts(p);
    expect(again.customer.id).not.toBe(customer.id);
    await advance(p, 60);
    expect((await api('GET', '/transactions', { auth: p.auth })).body.data).toEqual([]);
  });
});

/** The Worker in production mode, with an Idempotency-Key. */
async function production(method: string, path: string, auth: string, body: unknown) {
  const request = new Request(`${BASE}${path}`, {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
    body: JSON.stringify(body),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, { ...env, SERVICE_ENV: 'production' }, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json<any>() };
}

describe('sandbox endpoints in production', () => {
  it.each([
    ['/sandbox/send', { quoteId: 'Quote:x', currencyCode: 'USD' }],
    [
      '/sandbox/uma/receive',
      { senderUmaAddress: '$a@b.test', receiverUmaAddress: '$c@d.test', receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1 },
    ],
    ['/sandbox/reset', undefined],
  ])('%s answers 404 as an unknown path', async (path, body) => {
    const p = await newPlatform();
    expectError(await productionApi('POST', path, { auth: p.auth, body }), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
  });

  it('honours no magic value: suffixes and sandbox UMA receivers are ordinary', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 10_000);
    const ext = await externalAccount(p, customer.id, 'USD', '002');
    // Nor does anything complete by itself: without the operator's rail the transfer is refused, nothing debited
    // (with one it stays PROCESSING until the rail reports: test/payments/rail-production.test.ts).
    const res = await production('POST', '/transfer-out', p.auth, {
      source: { accountId: accounts.USD },
      destination: { accountId: ext },
      amount: 100,
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'SERVICE_NOT_CONFIGURED' });
    expect(await balanceOf(p, accounts.USD!)).toBe(10_000);
    const quote = await productionApi('POST', '/quotes', {
      auth: p.auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.uma.test' },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1000,
      },
    });
    expectError(quote, 404, 'UMA_NOT_FOUND');
  });
});
