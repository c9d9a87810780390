import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { and, desc, sql } from 'drizzle-orm';
import { database } from '../../src/db/client';
import { idIs } from '../../src/db/id-key';
import { transactions } from '../../src/db/schema';
import { deletePlatformData } from '../../src/db/platform-data';
import { platform, upTo } from '../support/migrations';

// Its own file: each test file gets fresh storage, so UPGRADE_DB starts empty here.

const T = Date.parse('2026-11-01T00:00:00Z');
const P1 = '0199d100-0000-7000-8000-0000000000d1';
const P2 = '0199d100-0000-7000-8000-0000000000d2';
const id = (n: number) => `0199d100-0000-7000-8000-${String(n).padStart(12, '0')}`;
const db = env.UPGRADE_DB;

/** One payment of the previous release's schema: its transaction, history, ledger rows, event and delivery. */
function payment(p: string, n: number, sender: string | null) {
  const tx = `Transaction:${id(n)}`;
  const event = `Webhook:${id(n)}`;
  return [
    db
      .prepare(
        `INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version, destination,
           received_amount, received_currency, fees, reference, sender_uma_address, created_at, updated_at)
         VALUES (?, ?, NULL, 'pc-1', 'INCOMING', 'UMA_RECEIVE', 'COMPLETED', 1, '{}', 100, 'USD', 0, ?, ?, ?, ?)`,
      )
      .bind(tx, `Platform:${p}`, `REF-${n}`, sender, T + n, T + n),
    db
      .prepare(
        `INSERT INTO transaction_history (transaction_id, version, platform_id, from_status, to_status, at) VALUES (?, 1, ?, NULL, 'COMPLETED', ?)`,
      )
      .bind(tx, `Platform:${p}`, T + n),
    db
      .prepare(
        `INSERT INTO ledger_entries (id, platform_id, account_id, amount, currency, reference, kind, created_at)
         VALUES (?, ?, 'Counterparty:x', -100, 'USD', ?, 'settle', ?), (?, ?, 'InternalAccount:y', 100, 'USD', ?, 'settle', ?)`,
      )
      .bind(`LedgerEntry:${id(n)}a`, `Platform:${p}`, tx, T + n, `LedgerEntry:${id(n)}b`, `Platform:${p}`, tx, T + n),
    db
      .prepare(`INSERT INTO webhook_events (id, platform_id, type, timestamp, data) VALUES (?, ?, 'INCOMING_PAYMENT.COMPLETED', ?, ?)`)
      .bind(event, `Platform:${p}`, T + n, JSON.stringify({ id: tx })),
    db
      .prepare(
        `INSERT INTO webhook_deliveries (id, platform_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at, resource_id, sweep_at)
         VALUES (?, ?, ?, 'INCOMING_PAYMENT.COMPLETED', 'DELIVERED', 1, ?, ?, ?, ?, ?)`,
      )
      .bind(`WebhookDelivery:${id(n)}`, `Platform:${p}`, event, T + n, T + n, T + n, tx, T + n),
  ];
}

const indexes = async () =>
  Object.fromEntries(
    (
      await db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`).all<{ name: string; sql: string }>()
    ).results.map((r) => [r.name, r.sql]),
  );
const count = async (table: string, p: string) =>
  (await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE platform_id = ?`).bind(`Platform:${p}`).first<{ n: number }>())!.n;

describe('upgrading a database of the previous release (the index diet, 0031)', () => {
  it('drops the unread indexes, keeps every row, serves the UMA filter from its partial index, and resets a platform through the parents', async () => {
    await applyD1Migrations(db, upTo('0030_'));
    await db.batch([
      platform(P1, 'd1.example', T),
      platform(P2, 'd2.example', T),
      ...payment(P1, 1, '$Alice@D1.example'),
      ...payment(P1, 2, null),
      ...payment(P2, 3, '$alice@d1.example'),
    ]);
    const before = await indexes();
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(['transactions_quote_idx', 'ledger_entries_account_idx', 'webhook_events_platform_idx']),
    );

    await applyD1Migrations(db, env.TEST_MIGRATIONS);

    const after = await indexes();
    for (const gone of [
      'transactions_quote_idx',
      'ledger_entries_account_idx',
      'transaction_history_platform_idx',
      'webhook_events_platform_idx',
    ]) {
      expect(after[gone], gone).toBeUndefined();
    }
    for (const [name, column] of <[string, string][]>[
      ['transactions_sender_uma_idx', 'sender_uma_lc'],
      ['transactions_receiver_uma_idx', 'receiver_uma_lc'],
      ['quotes_receiving_uma_idx', 'receiving_uma_lc'],
      ['quotes_sending_uma_idx', 'sending_uma_lc'],
    ]) {
      expect(after[name], name).toMatch(new RegExp(`WHERE \`${column}\` IS NOT NULL$`));
    }
    // Every row is still there.
    for (const table of ['transactions', 'transaction_history', 'webhook_events', 'webhook_deliveries'])
      expect(await count(table, P1)).toBe(2);
    expect(await count('ledger_entries', P1)).toBe(4);

    // The UMA filter (GET /transactions?senderUmaAddress=…) finds the rows that have one, through the partial index.
    // The platform by its key since 0040 (src/db/id-key.ts), as the service queries it.
    const { sql: filter, params } = database(db)
      .select({ id: transactions.id })
      .from(transactions)
      .where(and(idIs(transactions.platformId, `Platform:${P1}`), sql`sender_uma_lc = ${'$alice@d1.example'}`))
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .toSQL();
    const found = await db
      .prepare(filter)
      .bind(...params)
      .all<{ id: string }>();
    expect(found.results.map((r) => r.id)).toEqual([`Transaction:${id(1)}`]);
    const plan = await db
      .prepare(`EXPLAIN QUERY PLAN ${filter}`)
      .bind(...params)
      .all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail)).toContain(
      'SEARCH transactions USING INDEX transactions_sender_uma_idx (<expr>=? AND sender_uma_lc=?)',
    );

    // The sandbox reset takes P1's history and events through its transactions and deliveries; P2's stay.
    await database(db).batch(deletePlatformData(database(db), `Platform:${P1}`) as never);
    for (const table of ['transactions', 'transaction_history', 'ledger_entries', 'webhook_events', 'webhook_deliveries']) {
      expect(await count(table, P1), table).toBe(0);
      expect(await count(table, P2), table).toBeGreaterThan(0);
    }
  });
});
