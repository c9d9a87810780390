#!/usr/bin/env node
// `npm run bench:homes`: what a second data database ("home", src/db/homes.ts) buys. Two platforms pay at the
// same time, in two configurations within one run: (a) both in one database, (b) each in a database of its own.
//
// Locally a D1 database executes its SQL on the thread of the workerd runtime that binds it, and one runtime runs
// the Worker, every database it binds and the queue on one thread. A deployment's databases each run apart from
// the Worker and from one another. So by default the bench starts three runtimes (processes) of the service, and
// gives each one's `DB` as a remote binding to a runtime's own database (scripts/bench/database-host.mjs): every
// D1 call of every runtime goes through the same HTTP hop, and only which process executes the SQL changes:
//   runtime 1 serves platform A, its database in runtime 1;
//   runtime 2 serves platform B, its database in runtime 1 (the same database as A's);
//   runtime 3 serves platform C, its database in runtime 3.
// (a) is A + B: two Workers, one database. (b) is A + C: two Workers, two databases.
// `--one-runtime` measures the other way, one runtime as `npm start` runs it: (a) A and B in DB, (b) A in DB and
// C in DB_2; there the runtime's one thread is the limit, not a database.
//
// Each runtime starts on throwaway state as `npm start` does (both homes migrated, request budgets off); the
// platforms are made through the operator API, and each drives `npm run bench`'s transfer-out scenario
// (scripts/bench/scenarios.mjs: 1.00 USD from a funded account to a bank account that completes at once, a new
// Idempotency-Key each) with autocannon, both platforms of a pair at once. Concurrency: 16 connections per
// platform (--connections; 32 in all, the level `npm run bench` judges throughput at): each request queues
// behind the others (p99 in the hundreds of ms), so every run keeps the server side saturated and the client
// never is the limit (its CPU is printed). Each run waits for its webhooks to be processed before the next one.
//
// A warm-up of each configuration, then --rounds rounds that run (a) and (b) once each, in alternating order
// (a b, b a, a b…), so a shared machine's load swings fall on both alike. Prints payments per second (both
// platforms together) per configuration, the median of the rounds, and the ratio b/a of the medians; per run
// also the CPU the runtimes used (all threads, per payment, and the busiest thread), from /proc where there is
// one. `--json <file>` also writes the figures.
//
//   npm run bench:homes -- [--one-runtime] [--connections 16] [--duration 8] [--warmup 2] [--rounds 3] [--json FILE] [--keep]
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cannon, cannonOptions } from './bench/cannon.mjs';
import { platformApi, RUN, webhooksIdle } from './bench/fixtures.mjs';
import { scenarios } from './bench/scenarios.mjs';
import { unstable_readConfig } from 'wrangler';
import { applyLocalMigrations, startLocalWorker } from './lib/local-worker.mjs';
import {
  API_VERSION,
  createPlatform,
  freePort,
  host,
  median,
  root,
  SANDBOX_PLATFORM,
  scratchWorkspace,
  startBenchService,
} from './lib/service.mjs';

