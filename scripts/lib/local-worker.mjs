// The Worker on this machine: bundled with esbuild and served by Miniflare (workerd) straight on the port.
//
// Why not `wrangler dev`: it puts a proxy (its own workerd) in front of the Worker's, and that proxy keeps a
// pool of idle keep-alive connections to it. The Worker's runtime closes an idle connection after a few seconds;
// a request the proxy sends on one it is closing is lost ("Network connection lost"), and wrangler answers
// a POST so lost 503 "Your worker restarted mid-request" (nothing restarted): on a loaded machine 14 to 20 of
// 40 parallel writes. Clients here talk to the Worker's runtime directly. It also fires the cron trigger
// (which `wrangler dev` never does) and serves /cdn-cgi/handler/scheduled, which fails in `wrangler dev` once
// a Worker has static assets.
import { createHash } from 'node:crypto';
import { builtinModules } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import * as esbuild from 'esbuild';
import { Log, LogLevel, Miniflare, Response } from 'miniflare';
import { unstable_getMiniflareWorkerOptions, unstable_readConfig, unstable_splitSqlQuery } from 'wrangler';

/** The cron expression the runner fires at every minute boundary; any other one is a deployment's only. */
const EVERY_MINUTE = '* * * * *';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// Bare Node built-ins (`crypto`) are the `node:` modules nodejs_compat provides, as wrangler's bundler maps them.
const NODE_BUILTINS = new Set(builtinModules);
const nodeBuiltins = {
  name: 'node-builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z_]+(\/[a-z_/]+)?$/ }, (args) =>
      NODE_BUILTINS.has(args.path) ? { path: `node:${args.path}`, external: true } : undefined,
    );
  },
};

/**
 * The static assets binding (wrangler.toml `[assets]`) as a function over the directory: the Worker runs first
 * for every request (`run_worker_first`) and fetches each file by its path, which is all this needs. (Miniflare's
 * own assets router in front of the Worker cannot forward the scheduled event.)
 */
function assetsBinding(directory) {
  const root = resolve(directory);
  return async (request) => {
    const path = resolve(root, `.${decodeURIComponent(new URL(request.url).pathname)}`);
    if (path !== root && !path.startsWith(root + sep)) return new Response(null, { status: 404 });
    try {
      const body = readFileSync(path);
      return new Response(request.method === 'HEAD' ? null : body, {
        headers: { 'Content-Type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream' },
      });
    } catch {
      return new Response(null, { status: 404 });
    }
  };
}

/**
 * Starts the Worker of `config` (wrangler.toml by default) on `host:port`, with wrangler's local state layout
 * under `persistTo` (so `wrangler d1 migrations apply --local --persist-to` prepares the same database).
 * `bindings` are the vars and secrets (strings); `watch` rebuilds and reloads on a source change; `print(line,
 * stream)` writes every line the runner and the Worker's console produce. `main` replaces wrangler.toml's entry
 * module and `d1Databases` adds to or replaces its D1 bindings (the benches' own wiring). Returns `{url,
 * fireScheduled, close}`.
 */
