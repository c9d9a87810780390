// An upgrade of the transaction and quote list indexes, played onto a database of an earlier release: the test files
// that call `pagesAcrossUpgrade` are each their own file, since each file gets fresh storage (UPGRADE_DB starts
// empty). The Worker's real fetch handler serves the upgraded database (its DB binding replaced by UPGRADE_DB), and
// its pages are compared with this release's own database (DB) holding the same rows: this release's code reads
// columns an earlier schema does not have, so it cannot page the database before the upgrade.
import { applyD1Migrations, env } from 'cloudflare:test';
import { expect } from 'vitest';
import { api, listPages, newPlatform, workerApi, type ApiResult, type TestPlatform } from './api';
import { createQuote, customerWithAccounts, execute, externalAccount, fund, transfer } from './payments';
import { upTo } from './migrations';

const db = env.UPGRADE_DB;
/** The tables a platform's lists and their authentication read, copied row for row into the previous release's database. */
const TABLES = ['platforms', 'api_tokens', 'customers', 'internal_accounts', 'external_accounts', 'transactions', 'quotes'];

/** The columns a row holds (generated ones are computed, never written). */
async function storedColumns(table: string): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT name, hidden FROM pragma_table_xinfo(?)`)
    .bind(table)
    .all<{ name: string; hidden: number }>();
  return results.filter((c) => c.hidden === 0).map((c) => c.name);
}

/** The platform's rows of `TABLES`, written by this release's API into DB, copied into UPGRADE_DB. */
export async function copyPlatform(p: TestPlatform) {
  for (const table of TABLES) {
    const columns = await storedColumns(table);
    const key = table === 'platforms' ? 'id' : 'platform_id';
    const { results } = await env.DB.prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${key} = ?`)
      .bind(p.id)
      .all<Record<string, unknown>>();
    expect(results.length, table).toBeGreaterThan(0);
    const insert = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    await db.batch(results.map((row) => db.prepare(insert).bind(...columns.map((c) => row[c] ?? null))));
  }
}

const upgraded = (path: string, auth: string): Promise<ApiResult> => workerApi('GET', path, { DB: db }, { auth });
const current = (path: string, auth: string): Promise<ApiResult> => api('GET', path, { auth });
type Get = typeof upgraded;

/** Every page of a list, 2 at a time: the items in order, and the cursor of the first page (to use across the upgrade). */
async function allPages(get: Get, path: string, auth: string) {
  const ids: string[] = [];
  let first: string | undefined;
  for await (const body of listPages((query) => get(query, auth), path, 2)) {
    ids.push(...body.data.map((item: { id: string; createdAt: string }) => `${item.id} ${item.createdAt}`));
    if (body.hasMore) first ??= body.nextCursor;
  }
  return { ids, first };
}

/**
 * This release's API writes a platform's payments; they are copied into a database at migration `previous`
 * (`previousRelease` then writes what that release's rows held and this one's do not), with ties of one
 * createdAt forced in both databases; after this release's migrations every transaction and quote list pages as
 * in this release's own database: the same pages in (createdAt, id) order, and a cursor it gave goes on where it
 * stopped. `indexed` checks the upgraded list indexes' SQL.
 */
