#!/usr/bin/env node
// `npm start`: local secrets, local D1 migrations, the Worker on this machine (scripts/serve.mjs), a ready sandbox
// platform. Quiet: one line for the migrations, then the banner and the Worker's own log; `--verbose` adds each
// migration's name, the runner's own lines and a line per request.
// First: an unsupported Node.js stops here with a clear message, before anything else loads.
import './check-node.mjs';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { applyLocalMigrations } from './lib/local-worker.mjs';
import {
  API_VERSION,
  LOCAL_SECRETS,
  SANDBOX_PLATFORM,
  createPlatform,
  host,
  migrationSummary,
  readDevVars,
  root,
  spawnLocalWorker,
  waitForOk,
} from './lib/service.mjs';

const port = Number(process.env.PORT ?? 8787);
// STATE_DIR: keep the local state, secrets and credentials there instead of .wrangler/state, .dev.vars and
// .sandbox/ (throwaway runs, e.g. the browser suite, leave a developer's own state alone).
const stateDir = process.env.STATE_DIR ? resolve(process.env.STATE_DIR) : undefined;
const devVarsFile = join(stateDir ?? root, '.dev.vars');
const credentialsFile = join(stateDir ?? join(root, '.sandbox'), 'credentials.json');
const persistTo = stateDir ? join(stateDir, 'wrangler') : undefined;

/**
 * Local-only secrets, generated once into the git-ignored .dev.vars (the local Worker reads it), readable by the
 * owner only: a file an earlier start left world-readable is set to 600 too.
 */