const { values: opts } = parseArgs({
  options: {
    connections: { type: 'string', default: '16' },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    'one-runtime': { type: 'boolean', default: false },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const CONNECTIONS = Number(opts.connections);
const DURATION = Number(opts.duration);
const WARMUP = Number(opts.warmup);
const ROUNDS = Number(opts.rounds);
const ONE_RUNTIME = opts['one-runtime'];

// `--one-runtime`: the child process of `npm start`'s runtime; else the runtimes started here.
let service;
let runtimes = [];
const { dir, secrets, envFile } = scratchWorkspace('bench-homes', () => service, { keep: opts.keep });
const t0 = Date.now();
const log = (msg) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s  ${msg}`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

// ---- CPU of the service's processes (Linux /proc; elsewhere the columns stay empty) ----

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

/**
 * utime + stime (ticks) and the name of every thread of the service's processes: those of process group `pgid`
 * (a runtime started as a child), or this process's workerd children (runtimes started here).
 */
function threadTicks(pgid) {
  const out = new Map();
  let pids;
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    try {
      const stat = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (pgid ? stat.pgrp !== pgid : stat.ppid !== process.pid || stat.comm !== 'workerd') continue;
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const f = statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
        out.set(tid, { name: f.comm, ticks: f.ticks });
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

function statFields(text) {
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  // After "pid (comm) ": state ppid pgrp … utime (14th field of the line) stime (15th).
  return {
    comm: text.slice(text.indexOf('(') + 1, close),
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    ticks: Number(rest[11]) + Number(rest[12]),
  };
}

/** CPU used between two `threadTicks`, in percent of one core: all threads, and the busiest one. */
function cpuBetween(before, after, seconds) {
  if (!before || !after) return undefined;
  let total = 0;
  let busiest = { name: '-', ticks: 0 };
  for (const [tid, t] of after) {
    const used = t.ticks - (before.get(tid)?.ticks ?? 0);
    total += used;
    if (used > busiest.ticks) busiest = { name: t.name, ticks: used };
  }
  const pct = (ticks) => (100 * ticks) / TICKS_PER_SECOND / seconds;
  return { totalPct: pct(total), busiestPct: pct(busiest.ticks), busiestThread: busiest.name };
}

// ---- the platforms and the runs ----

const transferOut = scenarios.find((s) => s.name === 'transfer-out');

// What the runtimes started here run with, as startBenchService's: quiet, sandbox, budgets off.
const BENCH_VARS = { LOG_LEVEL: 'warn', SERVICE_ENV: 'sandbox', API_PREFIX: '', RATE_LIMITS: 'off' };

/**
 * Runtime i (0, 1, 2) of the default configuration; `databaseIn` is the runtime whose own database its `DB` is.
 * Each keeps its own state (its own database file and queue) under `dir`.
 */
async function startRuntimes(databaseIn) {
  const config = join(root, 'wrangler.toml');
  const first = unstable_readConfig({ config }).d1_databases.find((d) => d.binding === 'DB');
  const ports = await Promise.all(databaseIn.map(() => freePort()));
  const origin = (i) => `http://${host}:${ports[i]}`;
  return Promise.all(
    ports.map(async (port, i) => {
      const persistTo = join(dir, `runtime-${i + 1}`);
      await applyLocalMigrations({ config, persistTo });
      const worker = await startLocalWorker({
        config,
        port,
        persistTo,
        logLevel: 'warn',
        main: join(root, 'scripts', 'bench', 'database-host.mjs'),
        bindings: { ...secrets, ...BENCH_VARS },
        d1Databases: {
          // The migrated local file of DB (the same id), served to the runtimes whose `DB` names this one.
          BENCH_DATABASE: { id: first.database_id },
          DB: { id: `runtime-${databaseIn[i] + 1}`, remoteProxyConnectionString: new URL(origin(databaseIn[i])) },
        },
      });
      return { worker, origin: origin(i), apiBase: `${origin(i)}/${API_VERSION}` };
    }),
  );
}

/** A platform in `home` of `service`, its funded accounts and its transfer-out request ready to drive. */
async function preparedPlatform(name, home, service) {
  const platform = await createPlatform(service.apiBase, secrets.OPERATOR_TOKEN, {
    ...SANDBOX_PLATFORM,
    name: `Bench platform ${name}`,
    umaDomain: `${name.toLowerCase()}.${RUN}.bench-homes.test`,
    home,
  });
  if (platform.home !== home) throw new Error(`platform ${name} went to ${platform.home}, not ${home}`);
  const ctx = {
    api: platformApi(service.apiBase, platform.auth),
    platform,
    operatorToken: secrets.OPERATOR_TOKEN,
    apiBase: service.apiBase,
  };
  const server = { origin: service.origin, basePath: new URL(service.apiBase).pathname };
  return { name, home, ctx, opts: cannonOptions(server, await transferOut.setup(ctx)) };
}

/** Both platforms of `config` paying at once for `seconds`; then waits for their webhooks. */
async function run(config, seconds) {
  const before = threadTicks(service?.child.pid);
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const each = await Promise.all(config.platforms.map((p) => cannon(p.opts, CONNECTIONS, seconds)));
  const wall = (performance.now() - started) / 1000;
  const cpu = cpuBetween(before, threadTicks(service?.child.pid), wall);
  const client = process.cpuUsage(clientBefore);
  await Promise.all(config.platforms.map((p) => transferOut.settle(p.ctx)));
  return {
    paymentsPerSec: each.reduce((n, r) => n + r.reqPerSec, 0),
    perPlatform: each.map((r) => r.reqPerSec),
    p50: Math.max(...each.map((r) => r.p50)),
    p99: Math.max(...each.map((r) => r.p99)),
    non2xx: each.reduce((n, r) => n + r.non2xx, 0),
    errors: each.reduce((n, r) => n + r.errors, 0),
    ...(cpu
      ? {
          serviceCpuPct: cpu.totalPct,
          // CPU a payment moves far less with the machine's load than payments a second do.
          cpuMsPerPayment: (10 * cpu.totalPct) / each.reduce((n, r) => n + r.reqPerSec, 0),
          busiestThreadPct: cpu.busiestPct,
          busiestThread: cpu.busiestThread,
        }
      : {}),
    clientCpuPct: (100 * (client.user + client.system)) / 1e6 / wall,
  };
}

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

function table(configs) {
  const rows = [
    [
      'configuration',
      'payments/s median (min-max)',
      'per platform',
      'p99 ms',
      'service CPU %',
      'CPU ms/payment',
      'busiest thread %',
      'non-2xx/errors',
    ],
  ];
  for (const c of configs) {
    const m = (key) => median(c.runs.map((r) => r[key]));
    const pps = c.runs.map((r) => r.paymentsPerSec);
    rows.push([
      c.label,
      `${fmt(median(pps))} (${fmt(Math.min(...pps))}-${fmt(Math.max(...pps))})`,
      c.platforms.map((_, i) => fmt(median(c.runs.map((r) => r.perPlatform[i])))).join(' + '),
      fmt(m('p99'), 1),
      fmt(m('serviceCpuPct')),
      fmt(m('cpuMsPerPayment'), 1),
      fmt(m('busiestThreadPct')),
      `${c.runs.reduce((n, r) => n + r.non2xx, 0)}/${c.runs.reduce((n, r) => n + r.errors, 0)}`,
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

async function main() {
  const loadBefore = load();
  let configs;
  if (ONE_RUNTIME) {
    log(`starting the service (load average ${loadBefore})`);
    service = await startBenchService({ persistTo: join(dir, 'state'), envFile });
    log('making platforms A and B in DB, C in DB_2, each with a funded account and a bank account');
    const [a, b, c] = await Promise.all([
      preparedPlatform('A', 'DB', service),
      preparedPlatform('B', 'DB', service),
      preparedPlatform('C', 'DB_2', service),
    ]);
    configs = [
      { key: 'a', label: '(a) A + B, both in DB', platforms: [a, b], databases: ['DB', 'DB'], runs: [] },
      { key: 'b', label: '(b) A in DB + C in DB_2', platforms: [a, c], databases: ['DB', 'DB_2'], runs: [] },
    ];
  } else {
    log(`starting three runtimes: the databases of 1 and 2 in runtime 1, of 3 in runtime 3 (load average ${loadBefore})`);
    runtimes = await startRuntimes([0, 0, 2]);
    log('making platform A in runtime 1, B in runtime 2, C in runtime 3, each with a funded account and a bank account');
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((name, i) => preparedPlatform(name, 'DB', runtimes[i])));
    configs = [
      { key: 'a', label: '(a) A + B: two runtimes, one database', platforms: [a, b], databases: ['runtime 1', 'runtime 1'], runs: [] },
      { key: 'b', label: '(b) A + C: two runtimes, two databases', platforms: [a, c], databases: ['runtime 1', 'runtime 3'], runs: [] },
    ];
  }
  for (const config of configs) {
    log(`warm-up ${config.label}: ${WARMUP} s`);
    await run(config, WARMUP);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const config of round % 2 ? [...configs].reverse() : configs) {
      const r = await run(config, DURATION);
      config.runs.push(r);
      log(
        `round ${round + 1} of ${ROUNDS}, ${config.label}: ${fmt(r.paymentsPerSec)} payments/s (${r.perPlatform.map((x) => fmt(x)).join(' + ')}), ` +
          `p99 ${fmt(r.p99, 1)} ms, service CPU ${fmt(r.serviceCpuPct)}% = ${fmt(r.cpuMsPerPayment, 1)} ms a payment (busiest thread ${fmt(r.busiestThreadPct)}% ${r.busiestThread ?? ''}), ` +
          `bench client ${fmt(r.clientCpuPct)}%${r.non2xx || r.errors ? `  (!) ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
      );
    }
  }
  const loadAfter = load();
  const [ma, mb] = configs.map((cfg) => median(cfg.runs.map((r) => r.paymentsPerSec)));
  const perRound = configs[0].runs.map((ra, i) => configs[1].runs[i].paymentsPerSec / ra.paymentsPerSec);

  console.log(
    `\nTransfer-outs of two platforms at once, ${CONNECTIONS} connections each, ${ROUNDS} rounds of ${DURATION} s (medians; CPU in % of one core, ${cpus().length} cores):\n`,
  );
  console.log(table(configs));
  console.log(
    ONE_RUNTIME
      ? "\nbusiest thread: the service thread with the most CPU (workerd: the Worker, every home's local D1 and the queue run on it); near 100% it, not a database's writer, is the limit."
      : "\nservice CPU: the three runtimes' (workerd) threads; busiest thread: the one with the most CPU (a runtime's Worker, its queue and the database it executes run on it).",
  );
  console.log(`ratio b/a: ${fmt(mb / ma, 2)}x (per round: ${perRound.map((x) => `${fmt(x, 2)}x`).join(', ')})`);
  console.log(`load average (1, 5, 15 min): ${loadBefore} before, ${loadAfter} after`);

  if (opts.json) {
    const report = {
      startedAt: new Date(t0).toISOString(),
      seconds: Math.round((Date.now() - t0) / 1000),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadBefore, loadAfter },
      settings: {
        mode: ONE_RUNTIME ? 'one runtime' : 'three runtimes',
        connectionsPerPlatform: CONNECTIONS,
        durationSeconds: DURATION,
        warmupSeconds: WARMUP,
        rounds: ROUNDS,
      },
      configurations: configs.map((cfg) => ({
        key: cfg.key,
        label: cfg.label,
        // Where each platform's database executes: its home in one runtime, or the runtime that runs it.
        databases: cfg.databases,
        paymentsPerSec: median(cfg.runs.map((r) => r.paymentsPerSec)),
        runs: cfg.runs,
      })),
      ratio: mb / ma,
      ratioPerRound: perRound,
    };
    writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`Wrote ${opts.json}`);
  }
  await Promise.all(runtimes.map((r) => r.worker.close()));
  log('done');
  const failed = configs.some((cfg) => cfg.runs.some((r) => r.non2xx > 0 || r.errors > 0));
  if (failed) console.warn('Some runs had non-2xx answers or socket errors: their figures are not comparable.');
  return failed ? 1 : 0;
}

// On any exit scratchWorkspace stops the service and removes its state.
try {
  process.exit(await main());
} catch (error) {
  console.error(error.stack ?? error);
  process.exit(1);
}
