// The browser suite's harness: `npm start` on a free port and throwaway state (STATE_DIR), Debian's
// Chromium driven by playwright-core, and small helpers for the API and the pages.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The console's screenshots (docs/sandbox.md); a run rewrites them only with UPDATE_SCREENSHOTS=1 (else they go to a temporary folder). */
export const screenshotDir =
  process.env.UPDATE_SCREENSHOTS === '1' ? join(root, 'test', 'browser', 'screenshots') : join(tmpdir(), 'browser-suite-screenshots');
export const CHROMIUM = '/usr/bin/chromium';
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** Where the last run's `npm start` output is kept. */
export const lastLog = join(tmpdir(), 'browser-suite-npm-start.log');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A page's waits: generous, since `wrangler dev` on a loaded 2-core machine has taken 15 s to serve one file. */
const TIMEOUT_MS = 30_000;

/** A TCP port nobody listens on right now. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Starts `npm start` in its own process group on a free port, with STATE_DIR set to a fresh temporary
 * directory (so .wrangler/state, .dev.vars and .sandbox/credentials.json are not touched), and waits for
 * the credentials it saves. Returns `{origin, baseUrl, clientId, clientSecret, stop}`; `stop()` ends the
 * whole process group (npm, node, wrangler, workerd) and deletes the state.
 */
