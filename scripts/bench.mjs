#!/usr/bin/env node
// `npm run bench`: the service and two reference Workers in workerd, each scenario driven by autocannon.
// Nothing of the developer's is touched: state goes to a temporary --persist-to directory and the
// secrets to a temporary env file (a copy of .dev.vars, completed with fresh local secrets).
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cannon, cannonOptions } from './bench/cannon.mjs';
import { runLoop } from './bench/loop.mjs';
import { platformApi } from './bench/fixtures.mjs';
import { scenarios, targets } from './bench/scenarios.mjs';
import {
  createPlatform,
  envFileText,
  freePort,
  host,
  killChildNow,
  median,
  readDevVars,
  root,
  spawnLocalWorker,
  startService,
  stopChild,
  withLocalSecrets,
} from './lib/service.mjs';

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,32').split(',').map(Number);
/** Comma-separated substrings of scenario names to run (the references always run: the ratios need them). */
const ONLY = process.env.BENCH_ONLY?.split(',')
  .map((x) => x.trim())
  .filter(Boolean);

const tmp = mkdtempSync(join(tmpdir(), 'payments-bench-'));
const children = [];
let stopping = false;

/** Remembers a started process; one that appears while stopping (a start still under way) is stopped at once. */
function track(child) {
  children.push(child);
  if (stopping) stopChild(child);
}

async function cleanup() {
  stopping = true;
  await Promise.all(children.map((c) => stopChild(c)));
  if (!process.env.BENCH_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', () => children.forEach(killChildNow));
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    console.error(`\n${sig}: stopping the servers`);
    cleanup().finally(() => process.exit(130));
  });
}

function logFile(name) {
  const path = join(tmp, `${name}.log`);
  return { path, fd: openSync(path, 'a') };
}

function tail(path, lines = 30) {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** A reference Worker on the same local runner as the service, with its own config and state. */
async function startReference(name) {
  const port = await freePort();
  const log = logFile(`reference-${name}`);
  const child = spawnLocalWorker({
    port,
    inspectorPort: await freePort(),
    config: join(root, 'scripts', 'bench', `reference-${name}.toml`),
    persistTo: join(tmp, `reference-${name}-state`),
    extraArgs: ['--log-level', 'warn'],
    stdio: ['ignore', log.fd, log.fd],
  });
  track(child);
  closeSync(log.fd);
  const origin = `http://${host}:${port}`;
  await waitForHttp(origin, child, log.path);
  return { origin, basePath: '' };
}

/** Any HTTP answer means the Worker is up (the D1 reference errors until its table exists). */
async function waitForHttp(origin, child, log) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`a reference Worker exited:\n${tail(log)}`);
    try {
      await (await fetch(origin)).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`${origin} did not answer within 120 s:\n${tail(log)}`);
}

async function startBenchService() {
  const port = await freePort();
  const secrets = withLocalSecrets(readDevVars(join(root, '.dev.vars')));
  const envFile = join(tmp, 'service.env');
  writeFileSync(envFile, envFileText(secrets), { mode: 0o600 });
  const log = logFile('service');
  try {
    const svc = await startService({
      port,
      inspectorPort: await freePort(),
      onSpawn: track,
      persistTo: join(tmp, 'service-state'),
      envFile,
      // Sessions outlive the whole bench (the default 900 s would expire the signing session mid-run); one
      // platform drives every scenario far past its request budget, which is measured by `npm run neighbours`.
      vars: { LOG_LEVEL: 'warn', SERVICE_ENV: 'sandbox', API_PREFIX: '', SESSION_TTL_SECONDS: '86400', RATE_LIMITS: 'off' },
      extraArgs: ['--log-level', 'warn'],
      stdio: ['ignore', log.fd, log.fd],
      quietMigrations: true,
    });
    return { ...svc, operatorToken: secrets.OPERATOR_TOKEN, log: log.path };
  } catch (error) {
    throw new Error(`${error.message}\n${tail(log.path)}`);
  } finally {
    closeSync(log.fd);
  }
}

const summary = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

