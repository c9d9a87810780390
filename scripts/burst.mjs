#!/usr/bin/env node
// `npm run burst`: a platform's own integration suite against a fresh `npm start`, as fast as it is written. Starts
// `npm start` exactly as a developer does (its own port and throwaway STATE_DIR; nothing configured, so the request
// budgets are off as they are locally), loads the machine (BURST_LOAD busy processes, default one per core), then:
//   1. a suite of 300 requests in bursts of 40 parallel ones (customers, accounts, funding, bank accounts, quotes
//      and their execution, transfers, searches of every length, clock advances, the SDK's config read-then-update);
//   2. 100 parallel writes on one account (POST /transfer-out, funded for three of them).
// Fails on any 429 or 5xx, or on money that does not add up; prints each phase's time (noisy: the machine is
// loaded on purpose). Knobs (env): BURST_LOAD (processes), BURST_KEEP (keep the state directory).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, median, root } from './lib/service.mjs';

const LOAD = Number(process.env.BURST_LOAD ?? availableParallelism());
const BURST = 40;
const SUITE = 300;
const WRITES = 100;

const stateDir = mkdtempSync(join(tmpdir(), 'burst-'));
const t0 = Date.now();
const log = (msg) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s  ${msg}`);
const children = [];
const killAll = () => {
  for (const c of children) {
    try {
      process.kill(c.detached ? -c.pid : c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};
process.on('exit', () => {
  killAll();
  if (!process.env.BURST_KEEP) rmSync(stateDir, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

/** `npm start` in its own process group, as a developer runs it. */
async function npmStart() {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const out = [];
  const child = spawn('npm', ['start', '--', '--inspector-port', String(inspectorPort)], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), STATE_DIR: stateDir },
  });
  children.push(Object.assign(child, { detached: true }));
  child.stdout.on('data', (d) => out.push(String(d)));
  child.stderr.on('data', (d) => out.push(String(d)));
  const file = join(stateDir, 'credentials.json');
  for (let i = 0; i < 480 && !existsSync(file); i++) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${out.join('')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!existsSync(file)) throw new Error(`npm start gave no credentials within 240 s:\n${out.join('')}`);
  return { ...JSON.parse(readFileSync(file, 'utf8')), output: out };
}

/** Busy processes that keep the machine's cores loaded while the requests run. */
function loadMachine(n) {
  for (let i = 0; i < n; i++) children.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

const statuses = new Map();
const problems = [];
function client({ baseUrl, clientId, clientSecret }) {
  const auth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const key = `${method} ${path.replace(/[A-Za-z]+:[0-9a-f-]{36}/g, '{id}').replace(/\?.*/, '')} ${res.status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    if (res.status === 429 || res.status >= 500) problems.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, body: text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text };
  };
}

const person = (i) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: `burst-${i}`,
  fullName: ['Wei Wu', 'Li Na', 'Kim Ng', 'Jane Smith'][i % 4],
  email: `c${i}@burst.test`,
});
const bank = (customerId, i) => ({
  customerId,
  currency: 'USD',
  accountInfo: {
    accountType: 'USD_ACCOUNT',
    accountNumber: `${String(10_000_000 + i)}789`,
    routingNumber: '021000021',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Burst Test' },
  },
});

