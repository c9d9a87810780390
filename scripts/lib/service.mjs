// Starting the service (and other Workers) on this machine, shared by `npm start` and the benches.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyLocalMigrations } from './local-worker.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const wrangler = join(root, 'node_modules', '.bin', 'wrangler');
export const host = '127.0.0.1';
export const API_VERSION = '2025-10-13';

/** Local-only secrets the Worker needs, with a generator for each. */
export const LOCAL_SECRETS = {
  OPERATOR_TOKEN: () => randomBytes(32).toString('base64url'),
  WALLET_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
  WEBHOOK_SIGNING_KEY: () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
};

/** KEY="value" lines of a .dev.vars file as an object (missing file: empty). */
export function readDevVars(file) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.match(/^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  );
}

/** `vars` plus a fresh value for every local secret it lacks. */
export function withLocalSecrets(vars) {
  const out = { ...vars };
  for (const [k, make] of Object.entries(LOCAL_SECRETS)) if (!out[k]) out[k] = make();
  return out;
}

/** The contents of an env file wrangler reads with `--env-file`. */
export function envFileText(vars) {
  return `${Object.entries(vars)
    .map(([k, v]) => `${k}="${v}"`)
    .join('\n')}\n`;
}

/** A TCP port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One line for the migrations `applied` (their file names, in order) out of the project's. */
export function migrationSummary(applied) {
  const total = readdirSync(join(root, 'migrations')).filter((f) => f.endsWith('.sql')).length;
  if (!applied.length) return `Databases up to date (${total} migrations)`;
  const databases = [...new Set(applied.map((a) => a.split(': ')[0]))];
  const names = [...new Set(applied.map((a) => a.split(': ')[1]))].sort();
  const range = names.length === 1 ? names[0] : `${names[0]} … ${names.at(-1)}`;
  return `Databases ${databases.join(', ')}: applied ${applied.length} migrations (${range}; ${total} in all)`;
}

/**
 * Spawns the local Worker (scripts/serve.mjs: Miniflare straight on the port, see scripts/lib/local-worker.mjs),
 * by default in its own process group (so stopping it stops workerd too). `vars` become `--var` overrides;
 * `envFile` replaces .dev.vars as the source of secrets; `extraArgs` are serve.mjs's own flags.
 */
export function spawnLocalWorker({
  port,
  inspectorPort,
  config,
  persistTo,
  envFile,
  vars = {},
  extraArgs = [],
  stdio = 'inherit',
  cwd = root,
  detached = true,
}) {
  const args = [
    join(root, 'scripts', 'serve.mjs'),
    '--ip',
    host,
    '--port',
    String(port),
    ...(inspectorPort ? ['--inspector-port', String(inspectorPort)] : []),
    ...(config ? ['--config', config] : []),
    ...(persistTo ? ['--persist-to', persistTo] : []),
    ...(envFile ? ['--env-file', envFile] : []),
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
    ...extraArgs,
  ];
  return spawn(process.execPath, args, { cwd, stdio, detached });
}

/** Polls `url` until it answers 2xx; fails when `child` exits or after `seconds`. */
export async function waitForOk(url, child, seconds = 120) {
  for (let i = 0; i < seconds * 2; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the local Worker exited before ${url} answered`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${seconds} s`);
}

/** Stops a child started with `spawnLocalWorker` (its whole process group); SIGKILL after `graceMs`. */
export async function stopChild(child, graceMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  // workerd may outlive wrangler by a moment; make sure nothing of the group is left.
  signal('SIGKILL');
}