export async function pagesAcrossUpgrade(
  previous: string,
  indexed: (sql: string, name: string) => void,
  previousRelease: (db: D1Database) => Promise<unknown> = async () => {},
) {
  // This release's API writes the rows (in DB); the previous release's schema receives them.
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  const usd = accounts.USD!;
  const bank = await externalAccount(p, customer.id, 'USD', '000');
  await fund(p, usd, 1_000_000);
  for (let i = 0; i < 6; i++) {
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: usd },
      destination: { destinationType: 'ACCOUNT', accountId: bank },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000 + i,
    });
    if (i % 3 !== 2) expect((await execute(p, quote.id)).status).toBe(200);
    const out = await transfer(p, 'out', usd, bank, 500 + i);
    expect(out.status, JSON.stringify(out.body)).toBe(201);
  }
  const reference = (await api('GET', '/transactions?limit=1', { auth: p.auth })).body.data[0].reconciliationInstructions
    .reference as string;
  await applyD1Migrations(db, upTo(previous));
  await copyPlatform(p);
  await previousRelease(db);
  // Ties: the previous release wrote rows of one millisecond (concurrent requests); five of each share one, in both.
  const tie = (await db.prepare(`SELECT min(created_at) AS created FROM transactions`).first<number>('created'))!;
  for (const d of [db, env.DB]) {
    const tied = (table: string, offset: number) =>
      d
        .prepare(
          `UPDATE ${table} SET created_at = ? WHERE rowid IN (SELECT rowid FROM ${table} WHERE platform_id = ? ORDER BY id LIMIT 5 OFFSET ${offset})`,
        )
        .bind(tie, p.id);
    await d.batch([tied('transactions', 3), tied('quotes', 1)]);
  }

  const enc = encodeURIComponent;
  const lists = [
    '/transactions',
    '/transactions?sortOrder=asc',
    `/transactions?customerId=${enc(customer.id)}`,
    `/transactions?customerId=${enc(customer.id)}&sortOrder=asc`,
    '/transactions?platformCustomerId=' + enc(customer.platformCustomerId),
    '/transactions?status=PROCESSING',
    '/transactions?type=OUTGOING&sortOrder=asc',
    `/transactions?reference=${enc(reference)}`,
    `/transactions?accountIdentifier=${enc(usd)}`,
    `/transactions?senderAccountIdentifier=${enc(usd)}&sortOrder=asc`,
    `/transactions?receiverAccountIdentifier=${enc(bank)}`,
    '/quotes',
    `/quotes?customerId=${enc(customer.id)}`,
    `/quotes?sendingAccountId=${enc(usd)}`,
    `/quotes?receivingAccountId=${enc(bank)}`,
    '/quotes?status=PENDING',
  ];
  const expected = [];
  for (const path of lists) expected.push(await allPages(current, path, p.auth));
  // Each list holds rows, in (createdAt, id) order; the unfiltered ones hold the ties.
  for (const [i, { ids }] of expected.entries()) {
    expect(ids.length, lists[i]).toBeGreaterThan(0);
    const key = (s: string) => `${s.split(' ')[1]} ${s.split(' ')[0]}`;
    const sorted = [...ids].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect(ids, lists[i]).toEqual(lists[i]!.includes('sortOrder=asc') ? sorted : sorted.reverse());
  }
  const tied = (ids: string[]) => ids.filter((s) => s.endsWith(new Date(tie).toISOString())).length;
  expect(tied(expected[0]!.ids)).toBeGreaterThanOrEqual(6);
  expect(tied(expected[11]!.ids)).toBeGreaterThanOrEqual(5);

  await applyD1Migrations(db, env.TEST_MIGRATIONS);

  const indexes = (
    await db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('transactions', 'quotes') AND name LIKE '%_idx'`)
      .all<{ name: string; sql: string }>()
  ).results;
  expect(indexes.length).toBeGreaterThanOrEqual(17);
  for (const { name, sql } of indexes.filter((i) => !i.name.includes('_open_'))) indexed(sql, name);
  // Same pages, same order; a cursor this release gave goes on where it stopped.
  for (const [i, path] of lists.entries()) {
    expect(await allPages(upgraded, path, p.auth), path).toEqual(expected[i]);
    const { first } = expected[i]!;
    if (!first) continue;
    const sep = path.includes('?') ? '&' : '?';
    const next = await upgraded(`${path}${sep}limit=2&cursor=${encodeURIComponent(first)}`, p.auth);
    expect(next.status).toBe(200);
    expect(next.body.data.map((item: { id: string; createdAt: string }) => `${item.id} ${item.createdAt}`)).toEqual(
      expected[i]!.ids.slice(2, 4),
    );
  }
  return { platform: p, lists };
}
