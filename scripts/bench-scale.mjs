#!/usr/bin/env node
// `npm run bench:scale`: does a request's cost stay flat as a platform's data grows? Starts the service on
// throwaway state as `npm start` does, makes a platform through the operator API, then for each size (rows
// per list, ascending) stops the service, grows the platform (and a neighbour platform, so a query that
// reads across platforms shows) to that size with the SQL of scripts/lib/seed.mjs through
// `wrangler d1 execute --local` (the tables' triggers keep counters and search indexes right), starts it
// again and times every list, filter and search one request at a time. Prints the p50 per request and size
// and the ratio largest/smallest; writes bench/scale-results.json, and the table of docs/engineering/performance.md with --write.
//
//   npm run bench:scale -- [--sizes 1000,100000,1000000] [--samples 11] [--case-seconds 20] [--timeout 120] [--neighbours 1] [--write] [--keep]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedPlatform } from './lib/seed.mjs';
import { createPlatform, executeLocalSql, median, root, startBenchService, stopChild, scratchWorkspace } from './lib/service.mjs';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000,1000000' },
    samples: { type: 'string', default: '11' },
    'case-seconds': { type: 'string', default: '20' },
    timeout: { type: 'string', default: '120' },
    neighbours: { type: 'string', default: '1' },
    write: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const SIZES = opts.sizes
  .split(',')
  .map((s) => Number(s.trim()))
  .sort((a, b) => a - b);
if (SIZES.some((n) => !Number.isInteger(n) || n < 50)) throw new Error('--sizes: integers of at least 50 rows per list');
const SAMPLES = Number(opts.samples);
const CASE_SECONDS = Number(opts['case-seconds']);
const TIMEOUT = Number(opts.timeout);
const NEIGHBOURS = Number(opts.neighbours);

let persistTo;
let service;
const { dir, secrets, envFile } = scratchWorkspace('bench-scale', () => service, { keep: opts.keep });

