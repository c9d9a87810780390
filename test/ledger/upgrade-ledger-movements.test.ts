import { applyD1Migrations, createScheduledController, env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { database } from '../../src/db/client';
import { ledgerEntries, ledgerMovements } from '../../src/db/schema';
import { movementStatements } from '../../src/ledger/ledger';
import { convertLegacyChunk, LEGACY_CHUNK } from '../../src/ledger/backfill';
import { commitChange } from '../../src/http/change';
import { ApiError } from '../../src/http/errors';
import { api, newPlatform, type TestPlatform } from '../support/api';
import { customerWithAccounts, expectLedgerInvariant, externalAccount, fund, postings, transfer } from '../support/payments';

// Its own file: it turns this file's database (each test file has its own storage) back into the previous
// release's ledger, as an upgrade finds it, and serves the API from it.

const db = database(env.DB);
const sweep = () => worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);

/** A platform with a customer who paid out twice from a funded account. */
async function payingPlatform() {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 50_000);
  const external = await externalAccount(p, customer.id, 'USD', '001');
  for (const amount of [1_000, 2_500]) {
    const res = await transfer(p, 'out', accounts.USD!, external, amount);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  return { p, usd: accounts.USD!, external };
}

/** What a platform sees: its transactions and its internal accounts (balances). */
async function seen(p: TestPlatform) {
  const transactions = await api('GET', '/transactions?limit=100', { auth: p.auth });
  const accounts = await api('GET', '/customers/internal-accounts?limit=100', { auth: p.auth });
  expect(transactions.status).toBe(200);
  expect(accounts.status).toBe(200);
  return { transactions: transactions.body, accounts: accounts.body };
}

/**
 * The previous release's ledger: each movement as its two entries (debit first, one statement each, so in rowid
 * order), no ledger_movements table, migration 0032 not applied.
 */
async function backToEntries() {
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO ledger_entries (id, platform_id, account_id, amount, currency, reference, kind, created_at)
       SELECT 'LedgerEntry:' || m.reference || ':' || m.kind || ':' || s.side, m.platform_id,
              CASE s.side WHEN 0 THEN m.from_account_id ELSE m.to_account_id END,
              CASE s.side WHEN 0 THEN -m.amount ELSE m.amount END, m.currency, m.reference, m.kind, m.created_at
       FROM ledger_movements m, (SELECT 0 AS side UNION ALL SELECT 1) s
       ORDER BY m.created_at, m.reference, m.kind, s.side`,
    ),
    env.DB.prepare('DROP TABLE ledger_movements'),
    env.DB.prepare(`DELETE FROM d1_migrations WHERE name LIKE '0032\\_%' ESCAPE '\\'`),
  ]);
}

const movementsOf = async (platformId: string) =>
  (await db.select().from(ledgerMovements).where(eq(ledgerMovements.platformId, platformId))).sort((a, b) =>
    `${a.reference}${a.kind}`.localeCompare(`${b.reference}${b.kind}`),
  );

describe('upgrading to one ledger row per movement (0032)', () => {
  it('serves the API throughout, refuses a second posting of a movement not yet converted, and the sweep converts them all', async () => {
    const one = await payingPlatform();
    const two = await payingPlatform();
    const before = { one: await seen(one.p), two: await seen(two.p) };
    const moved = { one: await movementsOf(one.p.id), two: await movementsOf(two.p.id) };
    // Funding, then a debit and a settlement per payout.
    expect(moved.one).toHaveLength(5);
    await backToEntries();
    expect((await env.DB.prepare('SELECT count(*) AS n FROM ledger_entries').first<{ n: number }>())!.n).toBe(20);

    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
    expect(await movementsOf(one.p.id)).toEqual([]);
    // Nothing the API shows reads the ledger: both platforms see what they saw.
    expect(await seen(one.p)).toEqual(before.one);
    expect(await seen(two.p)).toEqual(before.two);

    // A movement still in the old entries is posted already: a second posting loses as a concurrent one would.
    const settled = moved.one.find((m) => m.kind === 'SETTLE')!;
    const again = movementStatements(db, {
      platformId: one.p.id,
      from: settled.fromAccountId,
      to: settled.toAccountId,
      amount: settled.amount,
      currency: settled.currency,
      reference: settled.reference,
      kind: settled.kind,
      now: Date.now(),
    });
    const posted = new ApiError('CONFLICT', 'posted already');
    await expect(
      commitChange({ db, queue: env.JOBS }, { statements: again, messages: [], status: 200, body: null, conflict: posted }),
    ).rejects.toBe(posted);

    // Payments go on meanwhile, into the new table.
    const res = await transfer(two.p, 'out', two.usd, two.external, 700);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await postings(res.body.id)).toEqual(['DEBIT', 'SETTLE']);

    await sweep();
    expect((await env.DB.prepare('SELECT count(*) AS n FROM ledger_entries').first<{ n: number }>())!.n).toBe(0);
    expect(await movementsOf(one.p.id)).toEqual(moved.one);
    const twoNow = await movementsOf(two.p.id);
    expect(twoNow.filter((m) => m.reference !== res.body.id)).toEqual(moved.two);
    await expectLedgerInvariant(one.p.id);
    await expectLedgerInvariant(two.p.id);
    expect(await seen(one.p)).toEqual(before.one);
    // A second sweep finds nothing to do.
    await sweep();
    expect(await movementsOf(one.p.id)).toEqual(moved.one);
  });

  it('converts in chunks: a movement split by a chunk’s end waits for the next chunk', async () => {
    const platformId = 'Platform:chunked';
    const entry = (n: number, account: string, amount: number) =>
      db.insert(ledgerEntries).values({
        id: `LedgerEntry:chunk-${n}-${account}`,
        platformId,
        accountId: account,
        amount,
        currency: 'USD',
        reference: `R${n}`,
        kind: 'DEBIT',
        createdAt: n,
      });
    // In rowid order: the debit of R0, then LEGACY_CHUNK / 2 - 1 whole movements, then the debit of R1 closes
    // the first chunk; the credits of R0 and R1 come after it.
    const whole = Array.from({ length: LEGACY_CHUNK / 2 - 1 }, (_, i) => [entry(i + 2, 'A', -1), entry(i + 2, 'B', 1)]).flat();
    await db.batch([entry(0, 'A', -5), ...whole, entry(1, 'A', -7), entry(0, 'B', 5), entry(1, 'B', 7)]);

    expect(await convertLegacyChunk(db)).toBe(LEGACY_CHUNK - 2);
    expect((await db.select().from(ledgerEntries).where(eq(ledgerEntries.platformId, platformId))).map((e) => e.reference).sort()).toEqual([
      'R0',
      'R0',
      'R1',
      'R1',
    ]);
    expect(await convertLegacyChunk(db)).toBe(4);
    expect(await convertLegacyChunk(db)).toBe(0);
    const rows = await movementsOf(platformId);
    expect(rows).toHaveLength(LEGACY_CHUNK / 2 + 1);
    expect(
      rows.filter((m) => m.reference === 'R0' || m.reference === 'R1').map((m) => [m.reference, m.fromAccountId, m.toAccountId, m.amount]),
    ).toEqual([
      ['R0', 'A', 'B', 5],
      ['R1', 'A', 'B', 7],
    ]);
  });
});
