#!/usr/bin/env node
// `npm start`: local secrets, local D1 migrations, `wrangler dev`, and a ready sandbox platform.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.PORT ?? 8787);
const host = '127.0.0.1';
const wrangler = join(root, 'node_modules', '.bin', 'wrangler');
const credentialsFile = join(root, '.sandbox', 'credentials.json');

/** Local-only secrets, generated once into the git-ignored .dev.vars (wrangler dev reads it). */
const LOCAL_SECRETS = {
  OPERATOR_TOKEN: () => randomBytes(32).toString('base64url'),
  WALLET_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
  WEBHOOK_SIGNING_KEY: () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
};

function ensureDevVars() {
  const file = join(root, '.dev.vars');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const vars = Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.match(/^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/))
      .filter(Boolean)
      .map((m) => [m[1], m[2]]),
  );
  const missing = Object.keys(LOCAL_SECRETS).filter((k) => !vars[k]);
  if (missing.length) {
    const lines = missing.map((k) => `${k}="${(vars[k] = LOCAL_SECRETS[k]())}"`);
    writeFileSync(file, `${text && !text.endsWith('\n') ? `${text}\n` : text}${lines.join('\n')}\n`);
  }
  return vars;
}

function run(args) {
  const r = spawnSync(wrangler, args, { cwd: root, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed (${r.status})`);
}

async function waitForHealth(base, child) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error('wrangler dev exited');
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the server did not become healthy in 120 s');
}

/** Sandbox defaults: a handful of currencies with sensible limits and embedded wallets turned on. */
const SANDBOX_PLATFORM = {
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

async function bootstrap(apiBase, operatorToken) {
  if (existsSync(credentialsFile)) {
    const saved = JSON.parse(readFileSync(credentialsFile, 'utf8'));
    const auth = `Basic ${Buffer.from(`${saved.clientId}:${saved.clientSecret}`).toString('base64')}`;
    const r = await fetch(`${apiBase}/config`, { headers: { Authorization: auth } });
    if (r.ok) return { ...saved, baseUrl: apiBase, reused: true };
    console.warn(`Saved credentials no longer work (HTTP ${r.status}); creating a new sandbox platform.`);
  }
  const r = await fetch(`${apiBase}/operator/platforms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operatorToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(SANDBOX_PLATFORM),
  });
  if (r.status !== 201) throw new Error(`creating the sandbox platform failed: ${r.status} ${await r.text()}`);
  const created = await r.json();
  const credentials = {
    baseUrl: apiBase,
    clientId: created.token.clientId,
    clientSecret: created.token.clientSecret,
    platformId: created.platform.id,
  };
  mkdirSync(dirname(credentialsFile), { recursive: true });
  writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return { ...credentials, reused: false };
}

async function main() {
  const vars = ensureDevVars();
  run(['d1', 'migrations', 'apply', 'DB', '--local']);
  // Settings given in the shell override wrangler.toml's [vars] for this run.
  const overrides = ['SERVICE_ENV', 'API_PREFIX', 'LOG_LEVEL', 'SANDBOX_UMA_DOMAIN']
    .filter((k) => process.env[k] !== undefined)
    .flatMap((k) => ['--var', `${k}:${process.env[k]}`]);
  const child = spawn(
    wrangler,
    ['dev', '--ip', host, '--port', String(port), '--local', '--show-interactive-dev-session=false', ...overrides, ...process.argv.slice(2)],
    { cwd: root, stdio: 'inherit', env: process.env },
  );
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

  const origin = `http://${host}:${port}`;
  const prefix = (process.env.API_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  const apiBase = `${origin}${prefix ? `/${prefix}` : ''}/2025-10-13`;
  await waitForHealth(origin, child);
  const c = await bootstrap(apiBase, vars.OPERATOR_TOKEN);
  console.log(`
  Payments platform API (sandbox) is ready${c.reused ? ' (reusing the saved platform)' : ''}
    baseUrl       ${c.baseUrl}
    platformId    ${c.platformId}
    clientId      ${c.clientId}
    clientSecret  ${c.clientSecret}
  Saved to .sandbox/credentials.json. Try:
    curl -u ${c.clientId}:${c.clientSecret} ${c.baseUrl}/config
`);
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
