#!/usr/bin/env node
// `npm run neighbours`: how much one platform's flood slows another platform. Starts the service on
// throwaway state (loopback only), makes platform A (the flooder, seeded with customers so a search scans
// something) and platform B, then measures B's `GET /config` one request at a time:
//   1. alone (B calls ten times a second at most, one call at a time);
//   2. while A uploads bulk imports in parallel and runs parallel searches for a while, and until all of A's
//      imports have been accepted and have finished (or NEIGHBOURS_SETTLE_S after the searches stop).
// A backs off like a client generated from the OpenAPI: after a 429 it waits the Retry-After before its next
// call on that connection, and sends a refused upload again. Prints a table. Knobs (env): NEIGHBOURS_ALONE_S (10), NEIGHBOURS_FLOOD_S (20),
// NEIGHBOURS_SETTLE_S (60), NEIGHBOURS_IMPORTS (10), NEIGHBOURS_ROWS (20000 per import), NEIGHBOURS_SEARCHES
// (16 parallel), NEIGHBOURS_SEED_ROWS (20000), NEIGHBOURS_RATE_LIMITS (`off` runs without the request budgets).
import { join } from 'node:path';
import { createPlatform, freePort, scratchWorkspace, startService, stopChild } from './lib/service.mjs';

const num = (name, dflt) => Number(process.env[name] ?? dflt);
const ALONE_S = num('NEIGHBOURS_ALONE_S', 10);
const FLOOD_S = num('NEIGHBOURS_FLOOD_S', 20);
const SETTLE_S = num('NEIGHBOURS_SETTLE_S', 60);
const IMPORTS = num('NEIGHBOURS_IMPORTS', 10);
const ROWS = num('NEIGHBOURS_ROWS', 20_000);
const SEARCHES = num('NEIGHBOURS_SEARCHES', 16);
const SEED_ROWS = num('NEIGHBOURS_SEED_ROWS', 20_000);

let service;
const { dir, secrets, envFile } = scratchWorkspace('neighbours', () => service);