/** Synchronous last resort for process 'exit' handlers. */
export function killChildNow(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * A throwaway folder for a benchmark's service: its state and a `.env` of fresh local secrets (mode 600). On
 * exit (or Ctrl-C) the service `current()` returns is killed and the folder removed, unless `keep`.
 */
export function scratchWorkspace(prefix, current, { keep = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const secrets = withLocalSecrets({});
  const envFile = join(dir, '.env');
  writeFileSync(envFile, envFileText(secrets), { mode: 0o600 });
  process.on('exit', () => {
    killChildNow(current()?.child);
    if (!keep) rmSync(dir, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
  return { dir, secrets, envFile };
}

/**
 * Applies local migrations (every home) into `persistTo` and starts the service like `npm start` does.
 * Returns the child and the URLs; the caller stops it with `stopChild(service.child)`. `onSpawn(child)`
 * runs as soon as the process exists, so a caller can stop it even if starting fails or is interrupted.
 */
export async function startService({
  port,
  inspectorPort,
  persistTo,
  envFile,
  vars = {},
  extraArgs = [],
  stdio = 'inherit',
  quietMigrations = false,
  onSpawn,
}) {
  // Every home (DB, DB_2…) of wrangler.toml, as `npm start` migrates them.
  const applied = await applyLocalMigrations({
    config: join(root, 'wrangler.toml'),
    persistTo: persistTo ?? join(root, '.wrangler', 'state'),
  });
  if (!quietMigrations) console.log(migrationSummary(applied));
  const child = spawnLocalWorker({ port, inspectorPort, persistTo, envFile, vars, extraArgs, stdio });
  onSpawn?.(child);
  const origin = `http://${host}:${port}`;
  const prefix = (vars.API_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  const apiBase = `${origin}${prefix ? `/${prefix}` : ''}/${API_VERSION}`;
  try {
    await waitForOk(`${origin}/healthz`, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, origin, apiBase };
}

/** Sandbox defaults: a handful of currencies with sensible limits and embedded wallets turned on. */
export const SANDBOX_PLATFORM = {
  name: 'Local sandbox platform',
  umaDomain: 'sandbox.local.test',
  isRegulatedFinancialInstitution: false,
  supportedCurrencies: ['USD', 'EUR', 'MXN', 'BRL', 'INR'].map((currencyCode) => ({
    currencyCode,
    minAmount: 100,
    maxAmount: 1_000_000_00,
    enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
    requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
  })),
  embeddedWalletConfig: {
    appName: 'Sandbox Wallet',
    sendFromEmailAddress: 'noreply@sandbox.local.test',
    sendFromEmailSenderName: 'Sandbox Wallet',
    replyToEmailAddress: 'support@sandbox.local.test',
  },
};

/**
 * Creates a platform through the operator endpoint (`body.home` picks its data database); returns
 * `{platformId, home, clientId, clientSecret, tokenId, auth}`.
 */
export async function createPlatform(apiBase, operatorToken, body = SANDBOX_PLATFORM) {
  const r = await fetch(`${apiBase}/operator/platforms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operatorToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 201) throw new Error(`creating a platform failed: ${r.status} ${await r.text()}`);
  const created = await r.json();
  const { clientId, clientSecret, id: tokenId } = created.token;
  return {
    platformId: created.platform.id,
    home: created.platform.home,
    clientId,
    clientSecret,
    tokenId,
    auth: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
  };
}

/** The median of a list of numbers (the benches' figure of several runs). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs SQL statements on the local database in `persistTo` (the service stopped), as one file in `dir`: one
 * wrangler start. `name` names the file and the error.
 */
export function executeLocalSql({ dir, persistTo }, statements, name) {
  const file = join(dir, `${name}.sql`);
  writeFileSync(file, `${statements.map((s) => s.trim().replace(/;+$/, '')).join(';\n')};\n`);
  const r = spawnSync(wrangler, ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--file', file, '--yes'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`seeding (${name}) failed:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
  rmSync(file);
}

/**
 * The benches' service: `npm start`'s on `persistTo`, on free ports, quiet, with the request budgets off (one
 * platform drives every request far past them; searches are "expensive" calls). `stdout`: 'ignore' or 'inherit'.
 */
export async function startBenchService({ persistTo, envFile, stdout = 'ignore' }) {
  return startService({
    port: await freePort(),
    inspectorPort: await freePort(),
    persistTo,
    envFile,
    vars: { LOG_LEVEL: 'warn', SERVICE_ENV: 'sandbox', API_PREFIX: '', RATE_LIMITS: 'off' },
    extraArgs: ['--log-level', 'warn'],
    stdio: ['ignore', stdout, 'inherit'],
    quietMigrations: true,
  });
}