/** A `loop` scenario under scripts/bench/loop.mjs, its paths relative to the API base like autocannon's. */
function loopRunner(server, loop) {
  const step = (client) => loop({ request: (method, path, opts) => client.request(method, `${server.basePath}${path}`, opts) });
  return (connections, duration) => runLoop({ origin: server.origin, connections, duration, step });
}

/** A load scenario set up and ready to drive: `drive(connections, seconds)` runs it once. */
async function prepareScenario(s, ctx, servers) {
  const out = { name: s.name, server: s.server ?? 'service', ...(s.note ? { note: s.note } : {}), levels: [] };
  const server = servers[out.server];
  const req = await s.setup(ctx);
  let drive;
  if (req.loop) {
    out.driver = 'loop';
    drive = loopRunner(server, req.loop);
  } else {
    const opts = cannonOptions(server, req);
    drive = (connections, duration) => cannon(opts, connections, duration);
  }
  // Background work a run leaves behind (queued webhooks) must not land in the next scenario's run.
  const settle = s.settle ? () => s.settle(ctx) : async () => {};
  return { s, out, drive, settle };
}

function levelOf(connections, runs, loop) {
  return {
    connections,
    runs,
    reqPerSec: summary(runs.map((r) => r.reqPerSec)),
    p50: summary(runs.map((r) => r.p50)),
    p99: summary(runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    ...(loop ? { labels: labelSummary(runs) } : {}),
  };
}

/**
 * Every load scenario at each connection count: a warm-up each, then RUNS rounds in which every scenario
 * runs once. Interleaved rounds spread a shared machine's load swings over all scenarios alike, so the
 * ratios of the targets compare figures taken side by side.
 */
async function measureLoad(prepared) {
  for (const connections of CONNECTIONS) {
    for (const p of prepared) {
      await p.drive(connections, WARMUP);
      await p.settle();
    }
    const runs = prepared.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      console.log(`  @${connections} connections, round ${i + 1} of ${RUNS}`);
      for (const [k, p] of prepared.entries()) {
        runs[k].push(await p.drive(connections, DURATION));
        await p.settle();
      }
    }
    for (const [k, p] of prepared.entries()) {
      const l = levelOf(connections, runs[k], p.out.driver === 'loop');
      p.out.levels.push(l);
      console.log(
        `  ${p.s.name} @${connections}: ${fmt(l.reqPerSec.median, 0)} req/s, p99 ${fmt(l.p99.median, 1)} ms${l.non2xx || l.errors ? `  (!) ${l.non2xx} non-2xx, ${l.errors} errors` : ''}`,
      );
    }
  }
}

/** A timed scenario (`measure`), RUNS times. */
async function measureTimed(s, ctx) {
  const out = { name: s.name, server: 'service', ...(s.note ? { note: s.note } : {}), levels: [] };
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    runs.push((await s.measure(ctx)).ms);
    console.log(`  ${s.name}: run ${i + 1} ${(runs.at(-1) / 1000).toFixed(1)} s`);
  }
  out.timed = { runs, ...summary(runs) };
  return out;
}

/** Median p50/p99 per request label over the runs of a loop scenario. */
function labelSummary(runs) {
  const labels = [...new Set(runs.flatMap((r) => Object.keys(r.labels)))];
  return Object.fromEntries(
    labels.map((label) => {
      const of = runs.map((r) => r.labels[label]).filter(Boolean);
      return [label, { p50: median(of.map((x) => x.p50)), p99: median(of.map((x) => x.p99)) }];
    }),
  );
}

const fmt = (n, digits) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const range = (s, digits) => `${fmt(s.median, digits)} (${fmt(s.min, digits)}-${fmt(s.max, digits)})`;

