#!/usr/bin/env node
// The snapshot phase of `npm run bench` (also alone: `node scripts/bench-snapshots.mjs`, or BENCH_ONLY=snapshots
// npm run bench): times POST /sandbox/snapshots and POST /sandbox/snapshots/{id}/restore on a platform of
// 1,000 customers, 10,000 transactions (with their history, ledger, quotes, webhook events and deliveries) and
// 100 wallet credentials. Starts the service on throwaway state, makes the platform and its 100 wallets
// through the API (each customer's e-mail gives its wallet an EMAIL_OTP credential), stops it, seeds the rest
// with the SQL of scripts/lib/seed.mjs through `wrangler d1 execute --local`, starts it again and times RUNS
// take/restore pairs. Prints the figures; `--json <file>` also writes them there (scripts/bench.mjs reads them).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedPlatform } from './lib/seed.mjs';
import {
  createPlatform,
  SANDBOX_PLATFORM,
  executeLocalSql,
  median,
  scratchWorkspace,
  startBenchService,
  stopChild,
} from './lib/service.mjs';

const { values: opts } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, json: { type: 'string' }, keep: { type: 'boolean', default: false } },
});
const RUNS = Number(opts.runs);
const SIZE = { customers: 1_000, transactions: 10_000, walletCredentials: 100 };