export async function startLocalWorker({
  config = 'wrangler.toml',
  host = '127.0.0.1',
  port,
  inspectorPort,
  persistTo = '.wrangler/state',
  bindings = {},
  main: entry,
  d1Databases,
  logLevel = 'info',
  logRequests = false,
  watch = false,
  print = (line, stream) => {
    (stream === 'stderr' ? process.stderr : process.stdout).write(`${line}\n`);
  },
}) {
  const wrangler = unstable_readConfig({ config });
  const { workerOptions, main: configured } = unstable_getMiniflareWorkerOptions(config);
  const main = entry ?? configured;
  const { assets, modulesRules: _rules, ...options } = workerOptions;
  const outdir = mkdtempSync(join(tmpdir(), 'local-worker-'));
  const script = join(outdir, 'index.js');
  const log = new RunnerLog(LogLevel[logLevel.toUpperCase()] ?? LogLevel.INFO, print);
  const miniflareOptions = () => ({
    host,
    port,
    inspectorPort,
    defaultPersistRoot: join(resolve(persistTo), 'v3'),
    log,
    logRequests,
    unsafeTriggerHandlers: true,
    // The placeholder `request.cf`: no fetch of Cloudflare's (which fails offline, with a stack trace).
    cf: false,
    handleStructuredLogs: ({ level, message }) => {
      print(message, level === 'warn' || level === 'error' ? 'stderr' : 'stdout');
    },
    workers: [
      {
        name: wrangler.name,
        ...options,
        bindings: { ...options.bindings, ...bindings },
        d1Databases: { ...options.d1Databases, ...d1Databases },
        ...(assets ? { serviceBindings: { ...options.serviceBindings, [assets.binding]: assetsBinding(assets.directory) } } : {}),
        modulesRoot: outdir,
        modules: [{ type: 'ESModule', path: script }],
      },
    ],
  });

  let mf;
  let reloads = 0;
  // The bundle the runtime runs: a build that writes the same bytes (watch's own first build, a save that changes
  // nothing) must not restart it, which would drop the requests in flight.
  let loaded;
  const bundleHash = () => createHash('sha256').update(readFileSync(script)).digest('hex');
  const reload = {
    name: 'reload',
    setup(build) {
      build.onEnd(async (result) => {
        if (!mf || result.errors.length || bundleHash() === loaded) return;
        loaded = bundleHash();
        await mf.setOptions(miniflareOptions());
        print(`Reloaded the Worker after a source change (${++reloads})`, 'stdout');
      });
    },
  };
  const context = await esbuild.context({
    entryPoints: [main],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2024',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*', 'node:*'],
    outfile: script,
    keepNames: true,
    logLevel: 'silent',
    plugins: [nodeBuiltins, reload],
  });
  const built = await context.rebuild().catch((error) => ({ errors: error.errors ?? [error] }));
  if (built.errors.length) {
    await context.dispose();
    rmSync(outdir, { recursive: true, force: true });
    throw new Error(`bundling ${relative(process.cwd(), main)} failed:\n${built.errors.map((e) => e.text ?? e).join('\n')}`);
  }
  loaded = bundleHash();
  let url;
  ({ mf, url } = await startRuntime(miniflareOptions, log));
  log.info(`Ready on ${url.origin}`);
  if (watch) await context.watch();

  // The cron trigger, as a deployment runs it: the Worker's scheduled handler at every minute boundary.
  const crons = wrangler.triggers?.crons ?? [];
  for (const cron of crons.filter((c) => c !== EVERY_MINUTE)) log.warn(`The cron trigger "${cron}" runs only when deployed`);
  const fireScheduled = async (scheduledTime = new Date()) => {
    const worker = await mf.getWorker(wrangler.name);
    return worker.scheduled({ cron: EVERY_MINUTE, scheduledTime });
  };
  let timer;
  const nextMinute = () => {
    const at = Math.ceil((Date.now() + 1) / 60_000) * 60_000;
    timer = setTimeout(async () => {
      const result = await fireScheduled(new Date(at)).catch((error) => ({ outcome: String(error?.message ?? error) }));
      if (result.outcome !== 'ok') log.warn(`The scheduled handler failed: ${result.outcome}`);
      nextMinute();
    }, at - Date.now());
    timer.unref();
  };
  if (crons.includes(EVERY_MINUTE)) nextMinute();

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    await context.dispose();
    await mf.dispose();
    rmSync(outdir, { recursive: true, force: true });
  };
  return { url, fireScheduled, close };
}

/**
 * Applies the D1 migrations of `config` not yet applied to the local databases under `persistTo`, as
 * `wrangler d1 migrations apply --local` does (the same `d1_migrations` table, each migration with its row in one
 * atomic batch), in one runtime instead of one per migration. Returns what it applied, in order: `<binding>: <name>`
 * (every data database of wrangler.toml gets every migration).
 */