export async function startService({ timeoutMs = 180_000 } = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'browser-suite-'));
  const logFile = join(stateDir, 'npm-start.log');
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const out = openSync(logFile, 'a');
  const child = spawn('npm', ['start', '--', '--inspector-port', String(inspectorPort)], {
    cwd: root,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, PORT: String(port), STATE_DIR: stateDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  });
  const exited = new Promise((r) => child.once('exit', r));
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  // Last resort if the test process ends without calling stop().
  const onExit = () => {
    killGroup('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  // Ctrl-C reaches this process, not the service's own process group: pass it on.
  const onSignal = () => process.exit(130);
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, onSignal);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    // workerd may outlive npm by a moment: nothing of the group is left.
    killGroup('SIGKILL');
    process.removeListener('exit', onExit);
    for (const sig of ['SIGINT', 'SIGTERM']) process.removeListener(sig, onSignal);
    // The server's output outlives its state, for a look after a failure.
    if (existsSync(logFile)) copyFileSync(logFile, lastLog);
    rmSync(stateDir, { recursive: true, force: true });
  };
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-4000) : '');
  try {
    const credentialsFile = join(stateDir, 'credentials.json');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`npm start exited (${child.exitCode ?? child.signalCode}):\n${log()}`);
      if (existsSync(credentialsFile)) {
        try {
          const credentials = JSON.parse(readFileSync(credentialsFile, 'utf8'));
          const origin = new URL(credentials.baseUrl).origin;
          if ((await fetch(`${origin}/healthz`)).ok) return { ...credentials, origin, stateDir, stop, log };
        } catch {
          // half-written file or not answering yet
        }
      }
      if (Date.now() > deadline) throw new Error(`npm start gave no credentials within ${timeoutMs / 1000} s:\n${log()}`);
      await sleep(250);
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Debian's Chromium, headless, with nothing reaching outside the machine. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the browser suite drives Debian's Chromium. Install it with \`apt-get install chromium\`.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** This test file's browser, `npm start` and API client, set by `useSuite()`'s before hook (live bindings). */
export let browser;
export let service;
export let call;
/** Every context `openPage` made: whatever a test left open is closed after the file. */
const contexts = [];

/** Starts the browser, then the service, before the file's tests, and stops all of it after them. */
export function useSuite() {
  before(
    async () => {
      // Fail at once, with the fix, when the browser is missing (before spending time on the service).
      browser = await launchBrowser();
      service = await startService();
      call = apiClient(service);
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await Promise.allSettled(contexts.map((c) => c.close()));
    await browser?.close().catch(() => {});
    await service?.stop();
  });
}

/**
 * A fresh browser context and page that records what the suite forbids: a request to another origin
 * than the service's, a console error, an uncaught page error. `checkClean()` fails on any of them,
 * except console errors matching one of `allowConsole` (regular expressions).
 */
export async function openPage(browser, origin, { viewport = DESKTOP } = {}) {
  const context = await browser.newContext({ viewport, baseURL: origin });
  const problems = { foreign: [], console: [], page: [] };
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (['data:', 'blob:', 'about:'].includes(url.protocol)) return;
    if (url.origin !== origin) problems.foreign.push(`${request.method()} ${request.url()}`);
  });
  const watch = (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.console.push(`${m.text()} (${m.location().url ?? ''})`);
    });
    page.on('pageerror', (e) => problems.page.push(String(e?.stack ?? e)));
  };
  context.on('page', watch);
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT_MS);
  contexts.push(context);
  return {
    context,
    page,
    problems,
    /** A second tab in the same context, watched the same way. */
    async newTab() {
      const tab = await context.newPage();
      tab.setDefaultTimeout(TIMEOUT_MS);
      return tab;
    },
    checkClean({ allowConsole = [] } = {}) {
      const consoleErrors = problems.console.filter((t) => !allowConsole.some((re) => re.test(t)));
      const lines = [
        ...problems.foreign.map((t) => `request to another origin: ${t}`),
        ...consoleErrors.map((t) => `console error: ${t}`),
        ...problems.page.map((t) => `page error: ${t}`),
      ];
      if (lines.length) throw new Error(`the page misbehaved:\n  ${lines.join('\n  ')}`);
    },
    close: () => context.close(),
  };
}

/** Signs in on the console's page with the service's credentials (or others) and waits for the signed-in page. */
export async function signIn(page, { clientId = service.clientId, clientSecret = service.clientSecret } = {}) {
  await page.goto('/');
  await page.getByLabel('Client ID').fill(clientId);
  await page.getByLabel('Client secret').fill(clientSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A JSON client of the API with HTTP Basic; `call(method, path, body, expectedStatus)` returns the body. */
export function apiClient({ baseUrl, clientId, clientSecret }) {
  const auth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  return async function call(method, path, body, expected = [200, 201], headers = {}) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const ok = [expected].flat().includes(res.status);
    if (!ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** A unique, readable tag for the data one test creates. */
export const tag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Creates an individual customer; returns it with its internal accounts. */
export async function createCustomer(call, { fullName, email, platformCustomerId = `browser-${tag()}` }) {
  const customer = await call('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId,
    fullName,
    birthDate: '1990-01-15',
    nationality: 'US',
    ...(email ? { email } : {}),
    address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
  });
  const accounts = (await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).data;
  const usd = accounts.find((a) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD');
  return { customer, accounts, usd };
}

/** A USD bank account of `customer` whose account number ends in `suffix` (a sandbox outcome). */
export function createUsdExternalAccount(call, customer, suffix) {
  const digits = String(Date.now() % 1_000_000_000).padStart(9, '0');
  return call('POST', '/customers/external-accounts', {
    customerId: customer.id,
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber: `${digits}${suffix}`,
      routingNumber: '021000021',
      beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: customer.fullName },
    },
  });
}

/** A local webhook receiver on 127.0.0.1 answering 200; `received` holds `{headers, body}` of each POST. */
export async function startReceiver() {
  const received = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Polls `fn` until it returns a truthy value; fails with `what` after `timeoutMs`. */
export async function until(fn, what, timeoutMs = 15_000, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** A viewport PNG of the page into `screenshotDir`/<name>.png. */
export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  // Let fonts and the last render settle, without animations or a blinking caret.
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

/** A link to an item's page (`#/<kind>/<id>`, the id as is or URL-encoded). */
export function itemLink(page, kind, id) {
  return page.locator(`a[href$="#/${kind}/${id}"], a[href$="#/${kind}/${encodeURIComponent(id)}"]`).first();
}
