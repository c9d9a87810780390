#!/usr/bin/env node
// `npm run storage`: bytes per customer and per payment in D1, every table and index. Starts the service on
// throwaway state (like `npm run neighbours`), makes STORAGE_CUSTOMERS customers (each with its internal
// accounts, one external USD account and a funding), then STORAGE_PAYMENTS quote payments through the HTTP API
// (a quote from the customer's USD account to its external account, executed, then completed by a sandbox
// clock advance), then STORAGE_TRANSFERS transfer-outs (same accounts, under an Idempotency-Key), and reads the
// local SQLite file's pages per table and index (`dbstat`, sqlite3 CLI) before and after each step: a quote
// payment and a transfer-out are measured apart. Prints the table; `--write` puts it into
// docs/engineering/storage-and-capacity.md between its storage markers.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPlatform, freePort, root, scratchWorkspace, startService, stopChild } from './lib/service.mjs';

const CUSTOMERS = Number(process.env.STORAGE_CUSTOMERS ?? 200);
const PAYMENTS = Number(process.env.STORAGE_PAYMENTS ?? 2000);
const TRANSFERS = Number(process.env.STORAGE_TRANSFERS ?? 2000);
const PARALLEL = 4;
/** Rows the service deletes on its own: webhook logs after WEBHOOK_RETENTION_DAYS, applied transitions after 7 days, idempotency keys after a day. */
const PURGED = new Set(['webhook_deliveries', 'webhook_events', 'idempotency_keys', 'due_transitions']);
const GB10 = 10 * 1024 ** 3;

let service;
// STORAGE_KEEP=1 leaves the state (and prints its SQLite file) to read the rows themselves.
const { dir, secrets, envFile } = scratchWorkspace('storage', () => service, { keep: process.env.STORAGE_KEEP === '1' });

/** The local D1 file that holds the platform (each data database is a file of its own). */
function sqliteFile(base, platformId) {
  for (const name of readdirSync(base, { recursive: true })) {
    const path = join(base, String(name));
    if (!path.endsWith('.sqlite') || statSync(path).size === 0 || !path.includes('d1')) continue;
    const q = `SELECT count(*) FROM platforms WHERE id = '${platformId.replace(/'/g, "''")}'`;
    const run = spawnSync('sqlite3', ['-readonly', '-cmd', 'PRAGMA writable_schema = ON', path, q], { encoding: 'utf8' });
    if (run.status === 0 && run.stdout.trim() === '1') return path;
  }
  throw new Error(`no D1 SQLite file under ${base} holds ${platformId}`);
}