function table(results) {
  const rows = [['scenario', 'conns', 'req/s median (min-max)', 'p50 ms', 'p99 ms', 'non-2xx/errors']];
  for (const r of results) {
    if (r.timed)
      rows.push([
        r.name,
        '-',
        `${range({ median: r.timed.median / 1000, min: r.timed.min / 1000, max: r.timed.max / 1000 }, 1)} s`,
        '',
        '',
        '',
      ]);
    for (const l of r.levels) {
      rows.push([
        r.name,
        String(l.connections),
        range(l.reqPerSec, 0),
        range(l.p50, 1),
        range(l.p99, 1),
        l.non2xx || l.errors ? `${l.non2xx}/${l.errors}` : '0',
      ]);
    }
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const notes = results.filter((r) => r.note).map((r) => `- ${r.name}: ${r.note}`);
  const labels = results.flatMap((r) =>
    r.levels
      .filter((l) => l.labels && Object.keys(l.labels).length > 1)
      .map(
        (l) =>
          `- ${r.name} @${l.connections}, per request: ${Object.entries(l.labels)
            .map(([k, v]) => `${k} p50 ${fmt(v.p50, 1)} / p99 ${fmt(v.p99, 1)} ms`)
            .join(', ')}`,
      ),
  );
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line), '', ...notes, ...labels].join(
    '\n',
  );
}

function judge(results) {
  const byName = new Map(results.map((r) => [r.name, r]));
  const level = (name, c) => byName.get(name)?.levels.find((l) => l.connections === c);
  return targets.map((t) => {
    if (t.kind === 'ratio') {
      const ratios = Object.fromEntries(
        CONNECTIONS.map((c) => {
          const a = level(t.numerator, c);
          const b = level(t.denominator, c);
          return [c, a && b ? a.reqPerSec.median / b.reqPerSec.median : undefined];
        }),
      );
      const value = ratios[t.connections];
      return { ...t, ratios, value, met: value === undefined ? null : value >= t.min };
    }
    if (t.kind === 'pair') {
      const ratios = Object.fromEntries(
        CONNECTIONS.map((c) => {
          const pair = level(t.pair, c)?.reqPerSec.median;
          const first = level(t.first, c)?.reqPerSec.median;
          if (!pair || !first) return [c, undefined];
          // Service time of the retry alone: one pair (2/R) less the first step (1/C); none left means "as fast".
          const retrySeconds = 2 / pair - 1 / first;
          return [c, retrySeconds > 0 ? 1 / retrySeconds / first : Infinity];
        }),
      );
      const value = ratios[t.connections];
      return { ...t, ratios, value, met: value === undefined ? null : value >= t.min };
    }
    if (t.kind === 'seconds') {
      const r = byName.get(t.scenario);
      const value = r?.timed ? r.timed.median / 1000 : undefined;
      return { ...t, value, met: value === undefined ? null : value <= t.max };
    }
    const worst = results
      .filter((r) => r.server === 'service')
      .map((r) => ({ name: r.name, p99: level(r.name, t.connections)?.p99.median }))
      .filter((x) => x.p99 !== undefined)
      .sort((a, b) => b.p99 - a.p99)[0];
    return { ...t, value: worst?.p99, worst: worst?.name, met: worst ? worst.p99 <= t.maxMs : null };
  });
}

function describeTarget(t) {
  const status = t.met === null ? 'not measured yet' : t.met ? 'met' : 'MISSED';
  if (t.kind === 'ratio' || t.kind === 'pair') {
    const all = Object.entries(t.ratios)
      .map(([c, v]) => `${v === undefined ? '-' : Number.isFinite(v) ? `${v.toFixed(2)}x` : 'no measurable cost'} @${c}`)
      .join(', ');
    return `${t.name}: ${all} (target >= ${t.min.toFixed(2)}x @${t.connections}): ${status}`;
  }
  if (t.kind === 'snapshot') return `${t.name}: ${t.detail}: ${status}`;
  if (t.kind === 'seconds')
    return `${t.name}: ${t.value === undefined ? '-' : `${t.value.toFixed(1)} s`} (target <= ${t.max} s): ${status}`;
  return `${t.name}: worst ${t.value === undefined ? '-' : `${t.value.toFixed(1)} ms (${t.worst})`} (target <= ${t.maxMs} ms): ${status}`;
}

/** The snapshot phase (scripts/bench-snapshots.mjs): its own service and platform, after the scenarios. */
function snapshotPhase() {
  const file = join(tmp, 'snapshots.json');
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'bench-snapshots.mjs'), '--json', file], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the snapshot phase failed');
  return JSON.parse(readFileSync(file, 'utf8'));
}
/** BENCH_ONLY=snapshots: the snapshot phase alone (no scenario, no reference Worker). */
const SNAPSHOTS_ONLY =
  ONLY !== undefined && ONLY.every((x) => 'snapshots'.includes(x)) && !scenarios.some((s) => ONLY.some((x) => s.name.includes(x)));