export async function applyLocalMigrations({ config = 'wrangler.toml', persistTo = '.wrangler/state' } = {}) {
  const wrangler = unstable_readConfig({ config });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
  const databases = wrangler.d1_databases.filter((d) => workerOptions.d1Databases?.[d.binding]);
  if (!databases.length) return [];
  // Tried once more when the runtime failed: each migration is applied with its row, so a second run applies the
  // rest (and lists only those).
  return oneRetry(() => applyPending({ config, persistTo, databases, workerOptions }));
}

async function applyPending({ config, persistTo, databases, workerOptions }) {
  const mf = new Miniflare({
    modules: true,
    script: 'export default {}',
    compatibilityDate: workerOptions.compatibilityDate,
    d1Databases: Object.fromEntries(databases.map((d) => [d.binding, workerOptions.d1Databases[d.binding]])),
    defaultPersistRoot: join(resolve(persistTo), 'v3'),
    cf: false,
    log: new Log(LogLevel.WARN),
  });
  const applied = [];
  try {
    await mf.ready;
    for (const d of databases) {
      const db = await mf.getD1Database(d.binding);
      const table = d.migrations_table || 'd1_migrations';
      const dir = resolve(dirname(resolve(config)), d.migrations_dir || 'migrations');
      await db
        .prepare(
          `CREATE TABLE IF NOT EXISTS ${table}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
        )
        .run();
      const done = new Set((await db.prepare(`SELECT name FROM ${table}`).all()).results.map((r) => r.name));
      const pending = readdirSync(dir)
        .filter((f) => f.endsWith('.sql') && !done.has(f))
        .sort();
      for (const name of pending) {
        const statements = unstable_splitSqlQuery(readFileSync(join(dir, name), 'utf8'));
        await db.batch([...statements.map((q) => db.prepare(q)), db.prepare(`INSERT INTO ${table} (name) VALUES (?)`).bind(name)]);
        applied.push(`${d.binding}: ${name}`);
      }
    }
  } finally {
    await mf.dispose();
  }
  return applied;
}

/**
 * Whether `error` is the runtime failing to start rather than the project's own fault: Miniflare's own
 * assertions (a clean-clone CI run once saw `npm start` stop on "false == true" before it applied a migration)
 * and its ERR_RUNTIME_FAILURE.
 */
const runtimeFailure = (error) => error?.code === 'ERR_ASSERTION' || error?.code === 'ERR_RUNTIME_FAILURE';

/** `start()`, tried once more (its failure logged with the stack) when the runtime failed to start. */
async function oneRetry(start, log) {
  try {
    return await start();
  } catch (error) {
    if (!runtimeFailure(error)) throw error;
    (log ?? new Log(LogLevel.WARN)).warn(`The Workers runtime failed to start; trying once more:\n${error.stack ?? error}`);
    await new Promise((r) => setTimeout(r, 1000));
    return start();
  }
}

/** A Miniflare of `options()`, ready: `{mf, url}` (disposed again when it did not start). */
async function startRuntime(options, log) {
  return oneRetry(async () => {
    let mf;
    try {
      mf = new Miniflare(options());
      return { mf, url: await mf.ready };
    } catch (error) {
      await mf?.dispose().catch(() => {});
      throw error;
    }
  }, log);
}

/** Miniflare's log, written through `print` (`[service:info] …`; warnings and errors to stderr). */
class RunnerLog extends Log {
  #print;
  constructor(level, print) {
    super(level);
    this.#print = print;
  }
  log(message) {
    this.#print(message, 'stdout');
  }
  logWithLevel(level, message) {
    if (level > this.level) return;
    this.#print(`[service:${LogLevel[level].toLowerCase()}] ${message}`, level <= LogLevel.WARN ? 'stderr' : 'stdout');
  }
}
