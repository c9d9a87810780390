// Migration 0042: a quote's transaction shares the quote's UUID and stores no link to it; a transaction's history is
// one flat list and a person's counterparty information is packed. Played onto a database of the release before,
// whose quotes' transactions have UUIDs of their own and a stored `quote_id`.
import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/crypto/ids';
import { packStepsAfter, unpack, unpackSteps } from '../../src/db/packed-json';
import { api, newPlatform, workerApi, type ApiResult } from '../support/api';
import { upTo } from '../support/migrations';
import { createQuote, customerWithAccounts, execute, externalAccount, fund } from '../support/payments';
import { copyPlatform } from '../support/upgrade-lists';

const db = env.UPGRADE_DB;
type Row = { id: string; history: string; counterparty_information: string | null };

/** The answer, once it is a 200. */
async function ok(call: Promise<ApiResult>): Promise<ApiResult> {
  const res = await call;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

/** A platform whose customer's funded USD account pays quotes of 1,000 to the customer's bank account. */
async function quotesToABank() {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  const usd = accounts.USD!;
  const bank = await externalAccount(p, customer.id, 'USD', '000');
  await fund(p, usd, 100_000);
  const body = {
    source: { sourceType: 'ACCOUNT', accountId: usd },
    destination: { destinationType: 'ACCOUNT', accountId: bank },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  };
  return { p, quote: () => createQuote(p, body) };
}

/** The ids of the quotes GET /quotes?status= lists (its index reads the status a trigger keeps on the quote). */
async function withStatus(get: (path: string) => Promise<ApiResult>, status: string): Promise<string[]> {
  const res = await get(`/quotes?status=${status}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((q: { id: string }) => q.id);
}

describe('upgrading a database of the previous release (a quote and its transaction share a UUID, 0042)', () => {
  it("reads the previous release's links, histories and counterparties, and keeps each quote's status with its transaction's", async () => {
    const { p, quote } = await quotesToABank();
    const [paid, waiting] = [await quote(), await quote()];
    expect((await execute(p, paid.id)).status).toBe(200);

    // The previous release's rows: each quote's transaction of a UUID of its own, linked by `quote_id`; histories
    // of separate steps; counterparty information as an object.
    await applyD1Migrations(db, upTo('0041_'));
    await copyPlatform(p);
    const txs = (await db.prepare(`SELECT id, history, counterparty_information FROM transactions`).all<Row>()).results;
    const renamed = new Map<string, string>();
    await db.batch(
      txs.flatMap((t) => {
        const id = newId('Transaction');
        const quoteId = `Quote:${t.id.slice('Transaction:'.length)}`;
        renamed.set(t.id, id);
        const counterparty = t.counterparty_information && JSON.stringify(unpack(JSON.parse(t.counterparty_information)));
        const history = JSON.stringify(packStepsAfter(unpackSteps(JSON.parse(t.history)), null));
        return [
          db
            .prepare(`UPDATE transactions SET id = ?, quote_id = ?, history = ?, counterparty_information = ? WHERE id = ?`)
            .bind(id, quoteId, history, counterparty, t.id),
          db.prepare(`UPDATE quotes SET transaction_id = ?, counterparty_information = ? WHERE id = ?`).bind(id, counterparty, quoteId),
        ];
      }),
    );
    expect(renamed.size).toBe(2);
    await applyD1Migrations(db, env.TEST_MIGRATIONS);

    // Every call here answers 200 (this release's database, and the upgraded one).
    const here = (path: string) => ok(api('GET', path, { auth: p.auth }));
    const there = (method: string, path: string, headers: Record<string, string> = {}) =>
      ok(workerApi(method, path, { DB: db }, { auth: p.auth, headers }));
    // Every quote and transaction reads as before, under its own transaction id.
    for (const q of [paid, waiting]) {
      const oldTx = renamed.get(q.transactionId)!;
      const [mine, theirs] = [await here(`/quotes/${q.id}`), await there('GET', `/quotes/${q.id}`)];
      expect(theirs.body).toEqual({ ...mine.body, transactionId: oldTx });
      const [tx, oldTxRead] = [await here(`/transactions/${q.transactionId}`), await there('GET', `/transactions/${oldTx}`)];
      expect(oldTxRead.body).toEqual({ ...tx.body, id: oldTx });
      expect(oldTxRead.body.quoteId).toBe(q.id);
      const history = await there('GET', `/transactions/${oldTx}/history`);
      expect(history.body).toEqual((await here(`/transactions/${q.transactionId}/history`)).body);
    }

    // Executing the previous release's quote: its status follows its transaction's through the stored link, and
    // the step is appended to the separate steps.
    const executed = await there('POST', `/quotes/${waiting.id}/execute`, { 'Idempotency-Key': 'upgrade-0042' });
    expect(executed.body.status).not.toBe('PENDING');
    const oldTx = renamed.get(waiting.transactionId)!;
    const read = await there('GET', `/quotes/${waiting.id}`);
    expect(read.body.status).toBe(executed.body.status);
    // The status list reads the quote's stored status, which the triggers keep.
    expect(await withStatus((path) => there('GET', path), 'PENDING')).toEqual([]);
    expect(await withStatus((path) => there('GET', path), executed.body.status)).toContain(waiting.id);
    expect(read.body.transactionId).toBe(oldTx);
    const stored = await db.prepare(`SELECT history FROM transactions WHERE id = ?`).bind(oldTx).first<string>('history');
    expect(JSON.parse(stored!).every((s: unknown) => Array.isArray(s))).toBe(true);
    const steps = (await there('GET', `/transactions/${oldTx}/history`)).body.data;
    expect(steps.length).toBe(unpackSteps(JSON.parse(stored!)).length);
    expect(steps.length).toBeGreaterThan(1);
  });
});

describe('a quote payment stores its link, history and counterparty once, compactly', () => {
  it('shares the UUID of its quote, stores no quote id, one flat history and packed counterparty information', async () => {
    const { p, quote } = await quotesToABank();
    const q = await quote();
    expect(q.transactionId).toBe(`Transaction:${q.id.slice('Quote:'.length)}`);
    const done = await execute(p, q.id);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    // The quote's status follows its transaction's through the shared UUID (the triggers of 0042).
    const get = (path: string) => ok(api('GET', path, { auth: p.auth }));
    const quoteRead = await get(`/quotes/${q.id}`);
    expect(quoteRead.body.status).toBe(done.body.status);
    expect(done.body.status).not.toBe('PENDING');
    expect(await withStatus((path) => api('GET', path, { auth: p.auth }), done.body.status)).toEqual([q.id]);
    expect(await withStatus((path) => api('GET', path, { auth: p.auth }), 'PENDING')).toEqual([]);
    const txRead = await get(`/transactions/${q.transactionId}`);
    expect(txRead.status).toBe(200);
    expect(txRead.body.quoteId).toBe(q.id);
    expect(txRead.body.counterpartyInformation).toEqual(q.counterpartyInformation);

    const row = await env.DB.prepare(`SELECT quote_id, history, counterparty_information AS c FROM transactions WHERE id = ?`)
      .bind(q.transactionId)
      .first<{ quote_id: string | null; history: string; c: string }>();
    expect(row!.quote_id).toBeNull();
    // [status, at, status, ms after the first, …]: the execution's step appended in SQL, as integers.
    expect(row!.history).toMatch(/^\[\d,\d+(,\d,\d+)+\]$/);
    expect(row!.c).toMatch(/^\[12,"/);
    const history = (await get(`/transactions/${q.transactionId}/history`)).body.data;
    expect(history.length).toBe(JSON.parse(row!.history).length / 2);
    expect(history.at(-1).status).toBe(done.body.status);
  });
});