/** Bytes per table (its indexes included) and per index, from the file's pages. */
function pages(file) {
  const q = `SELECT d.name, coalesce(m.tbl_name, d.name), m.type, sum(d.pgsize) FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY d.name`;
  const run = spawnSync('sqlite3', ['-readonly', '-separator', '\t', '-cmd', 'PRAGMA writable_schema = ON', file, q], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`sqlite3: ${run.stderr}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [name, table, type, bytes] = line.split('\t');
      return { name, table, index: type !== 'table', bytes: Number(bytes) };
    });
}

const diff = (after, before) => {
  const was = new Map(before.map((r) => [r.name, r.bytes]));
  return after.map((r) => ({ ...r, bytes: r.bytes - (was.get(r.name) ?? 0) })).filter((r) => r.bytes !== 0);
};

async function main() {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const persistTo = join(dir, 'state');
  service = await startService({
    port,
    inspectorPort,
    persistTo,
    envFile,
    vars: { LOG_LEVEL: 'warn', RATE_LIMITS: 'off' },
    extraArgs: ['--log-level', 'warn'],
    stdio: 'ignore',
    quietMigrations: true,
  });
  const { apiBase } = service;
  const p = await createPlatform(apiBase, secrets.OPERATOR_TOKEN);
  const call = async (method, path, body, headers = {}) => {
    const res = await fetch(`${apiBase}${path}`, {
      method,
      headers: { Authorization: p.auth, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const inParallel = async (n, f) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < n) await f(next++);
      }),
    );
  };
  const file = sqliteFile(persistTo, p.platformId);
  if (process.env.STORAGE_KEEP === '1') console.error(`state kept: ${file}`);
  const s0 = pages(file);

  const address = { line1: '123 Main Street', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };
  const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', birthDate: '1990-01-15', nationality: 'US', address };
  const customers = [];
  await inParallel(CUSTOMERS, async (i) => {
    const c = await call('POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `storage-${i}`,
      fullName: `Jane Smith ${i}`,
      birthDate: '1990-01-15',
      nationality: 'US',
      email: `jane.${i}@example.com`,
      address,
    });
    const accounts = await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(c.id)}&limit=100`);
    const usd = accounts.data.find((a) => a.type !== 'EMBEDDED_WALLET' && a.balance.currency.code === 'USD').id;
    const accountNumber = `${String(100_000_000 + i)}321`;
    const ext = await call('POST', '/customers/external-accounts', {
      customerId: c.id,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person },
    });
    await call('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: 1_000_000_00 });
    customers[i] = { usd, ext: ext.id };
  });
  const s1 = pages(file);

  await inParallel(PAYMENTS, async (i) => {
    const c = customers[i % CUSTOMERS];
    const quote = await call('POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: c.usd },
      destination: { destinationType: 'ACCOUNT', accountId: c.ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000 + i,
      description: `Invoice ${i}`,
    });
    await call('POST', `/quotes/${quote.id}/execute`, undefined, { 'Idempotency-Key': `storage-${i}` });
  });
  // Every delayed outcome is due a day later: the advance applies them (and their events).
  for (let i = 0; i < 40; i++) {
    const r = await call('POST', '/sandbox/clock/advance', { seconds: i === 0 ? 86_400 : 1 });
    if (r.appliedTransitions === 0) break;
  }
  const s2 = pages(file);

  await inParallel(TRANSFERS, async (i) => {
    const c = customers[i % CUSTOMERS];
    const body = { source: { accountId: c.usd }, destination: { accountId: c.ext }, amount: 10_000 + i };
    await call('POST', '/transfer-out', body, { 'Idempotency-Key': `storage-transfer-${i}` });
  });
  const s3 = pages(file);
  await stopChild(service.child);

  // Each step's bytes per item: a customer, a quote payment, a transfer-out.
  const steps = [
    { name: 'customer', n: CUSTOMERS, rows: diff(s1, s0) },
    { name: 'quote payment', n: PAYMENTS, rows: diff(s2, s1) },
    { name: 'transfer-out', n: TRANSFERS, rows: diff(s3, s2) },
  ].filter((step) => step.n > 0);
  const tables = [...new Set(steps.flatMap((step) => step.rows.map((r) => r.table)))].sort();
  const sum = (rows, table, index) => rows.filter((r) => r.table === table && r.index === index).reduce((n, r) => n + r.bytes, 0);
  const lines = [
    `Measured by \`npm run storage\` (${steps.map((step) => `${step.n} ${step.name}s`).join(', ')}; bytes of SQLite pages, \`dbstat\`):`,
    '',
    `| table | ${steps.map((step) => `per ${step.name}: rows | + indexes`).join(' | ')} |`,
    `|---|${steps.map(() => '---:|---:').join('|')}|`,
  ];
  for (const t of tables) {
    const cells = steps.flatMap((step) => [sum(step.rows, t, false) / step.n, sum(step.rows, t, true) / step.n]);
    if (cells.every((n) => Math.abs(n) < 1)) continue;
    lines.push(`| \`${t}\`${PURGED.has(t) ? ' (purged)' : ''} | ${cells.map((n) => n.toFixed(0)).join(' | ')} |`);
  }
  const total = (rows, keep = () => true) => rows.filter((r) => keep(r.table)).reduce((n, r) => n + r.bytes, 0);
  const bytes = steps.map((step) => ({
    ...step,
    within: total(step.rows) / step.n,
    kept: total(step.rows, (t) => !PURGED.has(t)) / step.n,
  }));
  const customerBytes = bytes.find((b) => b.name === 'customer')?.kept ?? 0;
  const millions = (per) => (GB10 / per / 1e6).toFixed(2);
  lines.push(`| **total** | ${bytes.map((b) => `${b.within.toFixed(0)} (${b.kept.toFixed(0)} kept after retention) |`).join(' | ')}`, '');
  for (const b of bytes.filter((b) => b.name !== 'customer')) {
    lines.push(
      `- ${b.name}: ${b.kept.toFixed(0)} bytes kept after the retention window (${b.within.toFixed(0)} within it); in 10 GB ` +
        `${millions(b.kept)} million after retention (${millions(b.within)} million within it), ` +
        `${millions(b.kept + customerBytes / 10)} million at 10 per customer.`,
    );
  }
  const table = lines.join('\n');
  console.log(table);
  if (process.argv.includes('--write')) {
    const readme = join(root, 'docs', 'engineering', 'storage-and-capacity.md');
    const text = readFileSync(readme, 'utf8');
    const [start, end] = ['<!-- storage:start -->', '<!-- storage:end -->'];
    const [before, rest] = text.split(start);
    if (rest === undefined || !rest.includes(end))
      throw new Error(`docs/engineering/storage-and-capacity.md has no ${start} ... ${end} section`);
    writeFileSync(readme, `${before}${start}\n${table}\n${end}${rest.slice(rest.indexOf(end) + end.length)}`);
    console.error('docs/engineering/storage-and-capacity.md updated.');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