const t0 = Date.now();
const log = (msg) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s  ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email';
function csv(domain, prefix, n) {
  const lines = [HEADER];
  for (let i = 0; i < n; i++) {
    lines.push(
      `$${prefix}${i}@${domain},${prefix}${i},INDIVIDUAL,Jane Doe ${i},1990-01-15,1 Main St,Austin,TX,78701,US,${prefix}${i}@example.com`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function client(apiBase, auth) {
  return async (method, path, { body, form } = {}) => {
    const started = performance.now();
    const res = await fetch(`${apiBase}${path}`, { method, headers: { Authorization: auth }, body: form ?? body });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - started, retryAfter: Number(res.headers.get('Retry-After') ?? 0), text };
  };
}

function csvForm(text) {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/csv' }), 'customers.csv');
  return form;
}

/** Uploads and waits for the job to end; retries an upload refused with 429 after its Retry-After. */
async function importAndWait(call, text) {
  for (;;) {
    const res = await call('POST', '/customers/bulk/csv', { form: csvForm(text) });
    if (res.status === 429) {
      await sleep(res.retryAfter * 1000);
      continue;
    }
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${res.text}`);
    return waitForJob(call, JSON.parse(res.text).jobId, 600);
  }
}

async function waitForJob(call, jobId, seconds) {
  for (let i = 0; i < seconds * 2; i++) {
    const res = await call('GET', `/customers/bulk/jobs/${jobId}`);
    const job = res.status === 200 ? JSON.parse(res.text) : null;
    if (job && (job.status === 'COMPLETED' || job.status === 'FAILED')) return job;
    await sleep(res.status === 429 ? res.retryAfter * 1000 : 500);
  }
  return null;
}

/** B's `GET /config`, one at a time, ten a second at most (well inside B's budget), until `until()` says stop. */
async function probe(call, until) {
  const ms = [];
  const statuses = {};
  while (!until()) {
    const next = Date.now() + 100;
    const res = await call('GET', '/config');
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 200) ms.push(res.ms);
    await sleep(next - Date.now());
  }
  return { ms, statuses };
}

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function main() {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const vars = { LOG_LEVEL: 'warn', ...(process.env.NEIGHBOURS_RATE_LIMITS ? { RATE_LIMITS: process.env.NEIGHBOURS_RATE_LIMITS } : {}) };
  log(`starting the service (${JSON.stringify(vars)})`);
  service = await startService({
    port,
    inspectorPort,
    persistTo: join(dir, 'state'),
    envFile,
    vars,
    extraArgs: ['--log-level', 'warn'],
    stdio: 'ignore',
    quietMigrations: true,
  });
  // Both in one data database: what they share is its one writer (on two databases they would share nothing).
  const body = (name) => ({
    name,
    home: 'DB',
    umaDomain: `${name.toLowerCase()}.neighbours.test`,
    isRegulatedFinancialInstitution: false,
    supportedCurrencies: [
      { currencyCode: 'USD', minAmount: 1, maxAmount: 100_000_000, enabledTransactionTypes: ['OUTGOING'], requiredCounterpartyFields: [] },
    ],
  });
  const a = await createPlatform(service.apiBase, secrets.OPERATOR_TOKEN, body('FloodA'));
  const b = await createPlatform(service.apiBase, secrets.OPERATOR_TOKEN, body('QuietB'));
  const callA = client(service.apiBase, a.auth);
  const callB = client(service.apiBase, b.auth);
  const domainA = 'flooda.neighbours.test';

  if (SEED_ROWS > 0) {
    log(`seeding A with ${SEED_ROWS} customers`);
    const seeded = await importAndWait(callA, csv(domainA, 'seed', SEED_ROWS));
    log(`seeded: ${seeded?.status} ${JSON.stringify(seeded?.progress)}`);
  }
  const files = Array.from({ length: IMPORTS }, (_, i) => csv(domainA, `f${i}-`, ROWS));

  log(`B alone for ${ALONE_S} s`);
  let end = Date.now() + ALONE_S * 1000;
  const alone = await probe(callB, () => Date.now() > end);

  log(`A floods: ${IMPORTS} parallel imports of ${ROWS} rows, ${SEARCHES} parallel searches for ${FLOOD_S} s`);
  const floodEnd = Date.now() + FLOOD_S * 1000;
  const tally = { uploads: {}, searches: {} };
  const count = (kind, status) => (tally[kind][status] = (tally[kind][status] ?? 0) + 1);
  const accepted = [];
  const settleBy = floodEnd + SETTLE_S * 1000;
  // A wants every import in: a refused upload is sent again after its Retry-After (until the settle time).
  const uploads = files.map(async (text) => {
    while (Date.now() < settleBy) {
      const res = await callA('POST', '/customers/bulk/csv', { form: csvForm(text) });
      count('uploads', res.status);
      if (res.status === 202) return void accepted.push(JSON.parse(res.text).jobId);
      await sleep(res.retryAfter * 1000 || 1000);
    }
  });
  const searches = Array.from({ length: SEARCHES }, async (_, i) => {
    while (Date.now() < floodEnd) {
      const res = await callA('GET', `/customers?search=${encodeURIComponent(`zz${i}`)}&limit=20`);
      count('searches', res.status);
      if (res.status === 429) await sleep(Math.min(res.retryAfter * 1000, Math.max(0, floodEnd - Date.now())));
    }
  });
  let importsDone = false;
  const settled = (async () => {
    await Promise.all([...uploads, ...searches]);
    for (const id of accepted) await waitForJob(callA, id, Math.max(1, (settleBy - Date.now()) / 1000));
    importsDone = true;
  })();
  const flood = await probe(callB, () => importsDone);
  await settled;
  let imported = 0;
  for (const id of accepted) {
    const res = await callA('GET', `/customers/bulk/jobs/${id}`);
    if (res.status === 200) imported += JSON.parse(res.text).progress.processed;
  }
  const floodSeconds = (Date.now() - floodEnd) / 1000 + FLOOD_S;
  log(
    `flood over after ${floodSeconds.toFixed(0)} s (searches, uploads and the imports' processing); ${accepted.length} of ${IMPORTS} imports in`,
  );

  const row = (name, r, extra) =>
    `| ${name} | ${r.ms.length} | ${pct(r.ms, 50).toFixed(0)} | ${pct(r.ms, 95).toFixed(0)} | ${Object.entries(r.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')} | ${extra} |`;
  const fmt = (t) =>
    Object.entries(t)
      .map(([s, n]) => `${n}× ${s}`)
      .join(', ') || '–';
  console.log(`
| B's GET /config | requests | p50 ms | p95 ms | B's statuses | A's calls |
|---|---|---|---|---|---|
${row('alone', alone, '–')}
${row(`A flooding (${floodSeconds.toFixed(0)} s)`, flood, `uploads ${fmt(tally.uploads)}; searches ${fmt(tally.searches)}; ${imported} of ${IMPORTS * ROWS} rows imported`)}
`);
  await stopChild(service.child);
}

main().catch(async (error) => {
  console.error(error.stack ?? error);
  await stopChild(service?.child);
  process.exit(1);
});