let service;
const { dir, secrets, envFile } = scratchWorkspace('bench-snapshots', () => service, { keep: opts.keep });
const persistTo = join(dir, 'state');
const t0 = Date.now();
const log = (msg) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(7)}s  ${msg}`);

async function start() {
  service = await startBenchService({ persistTo, envFile, stdout: process.env.SNAP_DEBUG ? 'inherit' : 'ignore' });
}

async function stop() {
  await stopChild(service?.child);
  service = undefined;
}

async function call(platform, method, path, body) {
  const started = performance.now();
  const r = await fetch(`${service.apiBase}${path}`, {
    method,
    headers: { Authorization: platform.auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  const ms = performance.now() - started;
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return { ms, body: text ? JSON.parse(text) : undefined };
}

/** The seed: SQL for the customers' side at 1,000 rows per list, and for 10,000 transactions with what hangs on them. */
function seedStatements(platformId, umaDomain) {
  const now = Date.now();
  const people = seedPlatform({ platformId, umaDomain, n: SIZE.customers - SIZE.walletCredentials, now, tag: 1 });
  // Half the transactions plain, half a quote's: 5,000 of each, with their quotes, events and deliveries.
  const payments = seedPlatform({ platformId, umaDomain, n: SIZE.transactions / 2, now, tag: 2 });
  const q = `'${platformId}'`;
  return [
    ...people.statements.filter((s) => !/INSERT INTO (transactions|quotes|api_tokens) /.test(s)),
    ...payments.statements.filter((s) => /INSERT INTO (transactions|quotes|webhook_deliveries) /.test(s)),
    // Each transaction's status history (two steps, in its row) and its ledger movement.
    `UPDATE transactions SET history = CASE WHEN status = 'PENDING' THEN json_array(json_array(NULL, 'PENDING', created_at))
       ELSE json_array(json_array(NULL, 'PENDING', created_at), json_array('PENDING', status, updated_at)) END
     WHERE platform_id = ${q}`,
    `INSERT INTO ledger_movements (platform_id, reference, kind, from_account_id, to_account_id, amount, currency, created_at)
       SELECT platform_id, id, 'seed', coalesce(source_account, 'external:from'), coalesce(destination_account, 'external:to'),
              received_amount, received_currency, created_at
       FROM transactions WHERE platform_id = ${q}`,
  ];
}

async function main() {
  log(`state in ${dir}`);
  await start();
  const umaDomain = `snap-${randomUUID().slice(0, 8)}.bench.test`;
  const platform = await createPlatform(service.apiBase, secrets.OPERATOR_TOKEN, {
    // In the first data database, where the seed's `wrangler d1 execute DB` writes.
    home: 'DB',
    ...SANDBOX_PLATFORM,
    name: 'Snapshot bench platform',
    umaDomain,
  });
  log(`making ${SIZE.walletCredentials} customers with a wallet (an EMAIL_OTP credential each) through the API`);
  for (let i = 0; i < SIZE.walletCredentials; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        call(platform, 'POST', '/customers', {
          customerType: 'INDIVIDUAL',
          platformCustomerId: `wallet-${i + j}`,
          email: `wallet-${i + j}@example.com`,
          fullName: `Wallet Holder ${i + j}`,
          birthDate: '1990-01-15',
          nationality: 'US',
          address: { line1: '1 Main Street', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
        }).then(async (created) => {
          const accounts = await call(
            platform,
            'GET',
            `/customers/internal-accounts?customerId=${encodeURIComponent(created.body.id)}&limit=100`,
          );
          const wallet = accounts.body.data.find((a) => a.type === 'EMBEDDED_WALLET');
          // The wallet's first call makes its EMAIL_OTP credential (its Durable Object starts lazily).
          await call(platform, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`);
        }),
      ),
    );
  }
  await stop();
  log('seeding 900 more customers and 10,000 transactions by SQL');
  executeLocalSql({ dir, persistTo }, seedStatements(platform.platformId, umaDomain), 'seed');
  await start();
  const counts = {
    customers: (await call(platform, 'GET', '/customers?limit=1')).body.totalCount,
    transactions: (await call(platform, 'GET', '/transactions?limit=1')).body.totalCount,
  };
  log(`platform: ${JSON.stringify(counts)}`);
  const take = [];
  const restore = [];
  let snapshot;
  for (let i = 0; i < RUNS; i++) {
    const taken = await call(platform, 'POST', '/sandbox/snapshots', { name: `bench-${i}` });
    snapshot = taken.body;
    // Something to undo: a customer made after the snapshot.
    await call(platform, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `late-${i}`,
      fullName: 'Late Customer',
      birthDate: '1990-01-15',
      nationality: 'US',
      address: { line1: '1 Main Street', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
    });
    const restored = await call(platform, 'POST', `/sandbox/snapshots/${snapshot.id}/restore`);
    await call(platform, 'DELETE', `/sandbox/snapshots/${snapshot.id}`);
    take.push(taken.ms);
    restore.push(restored.ms);
    log(`run ${i + 1}: take ${taken.ms.toFixed(0)} ms, restore ${restored.ms.toFixed(0)} ms`);
  }
  // The worst case: a restore after POST /sandbox/reset writes every row back.
  const full = (await call(platform, 'POST', '/sandbox/snapshots', { name: 'bench-full' })).body;
  await call(platform, 'POST', '/sandbox/reset');
  const fullRestore = await call(platform, 'POST', `/sandbox/snapshots/${full.id}/restore`);
  log(`restore after a reset (every row written): ${fullRestore.ms.toFixed(0)} ms`);
  const after = (await call(platform, 'GET', '/customers?limit=1')).body.totalCount;
  if (after !== counts.customers) throw new Error(`restore left ${after} customers, expected ${counts.customers}`);
  await stop();
  const result = {
    size: { ...SIZE, ...counts },
    snapshotCounts: snapshot.counts,
    takeMs: { median: median(take), runs: take.map(Math.round) },
    restoreMs: { median: median(restore), runs: restore.map(Math.round) },
    restoreAfterResetMs: Math.round(fullRestore.ms),
  };
  console.log(
    `\nSnapshot of ${snapshot.counts.customers} customers (${counts.customers} live), ${counts.transactions} transactions, ${snapshot.counts.walletCredentials} wallet credentials ` +
      `(${Object.values(snapshot.counts).reduce((a, b) => a + b, 0)} rows): take median ${result.takeMs.median.toFixed(0)} ms ` +
      `(${result.takeMs.runs.join(', ')}), restore median ${result.restoreMs.median.toFixed(0)} ms (${result.restoreMs.runs.join(', ')}), restore after a reset ${result.restoreAfterResetMs} ms; target under 1,000 ms each`,
  );
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(error.stack ?? error);
  process.exit(1);
}