/** The suite: bursts of BURST requests, each burst built from what the earlier ones answered. */
async function suite(api) {
  const c = [];
  const bursts = [
    async () =>
      (await Promise.all(Array.from({ length: BURST }, (_, i) => api('POST', '/customers', person(i))))).forEach((r) =>
        c.push({ id: r.body.id }),
      ),
    async () =>
      Promise.all(
        c.map(async (x) => {
          const r = await api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(x.id)}&currency=USD&type=INTERNAL_FIAT`);
          x.usd = r.body.data?.[0]?.id;
        }),
      ),
    async () => Promise.all(c.map((x) => api('POST', `/sandbox/internal-accounts/${x.usd}/fund`, { amount: 10_000 }))),
    async () =>
      Promise.all(
        c.map(async (x, i) => {
          x.bank = (await api('POST', '/customers/external-accounts', bank(x.id, i))).body.id;
        }),
      ),
    async () =>
      Promise.all(
        c.map(async (x) => {
          const r = await api('POST', '/quotes', {
            source: { sourceType: 'ACCOUNT', accountId: x.usd },
            destination: { destinationType: 'ACCOUNT', accountId: x.bank },
            lockedCurrencySide: 'SENDING',
            lockedCurrencyAmount: 1_000,
          });
          x.quote = r.body.id;
        }),
      ),
    async () =>
      Promise.all([
        ...c.slice(0, 20).map((x) => api('POST', `/quotes/${x.quote}/execute`)),
        ...['Wu', 'Li', 'Ng', 'X', 'smith', 'burst-1', 'c3@', 'nobody', 'W', 'Jane'].map((t) =>
          api('GET', `/customers?search=${encodeURIComponent(t)}`),
        ),
        ...Array.from({ length: 5 }, () => api('POST', '/sandbox/clock/advance', { seconds: 60 })),
        ...Array.from({ length: 5 }, () => api('GET', '/config')),
      ]),
    async () =>
      Promise.all(
        c.map((x) => api('POST', '/transfer-out', { source: { accountId: x.usd }, destination: { accountId: x.bank }, amount: 500 })),
      ),
    async () =>
      Promise.all([
        ...c.slice(0, 16).map((x) => api('GET', `/transactions?customerId=${encodeURIComponent(x.id)}`)),
        // The SDK's read-then-update: config.update({ supportedCurrencies: (await config.retrieve()).supportedCurrencies }).
        (async () => {
          const read = await api('GET', '/config');
          const res = await api('PATCH', '/config', { supportedCurrencies: read.body.supportedCurrencies });
          if (res.status !== 200) problems.push(`the read-then-update of /config answered ${res.status}: ${JSON.stringify(res.body)}`);
        })(),
        api('GET', '/sandbox/clock'),
        api('GET', '/customers?limit=100'),
      ]),
  ];
  const times = [];
  for (const burst of bursts) {
    const started = Date.now();
    await burst();
    times.push(Date.now() - started);
  }
  return times;
}

/** WRITES parallel transfer-outs of 100 on one account funded for three: exactly three pass, the rest are refused. */
async function parallelWrites(api) {
  const customer = (await api('POST', '/customers', person(WRITES))).body;
  const usd = (
    await api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&currency=USD&type=INTERNAL_FIAT`)
  ).body.data[0].id;
  await api('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: 300 });
  const ext = (await api('POST', '/customers/external-accounts', bank(customer.id, WRITES))).body.id;
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: WRITES }, () =>
      api('POST', '/transfer-out', { source: { accountId: usd }, destination: { accountId: ext }, amount: 100 }),
    ),
  );
  const ms = Date.now() - started;
  const ok = answers.filter((a) => a.status === 201).length;
  const balance = (
    await api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&currency=USD&type=INTERNAL_FIAT`)
  ).body.data[0].balance.amount;
  if (ok !== 3 || balance !== 0) problems.push(`parallel writes: ${ok} transfers of 100 from 300, balance left ${balance}`);
  return { ms, ok };
}

let service;
async function main() {
  log(`npm start on a fresh state (${stateDir})`);
  service = await npmStart();
  const api = client(service);
  log(`loading the machine with ${LOAD} busy process(es)`);
  loadMachine(LOAD);
  const times = await suite(api);
  const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
  log(`suite: ${sent} requests in ${times.length} bursts of up to ${BURST}; burst times ms ${times.join(', ')} (median ${median(times)})`);
  const writes = await parallelWrites(api);
  log(`${WRITES} parallel transfer-outs on one account: ${writes.ok} accepted, the rest refused, in ${writes.ms} ms`);
  killAll();
  console.log([...statuses].map(([k, n]) => `  ${String(n).padStart(4)}  ${k}`).join('\n'));
  if (sent < SUITE) problems.push(`the suite sent ${sent} requests, fewer than ${SUITE}`);
  if (problems.length) {
    console.error(`FAILED:\n${problems.slice(0, 20).join('\n')}`);
    process.exit(1);
  }
  console.log('burst passed: no 429, no 5xx');
  process.exit(0);
}

main().catch((error) => {
  if (service) console.error(`npm start's output:\n${service.output.join('').slice(-4000)}`);
  console.error(error.stack ?? error, error.cause ?? '');
  process.exit(1);
});