const t0 = Date.now();
const log = (msg) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(7)}s  ${msg}`);
const fmtN = (n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n));

async function start() {
  service = await startBenchService({ persistTo, envFile });
}

async function stop() {
  await stopChild(service?.child);
  service = undefined;
}

/** The requests timed at every size; `{name}` is a value of the first seed's sample. */
const CASES = [
  ['customers', '/customers'],
  ['customers', '/customers?search={email}'],
  ['customers', '/customers?search=no-such-customer'],
  ['customers', '/customers?platformCustomerId={platformCustomerId}'],
  ['customers', '/customers?customerType=BUSINESS'],
  ['customers', '/customers?umaAddress={umaAddress}'],
  ['customers', '/customers?createdAfter={lastDay}'],
  ['customers', '/customers/{customerId}'],
  ['transactions', '/transactions'],
  ['transactions', '/transactions?customerId={customerId}'],
  ['transactions', '/transactions?platformCustomerId={platformCustomerId}'],
  ['transactions', '/transactions?status=FAILED'],
  ['transactions', '/transactions?type=OUTGOING'],
  ['transactions', '/transactions?accountIdentifier={usdAccountId}'],
  ['transactions', '/transactions?reference={reference}'],
  ['transactions', '/transactions?startDate={lastDay}'],
  ['transactions', '/transactions?sortOrder=asc'],
  ['transactions', '/transactions/{transactionId}'],
  ['quotes', '/quotes'],
  ['quotes', '/quotes?customerId={customerId}'],
  ['quotes', '/quotes?status=PENDING'],
  ['webhooks', '/webhooks/deliveries'],
  ['webhooks', '/webhooks/deliveries?status=FAILED'],
  ['webhooks', '/webhooks/deliveries?eventType=OUTGOING_PAYMENT.COMPLETED'],
  ['webhooks', '/webhooks/deliveries?eventId={eventId}'],
  ['accounts', '/customers/internal-accounts?customerId={customerId}'],
  ['accounts', '/customers/external-accounts'],
  ['accounts', '/customers/external-accounts?customerId={customerId}'],
  ['accounts', '/platform/external-accounts'],
  ['kyc', '/beneficial-owners?customerId={businessCustomerId}'],
  ['kyc', '/verifications'],
  ['kyc', '/verifications?verificationStatus=APPROVED'],
  ['kyc', '/documents'],
  ['kyc', '/documents?documentHolder={customerId}'],
  ['agents', '/agents'],
  ['agents', '/agents?customerId={customerId}'],
  ['agents', '/agents/approvals'],
  ['platform', '/tokens'],
];

/**
 * Times one request `SAMPLES` times (fewer when a case passes `CASE_SECONDS`): p50 ms, status, rows read.
 * A request slower than `TIMEOUT` seconds ends the case (its query may still hold the database: the next
 * case's figures are then suspect, and the table says so).
 */
async function timeCase(apiBase, auth, path) {
  const call = async () => {
    const started = performance.now();
    const res = await fetch(`${apiBase}${path}`, { headers: { Authorization: auth }, signal: AbortSignal.timeout(TIMEOUT * 1000) });
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status, rowsRead: res.headers.get('X-D1-Rows-Read') };
  };
  const runs = [];
  try {
    const first = await call(); // warm-up (compiles the isolate's paths, fills SQLite's page cache)
    if (first.status !== 200) return { status: first.status };
    const began = performance.now();
    while (runs.length < SAMPLES && (runs.length < 3 || performance.now() - began < CASE_SECONDS * 1000)) runs.push(await call());
  } catch (error) {
    if (error.name !== 'TimeoutError') throw error;
    return { status: 'timeout' };
  }
  const rows = runs.map((r) => r.rowsRead).filter((r) => r !== null);
  return {
    status: 200,
    p50: median(runs.map((r) => r.ms)),
    samples: runs.length,
    ...(rows.length ? { rowsRead: median(rows.map(Number)) } : {}),
  };
}

mkdirSync(join(root, 'bench'), { recursive: true });
const resultsFile = join(root, 'bench', 'scale-results.json');
const results = { date: new Date().toISOString(), sizes: SIZES, neighbours: NEIGHBOURS, samples: SAMPLES, seedSeconds: {}, cases: {} };

log(`state in ${dir}; sizes ${SIZES.map(fmtN).join(', ')} rows per list; ${NEIGHBOURS} neighbour platform(s) of the same size`);
for (const size of SIZES) {
  // Each size on fresh state: a platform made through the operator API, then seeded to `size` rows per list.
  persistTo = join(dir, `state-${size}`);
  await start();
  const umaDomain = `scale-${randomUUID().slice(0, 8)}.bench.test`;
  const platform = await createPlatform(service.apiBase, secrets.OPERATOR_TOKEN, {
    // In the first data database, where the seed's `wrangler d1 execute DB` writes.
    home: 'DB',
    name: 'Scale bench platform',
    umaDomain,
    supportedCurrencies: ['USD', 'EUR'].map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 100_000_000,
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
      requiredCounterpartyFields: [],
    })),
  });
  await stop();
  const now = Date.now();
  const tag = Math.floor(Math.random() * 2 ** 40);
  const seed = seedPlatform({ platformId: platform.platformId, umaDomain, n: size, now, tag });
  const sample = {
    ...seed.sample,
    email: 'seed12@example.com',
    reference: `SEED-${tag.toString(16).padStart(10, '0')}-7`,
    lastDay: new Date(now - 86_400_000).toISOString(),
  };
  log(`seeding ${fmtN(size)} rows per list…`);
  const started = Date.now();
  executeLocalSql({ dir, persistTo }, seed.statements, `seed-${size}`);
  for (let i = 0; i < NEIGHBOURS; i++) {
    const neighbour = { platformId: `Platform:${randomUUID()}`, umaDomain: `neighbour-${i}-${randomUUID().slice(0, 8)}.bench.test` };
    executeLocalSql(
      { dir, persistTo },
      seedPlatform({ ...neighbour, n: size, now, createPlatform: true }).statements,
      `neighbour-${i}-${size}`,
    );
  }
  results.seedSeconds[size] = (Date.now() - started) / 1000;
  log(`seeded in ${results.seedSeconds[size].toFixed(1)} s; timing ${CASES.length} requests`);
  await start();
  for (const [, template] of CASES) {
    const path = template.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(sample[k]));
    const r = await timeCase(service.apiBase, platform.auth, path);
    (results.cases[template] ??= {})[size] = r;
    log(`  ${fmtN(size).padStart(5)} ${r.status === 200 ? `${r.p50.toFixed(1).padStart(8)} ms` : `  status ${r.status}`}  ${template}`);
  }
  // Kept after each size: a later size that fails (a full disk) leaves the earlier figures.
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  await stop();
  if (!opts.keep) rmSync(persistTo, { recursive: true, force: true });
}

const first = SIZES[0];
const last = SIZES.at(-1);
const cell = (r) =>
  !r
    ? ''
    : r.status === 'timeout'
      ? `> ${TIMEOUT} s`
      : r.status !== 200
        ? `error ${r.status}`
        : `${r.p50 < 10 ? r.p50.toFixed(1) : Math.round(r.p50)}`;
const rowsCell = (r) => (r?.rowsRead === undefined ? '' : String(r.rowsRead));
const hasRows = Object.values(results.cases).some((bySize) => bySize[last]?.rowsRead !== undefined);
const header = [
  'request',
  ...SIZES.map((s) => `p50 ms at ${fmtN(s)}`),
  `${fmtN(last)}/${fmtN(first)}`,
  ...(hasRows ? SIZES.map((s) => `rows read at ${fmtN(s)}`) : []),
];
const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
for (const [, template] of CASES) {
  const bySize = results.cases[template];
  const a = bySize[first];
  const b = bySize[last];
  const ratio = a?.status === 200 && b?.status === 200 ? `${(b.p50 / a.p50).toFixed(1)}×` : '';
  lines.push(
    `| \`GET ${template}\` | ${[...SIZES.map((s) => cell(bySize[s])), ratio, ...(hasRows ? SIZES.map((s) => rowsCell(bySize[s])) : [])].join(' | ')} |`,
  );
}
const seedLine = `Seeding (rows per list, this platform and ${NEIGHBOURS} neighbour${NEIGHBOURS === 1 ? '' : 's'}): ${SIZES.map((s) => `to ${fmtN(s)} in ${Math.round(results.seedSeconds[s])} s`).join(', ')}.`;
const table = `${lines.join('\n')}\n\n${seedLine}\n`;
console.log(`\n${table}`);

writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
if (opts.write) {
  const readme = join(root, 'docs', 'engineering', 'performance.md');
  const text = readFileSync(readme, 'utf8');
  const marked = /(<!-- bench-scale:start -->\n)[\s\S]*?(<!-- bench-scale:end -->)/;
  if (!marked.test(text))
    throw new Error('docs/engineering/performance.md has no <!-- bench-scale:start --> … <!-- bench-scale:end --> section');
  writeFileSync(
    readme,
    text.replace(marked, (_, a, b) => `${a}${table}${b}`),
  );
  log('docs/engineering/performance.md table written');
}