function ensureDevVars() {
  const file = devVarsFile;
  mkdirSync(dirname(file), { recursive: true });
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const vars = readDevVars(file);
  const missing = Object.keys(LOCAL_SECRETS).filter((k) => !vars[k]);
  if (missing.length) {
    const lines = missing.map((k) => `${k}="${(vars[k] = LOCAL_SECRETS[k]())}"`);
    writeFileSync(file, `${text && !text.endsWith('\n') ? `${text}\n` : text}${lines.join('\n')}\n`, { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  return vars;
}

// Device codes are redeemable: the Worker's own log lines name them `:code`, and so must wrangler's request log.
const DEVICE_CODE_SEGMENT = /(\/agents\/device-codes\/)[^/\s\x1b]+/gi;
const redactDeviceCodes = (text) => text.replace(DEVICE_CODE_SEGMENT, '$1:code');

/** Copies `from` to `to` whole lines at a time (a code split across chunks is still caught), redacted. */
function pipeRedacted(from, to) {
  let rest = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    if (lines.length) to.write(redactDeviceCodes(`${lines.join('\n')}\n`));
  });
  from.on('end', () => rest && to.write(redactDeviceCodes(rest)));
}

// The sandbox platform lives in the second data database (wrangler.toml's DB_2): its credentials carry that
// home's mark and its queue messages their home, so a developer's own suite goes the way a deployment with many
// databases routes every request.
const SANDBOX_HOME = { ...SANDBOX_PLATFORM, home: 'DB_2' };

async function bootstrap(apiBase, operatorToken) {
  if (existsSync(credentialsFile)) {
    const saved = JSON.parse(readFileSync(credentialsFile, 'utf8'));
    const auth = `Basic ${Buffer.from(`${saved.clientId}:${saved.clientSecret}`).toString('base64')}`;
    const r = await fetch(`${apiBase}/config`, { headers: { Authorization: auth } });
    if (r.ok) return { ...saved, baseUrl: apiBase, reused: true };
    console.warn(`Saved credentials no longer work (HTTP ${r.status}); creating a new sandbox platform.`);
  }
  const created = await createPlatform(apiBase, operatorToken, SANDBOX_HOME).catch((error) => {
    if (!/UMA_DOMAIN_TAKEN/.test(error.message)) throw error;
    // UMA domains are unique: the platform of an earlier start (its credentials deleted) still holds the default.
    return createPlatform(apiBase, operatorToken, {
      ...SANDBOX_HOME,
      umaDomain: `sandbox-${randomBytes(4).toString('hex')}.local.test`,
    });
  });
  const credentials = {
    baseUrl: apiBase,
    clientId: created.clientId,
    clientSecret: created.clientSecret,
    platformId: created.platformId,
  };
  mkdirSync(dirname(credentialsFile), { recursive: true });
  writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(credentialsFile, 0o600);
  return { ...credentials, reused: false };
}

async function main() {
  // `--verbose`: each migration applied, the runner's own lines and a line per request; the other arguments go
  // to scripts/serve.mjs (`--inspector-port N`).
  const args = process.argv.slice(2);
  const verbose = args.includes('--verbose');
  const serveArgs = args.filter((a) => a !== '--verbose');
  const vars = ensureDevVars();
  // One runtime for all pending migrations (wrangler's `d1 migrations apply` prints a table per migration).
  const applied = await applyLocalMigrations({
    config: join(root, 'wrangler.toml'),
    persistTo: persistTo ?? join(root, '.wrangler', 'state'),
  });
  if (verbose) for (const name of applied) console.log(`Applied ${name}`);
  console.log(migrationSummary(applied));
  // Settings given in the shell override wrangler.toml's [vars] for this run. The request budgets are a
  // deployment's (many platforms share it); on one developer's machine they are off unless RATE_LIMITS=on.
  const overrides = {
    RATE_LIMITS: 'off',
    ...Object.fromEntries(
      [
        'SERVICE_ENV',
        'API_PREFIX',
        'LOG_LEVEL',
        'SANDBOX_UMA_DOMAIN',
        'CONSOLE_ENABLED',
        'RATE_LIMITS',
        'RATES_URL',
        'RAIL_URL',
        'IDENTITY_PROVIDER_URL',
        'IDENTITY_PROVIDER_KYC_URL',
      ]
        .filter((k) => process.env[k] !== undefined)
        .map((k) => [k, process.env[k]]),
    ),
  };
  // Same process group as this script: Ctrl-C in the terminal reaches the Worker directly.
  const child = spawnLocalWorker({
    port,
    persistTo,
    envFile: stateDir ? devVarsFile : undefined,
    vars: overrides,
    extraArgs: [...(verbose ? ['--log-requests'] : ['--log-level', 'warn']), '--watch', ...serveArgs],
    detached: false,
    stdio: ['inherit', 'pipe', 'pipe'],
  });
  pipeRedacted(child.stdout, process.stdout);
  pipeRedacted(child.stderr, process.stderr);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  // 'close': after the piped output is drained.
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

  const origin = `http://${host}:${port}`;
  const prefix = (process.env.API_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  const apiBase = `${origin}${prefix ? `/${prefix}` : ''}/${API_VERSION}`;
  await waitForOk(`${origin}/healthz`, child);
  const c = await bootstrap(apiBase, vars.OPERATOR_TOKEN);
  // The fragment signs the console in and is never sent to the server; the page clears it at once.
  const consoleOn = (process.env.SERVICE_ENV ?? 'sandbox') === 'sandbox' || process.env.CONSOLE_ENABLED === 'true';
  const consoleLink = `${origin}/#clientId=${encodeURIComponent(c.clientId)}&clientSecret=${encodeURIComponent(c.clientSecret)}`;
  const budgets = overrides.RATE_LIMITS.trim().toLowerCase() === 'off' ? 'off (RATE_LIMITS=on npm start turns them on)' : 'on';
  console.log(`
  Payments platform API (${(process.env.SERVICE_ENV ?? 'sandbox') === 'sandbox' ? 'sandbox' : 'production rules'}) is ready${c.reused ? ' (reusing the saved platform)' : ''}
    baseUrl       ${c.baseUrl}
    platformId    ${c.platformId}
    clientId      ${c.clientId}
    clientSecret  ${c.clientSecret}
  Saved to ${stateDir ? credentialsFile : relative(root, credentialsFile)}. Try:
    curl -u ${c.clientId}:${c.clientSecret} ${c.baseUrl}/config
${consoleOn ? `  Console (signed in):\n    ${consoleLink}\n` : ''}  Request budgets ${budgets}. The cron sweep runs every minute; now: curl ${origin}/cdn-cgi/handler/scheduled
  Full log: npm start -- --verbose
`);
}

main().catch((error) => {
  // A message for the project's own errors; the stack for a failed assertion inside a library, which says nothing else.
  console.error(error?.code === 'ERR_ASSERTION' ? error.stack : (error.message ?? error));
  process.exit(1);
});