const SNAPSHOT_TARGET_MS = 1_000;

async function main() {
  const started = Date.now();
  if (SNAPSHOTS_ONLY) {
    const snapshots = snapshotPhase();
    mkdirSync(join(root, 'bench'), { recursive: true });
    writeFileSync(
      join(root, 'bench', 'snapshot-results.json'),
      `${JSON.stringify({ startedAt: new Date(started).toISOString(), snapshots }, null, 2)}\n`,
    );
    console.log('Wrote bench/snapshot-results.json');
    return 0;
  }
  const chosen = scenarios.filter((s) => !ONLY || s.server === 'empty' || s.server === 'd1' || ONLY.some((x) => s.name.includes(x)));
  console.log(`Starting the service and the reference Workers (state in ${tmp})...`);
  const [service, empty, d1] = await Promise.all([startBenchService(), startReference('empty'), startReference('d1')]);
  const ready = await fetch(`${d1.origin}/setup`, { method: 'POST' });
  if (!ready.ok) throw new Error(`setting up the D1 reference failed: ${ready.status}`);

  const platform = await createPlatform(service.apiBase, service.operatorToken);
  const api = platformApi(service.apiBase, platform.auth);
  const servers = {
    service: { origin: service.origin, basePath: new URL(service.apiBase).pathname },
    empty,
    d1,
  };
  const ctx = {
    api,
    platform,
    operatorToken: service.operatorToken,
    apiBase: service.apiBase,
    origins: { service: service.origin, empty: empty.origin, d1: d1.origin },
  };

  console.log(
    `Measuring ${chosen.length} scenarios at ${CONNECTIONS.join(' and ')} connections, ${RUNS} runs of ${DURATION} s each (warm-up ${WARMUP} s)`,
  );
  const prepared = [];
  for (const s of chosen.filter((x) => !x.measure)) {
    console.log(`  setting up ${s.name}`);
    prepared.push(await prepareScenario(s, ctx, servers));
  }
  await measureLoad(prepared);
  const results = prepared.map((p) => p.out);
  // Timed scenarios last: their background work would disturb the load runs.
  for (const s of chosen.filter((x) => x.measure)) results.push(await measureTimed(s, ctx));

  const snapshots = ONLY && !ONLY.some((x) => 'snapshots'.includes(x)) ? undefined : snapshotPhase();
  const judged = judge(results);
  if (snapshots) {
    for (const [what, figures] of [
      ['snapshot take', snapshots.takeMs],
      ['snapshot restore', snapshots.restoreMs],
      [
        'snapshot restore after a reset (every row written)',
        { median: snapshots.restoreAfterResetMs, runs: [snapshots.restoreAfterResetMs] },
      ],
    ]) {
      judged.push({
        name: `${what} at 1,000 customers, 10,000 transactions, 100 wallet credentials (under ${SNAPSHOT_TARGET_MS} ms)`,
        kind: 'snapshot',
        value: figures.median,
        met: figures.median < SNAPSHOT_TARGET_MS,
        detail: `median ${Math.round(figures.median)} ms (runs ${figures.runs.join(', ')})`,
      });
    }
  }
  console.log(`\n${table(results)}\n`);
  console.log('Targets (from the same run):');
  for (const t of judged) console.log(`  - ${describeTarget(t)}`);

  const report = {
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, platform: process.platform },
    settings: { durationSeconds: DURATION, warmupSeconds: WARMUP, runs: RUNS, connections: CONNECTIONS },
    results,
    ...(snapshots ? { snapshots } : {}),
    targets: judged,
  };
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nWrote bench/results.json (${report.seconds} s in all)`);
  const failed = results.flatMap((r) => r.levels).some((l) => l.non2xx > 0 || l.errors > 0);
  if (failed) console.warn('Some scenarios had non-2xx answers or socket errors: their figures are not comparable.');
  return failed ? 1 : 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(error.stack ?? error);
} finally {
  await cleanup();
}
process.exit(code);
