import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { unpack, unpackSteps } from '../../src/db/packed-json';
import { api, newPlatform, workerApi } from '../support/api';
import { transferAndQuote } from '../support/payments';
import { pagesAcrossUpgrade } from '../support/upgrade-lists';

type Ends = { id: string; source: string | null; destination: string; history: string | null };
const named = (json: string | null, key: string) => {
  const end = json === null ? null : (unpack(JSON.parse(json)) as Record<string, unknown>);
  return typeof end?.[key] === 'string' ? end[key] : null;
};

/**
 * What the release before 0041 stored: each account id, and a quote's customer, in a column beside the JSON ends;
 * a quote's destination unpacked (its generated columns read it by key); every status step whole.
 */
async function previousRelease(db: D1Database) {
  const txs = (await db.prepare(`SELECT id, source, destination, history FROM transactions`).all<Ends>()).results;
  const quotes = (await db.prepare(`SELECT id, source, destination FROM quotes`).all<Ends>()).results;
  expect(txs.length).toBeGreaterThan(0);
  expect(quotes.length).toBeGreaterThan(0);
  await db.batch([
    ...txs.map((t) =>
      db
        .prepare(`UPDATE transactions SET source_account_id = ?, destination_account_id = ?, history = ? WHERE id = ?`)
        .bind(named(t.source, 'accountId'), named(t.destination, 'accountId'), JSON.stringify(unpackSteps(JSON.parse(t.history!))), t.id),
    ),
    ...quotes.map((q) =>
      db
        .prepare(`UPDATE quotes SET source_account_id = ?, customer_id = ?, destination = ? WHERE id = ?`)
        .bind(named(q.source, 'accountId'), named(q.source, 'customerId'), JSON.stringify(unpack(JSON.parse(q.destination))), q.id),
    ),
  ]);
  const filled = await db
    .prepare(`SELECT count(*) AS n FROM transactions WHERE source_account_id IS NOT NULL AND json_array_length(history -> 0) = 3`)
    .first<number>('n');
  expect(filled).toBe(txs.length);
}

describe('upgrading a database of the previous release (account ids generated from the ends, 0041)', () => {
  it('pages every list as this release does, and reads every transaction and quote back the same', async () => {
    const { platform, lists } = await pagesAcrossUpgrade(
      '0040_',
      (sql, name) => {
        expect(sql, name).toMatch(/^CREATE INDEX `\w+` ON `\w+` \(coalesce\(unhex\(replace\(substr\(`platform_id`,/);
        expect(sql, name).toMatch(/`created_at`\)( WHERE .*)?$/);
        // No index reads a stored column that new rows leave NULL.
        expect(sql, name).not.toMatch(
          name.startsWith('quotes') ? /`(source_account_id|customer_id)`/ : /`(source|destination)_account_id`/,
        );
      },
      previousRelease,
    );
    expect(lists.length).toBe(16);
    // The account filters' indexes read the generated columns.
    const accountIndexes = (
      await env.UPGRADE_DB.prepare(
        `SELECT name, sql FROM sqlite_master WHERE name IN ('transactions_source_account_idx', 'transactions_destination_account_idx',
           'transactions_open_destination_idx', 'quotes_source_account_idx', 'quotes_customer_idx')`,
      ).all<{ name: string; sql: string }>()
    ).results;
    expect(accountIndexes.map((i) => i.name).sort()).toEqual([
      'quotes_customer_idx',
      'quotes_source_account_idx',
      'transactions_destination_account_idx',
      'transactions_open_destination_idx',
      'transactions_source_account_idx',
    ]);
    for (const { name, sql } of accountIndexes) expect(sql, name).toMatch(/`(source_account|destination_account|customer)`/);
    // Every transaction (and its history) and quote reads the same from the upgraded database as from this release's.
    const ids = async (table: string) =>
      (await env.UPGRADE_DB.prepare(`SELECT id FROM ${table} ORDER BY id`).all<{ id: string }>()).results.map((r) => r.id);
    const paths = [
      ...(await ids('transactions')).flatMap((id) => [`/transactions/${id}`, `/transactions/${id}/history`]),
      ...(await ids('quotes')).map((id) => `/quotes/${id}`),
    ];
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const here = await api('GET', path, { auth: platform.auth });
      const there = await workerApi('GET', path, { DB: env.UPGRADE_DB }, { auth: platform.auth });
      expect(here.status, JSON.stringify(here.body)).toBe(200);
      expect(there.body, path).toEqual(here.body);
    }
  });
});

describe('a payment stores each account id once', () => {
  it('a transfer and a quote name their accounts and customer in their JSON ends only; the filters read generated columns', async () => {
    const p = await newPlatform();
    const { customer, usd, bank, out, quote } = await transferAndQuote(p);
    const tx = await env.DB.prepare(
      `SELECT source_account_id, destination_account_id, source_account, destination_account FROM transactions WHERE id = ?`,
    )
      .bind(out.body.id)
      .first();
    expect(tx).toEqual({ source_account_id: null, destination_account_id: null, source_account: usd, destination_account: bank });
    const q = await env.DB.prepare(
      `SELECT customer_id, source_account_id, customer, source_account, receiving_account_id, json_type(destination) AS packed FROM quotes WHERE id = ?`,
    )
      .bind(quote.id)
      .first();
    expect(q).toEqual({
      customer_id: null,
      source_account_id: null,
      customer: customer.id,
      source_account: usd,
      receiving_account_id: bank,
      packed: 'array',
    });
    const found = async (path: string) => {
      const res = await api('GET', path, { auth: p.auth });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data.map((item: { id: string }) => item.id);
    };
    const enc = encodeURIComponent;
    expect(await found(`/transactions?senderAccountIdentifier=${enc(usd)}`)).toContain(out.body.id);
    expect(await found(`/transactions?receiverAccountIdentifier=${enc(bank)}`)).toContain(out.body.id);
    expect(await found(`/transactions?senderAccountIdentifier=${enc(bank)}`)).not.toContain(out.body.id);
    expect(await found(`/quotes?customerId=${enc(customer.id)}`)).toEqual([quote.id]);
    expect(await found(`/quotes?customerId=${enc(p.id)}`)).toEqual([]);
    expect(await found(`/quotes?sendingAccountId=${enc(usd)}`)).toEqual([quote.id]);
    expect(await found(`/quotes?receivingAccountId=${enc(bank)}`)).toEqual([quote.id]);
    expect(await found(`/quotes?receivingAccountId=${enc(usd)}`)).toEqual([]);
    // The quote reads back with its destination's keys, as created.
    const read = await api('GET', `/quotes/${quote.id}`, { auth: p.auth });
    expect(read.status).toBe(200);
    expect(read.body.destination).toEqual(quote.destination);
  });
});
