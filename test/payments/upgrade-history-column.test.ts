import { applyD1Migrations, createScheduledController, env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STEP_STATUSES, unpackSteps } from '../../src/db/packed-json';
import worker from '../../src/index';
import { api, newPlatform, type TestPlatform } from '../support/api';
import { advance, createQuote, customerWithAccounts, execute, externalAccount, fund, transfer } from '../support/payments';

// Its own file: it turns this file's database (each test file has its own storage) back into the previous
// release's status history, as an upgrade finds it, and serves the API from it.

const T0 = Date.parse('2032-06-01T08:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const sweep = () => worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);
const count = async (sql: string) => (await env.DB.prepare(sql).first<{ n: number }>())!.n;

/** The previous release's history: one row per status in transaction_history, no `history` column, 0033 not applied. */
async function backToRows() {
  const { results } = await env.DB.prepare('SELECT id, platform_id, history FROM transactions WHERE history IS NOT NULL').all<{
    id: string;
    platform_id: string;
    history: string;
  }>();
  const insert = env.DB.prepare(
    'INSERT INTO transaction_history (transaction_id, version, platform_id, from_status, to_status, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  await env.DB.batch([
    ...results.flatMap((t) =>
      unpackSteps(JSON.parse(t.history)).map(([from, to, at], i) => insert.bind(t.id, i, t.platform_id, from, to, at)),
    ),
    env.DB.prepare('ALTER TABLE transactions DROP COLUMN history'),
    env.DB.prepare(`DELETE FROM d1_migrations WHERE name LIKE '0033\\_%' ESCAPE '\\'`),
  ]);
}

/** Everything a platform sees of its transactions: the list, and each one's history. */
async function seen(p: TestPlatform) {
  const list = await api('GET', '/transactions?limit=100', { auth: p.auth });
  expect(list.status).toBe(200);
  const histories: Record<string, unknown> = {};
  for (const t of list.body.data) {
    const res = await api('GET', `/transactions/${t.id}/history`, { auth: p.auth });
    expect(res.status).toBe(200);
    histories[t.id] = res.body;
  }
  return { list: list.body, histories };
}

describe('upgrading to the status history as a column of the transaction (0033)', () => {
  it('reads the old rows until converted, carries them over on the next change, and the sweep converts the rest', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    // Completes at once; stays PROCESSING for 30 s, then fails; a quote executed and settled.
    const done = await transfer(p, 'out', accounts.USD!, await externalAccount(p, customer.id, 'USD', '001'), 1_000);
    const later = await transfer(p, 'out', accounts.USD!, await externalAccount(p, customer.id, 'USD', '005'), 2_000);
    expect([done.status, later.status], JSON.stringify([done.body, later.body])).toEqual([201, 201]);
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: await externalAccount(p, customer.id, 'EUR', '001') },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 3_000,
    });
    expect((await execute(p, quote.id)).status).toBe(200);
    const before = await seen(p);
    expect(Object.keys(before.histories)).toHaveLength(3);

    await backToRows();
    const statuses = Object.values(before.histories).reduce((n: number, h) => n + (h as { data: unknown[] }).data.length, 0);
    expect(await count('SELECT count(*) AS n FROM transaction_history')).toBe(statuses);
    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
    expect(await count('SELECT count(*) AS n FROM transactions WHERE history IS NOT NULL')).toBe(0);
    // Served from the old rows: what the platform saw.
    expect(await seen(p)).toEqual(before);

    // The pending transfer fails on time: its change carries its old history over and appends to it.
    await advance(p, 30);
    const failed = await api('GET', `/transactions/${later.body.id}/history`, { auth: p.auth });
    expect(failed.body).toEqual({
      data: [
        { status: 'PROCESSING', changedAt: new Date(T0).toISOString() },
        { status: 'FAILED', previousStatus: 'PROCESSING', changedAt: new Date(T0 + 30_000).toISOString() },
      ],
    });
    const column = await env.DB.prepare('SELECT history FROM transactions WHERE id = ?').bind(later.body.id).first<{ history: string }>();
    // The old step as the rows held it, the new one packed (FAILED's index, after the status before it).
    expect(JSON.parse(column!.history)).toEqual([
      [null, 'PROCESSING', T0],
      [STEP_STATUSES.indexOf('FAILED'), T0 + 30_000],
    ]);
    // The completed transfer has not changed since: still in the old rows.
    expect(await count(`SELECT count(*) AS n FROM transactions WHERE history IS NULL AND id = '${done.body.id}'`)).toBe(1);

    const middle = await seen(p);
    await sweep();
    expect(await count('SELECT count(*) AS n FROM transaction_history')).toBe(0);
    expect(await count('SELECT count(*) AS n FROM transactions WHERE history IS NULL')).toBe(0);
    // Converted, the histories read as they did from the old rows.
    expect(await seen(p)).toEqual(middle);
    expect(middle.histories[done.body.id]).toEqual(before.histories[done.body.id]);
  });
});
