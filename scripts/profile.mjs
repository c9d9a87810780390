#!/usr/bin/env node
// `npm run profile`: where the CPU of POST /transfer-out goes, as `npm run bench` drives it. Starts the service
// on throwaway state (free ports, like the benches), makes a funded account and a bank account, and after a
// warm-up: measures workerd's CPU a request over an unprofiled burst of PROFILE_SECONDS (10) at
// PROFILE_CONNECTIONS (32), and the same for the bench's one-query reference Worker in its own workerd; then
// connects to every isolate of the runtime through its V8 inspector (the Chrome DevTools Protocol: the Worker,
// the local D1 with its SQLite, the queue broker, Miniflare's entry Worker) and samples them all
// (`Profiler.start` / `Profiler.stop`) around a second burst. Prints each isolate's JavaScript time, then the
// Worker's self time by function, by source file and by area, and its inclusive time by area. Source files
// come from the bundle's own `// path` comments (esbuild writes one before each module). Knobs:
// PROFILE_SECONDS, PROFILE_WARMUP (3), PROFILE_CONNECTIONS, PROFILE_INTERVAL_US (sampling interval, 200),
// PROFILE_TOP (25); `--cpuprofile FILE` writes the Worker's raw profile (Chrome DevTools' Performance panel
// opens it), `--json FILE` the aggregates, `--write` a summary into docs/engineering/performance.md between
// its profile markers.
import autocannon from 'autocannon';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { fundedTransferPair, must, unique, webhooksIdle } from './bench/fixtures.mjs';
import {
  createPlatform,
  freePort,
  killChildNow,
  host,
  median,
  root,
  scratchWorkspace,
  spawnLocalWorker,
  startService,
  stopChild,
} from './lib/service.mjs';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const WARMUP = Number(process.env.PROFILE_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const INTERVAL_US = Number(process.env.PROFILE_INTERVAL_US ?? 200);
const TOP = Number(process.env.PROFILE_TOP ?? 25);
const { values: flags } = parseArgs({
  options: { cpuprofile: { type: 'string' }, json: { type: 'string' }, write: { type: 'boolean', default: false } },
});

let service;
let reference;
const { dir, secrets, envFile } = scratchWorkspace('profile', () => service);
// The reference Worker too, if the run is cut short while it runs.
process.on('exit', () => killChildNow(reference));

/** A Chrome DevTools Protocol session over one WebSocket: `send(method, params)` resolves with the result. */
async function devtools(url) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let id = 0;
  const pending = new Map();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    const p = msg.id !== undefined && pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
    else p.resolve(msg.result);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        pending.set(++id, { resolve, reject, method });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/**
 * Every isolate of the runtime, by the inspector's id: the service's Worker (`core:user:<name>`), the local D1
 * (`d1:db`, its SQLite under it), the queue broker, Miniflare's entry Worker that every request passes...
 */
async function isolates(inspectorPort) {
  const list = await (await fetch(`http://${host}:${inspectorPort}/json/list`)).json();
  if (!list.some((t) => t.id.startsWith('core:user:'))) throw new Error(`the inspector on port ${inspectorPort} lists no user Worker`);
  return list.map((t) => ({ id: t.id, url: t.webSocketDebuggerUrl })).filter((t) => !t.id.includes('#'));
}

/** Seconds of CPU (user + system, every thread) the workerd processes of `child`'s process group have used. */
function workerdCpuSeconds(child) {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the name: [2] the process group, [11] utime, [12] stime (clock ticks, 100 a second on Linux).
      if (Number(fields[2]) === child.pid && stat.includes('(workerd)')) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

const PAGE = join(root, 'docs', 'engineering', 'performance.md');
const [START, END] = ['<!-- profile:start -->', '<!-- profile:end -->'];

/** `--write`: the run's figures into docs/engineering/performance.md, between its profile markers. */
function writeSummary(report) {
  const ms = (us) => `${(us / 1000).toFixed(1)} ms`;
  const pct = (x) => `${Math.round(x * 100)}%`;
  const isolates = Object.entries(report.isolates).sort((a, b) => b[1].busyMs - a[1].busyMs);
  const js = isolates.reduce((n, [, a]) => n + a.busyMs, 0);
  const worker = isolates.find(([id]) => id.startsWith('core:user:'))[1];
  const d1 = report.isolates['d1:db'];
  const { unprofiled: t, reference: r } = report;
  const lines = [
    `Measured by \`npm run profile\` (${SECONDS} s at ${CONNECTIONS} connections per burst; the Worker bundled as \`npm start\` runs it):`,
    '',
    `- workerd's CPU a request, unprofiled: POST /transfer-out ${ms(t.cpuUs)}, the one-query reference Worker ${ms(r.cpuUs)} ` +
      `(${(r.cpuUs / t.cpuUs).toFixed(2)}x; in requests a second ${t.reqPerSec.toFixed(0)} against ${r.reqPerSec.toFixed(0)}, ${(t.reqPerSec / r.reqPerSec).toFixed(2)}x).`,
    `- JavaScript time of the profiled burst by isolate: the Worker ${pct(worker.busyMs / js)}, the local D1 (its SQLite included) ` +
      `${pct(d1.busyMs / js)}, the rest (Miniflare's entry Worker, the queue broker, D1's binding wrapper) ${pct(1 - (worker.busyMs + d1.busyMs) / js)}.`,
    `- The Worker's time by area (a native call counted to the JavaScript that made it): ${worker.ownAreas
      .slice(0, 6)
      .map((a) => `${a.name} ${pct(a.share)}`)
      .join(', ')}.`,
    `- The Worker's top functions by self time: ${worker.functions
      .map((f) => ({ ...f, fn: f.name.split('  ')[0], file: f.name.split('  ')[1].replace(/:\d+$/, '') }))
      .filter((f) => !f.file.startsWith('('))
      .slice(0, 6)
      .map((f) => `\`${f.fn}\` (${f.file}) ${pct(f.share)}`)
      .join(', ')}.`,
  ];
  const text = readFileSync(PAGE, 'utf8');
  const [before, rest] = text.split(START);
  if (rest === undefined || !rest.includes(END)) throw new Error(`docs/engineering/performance.md has no ${START} ... ${END} section`);
  writeFileSync(PAGE, `${before}${START}\n${lines.join('\n')}\n${END}${rest.slice(rest.indexOf(END) + END.length)}`);
  console.log('\ndocs/engineering/performance.md updated.');
}

/** Runs `drive` (an autocannon run) and returns its requests a second and workerd's CPU µs a request. */
async function cpuOf(child, drive) {
  const before = workerdCpuSeconds(child);
  const result = await drive();
  const cpu = workerdCpuSeconds(child) - before;
  if (result.non2xx || result.errors || result.timeouts || !result.requests.total)
    throw new Error(
      `a run had ${result.non2xx} non-2xx answers, ${result.errors + result.timeouts} errors, ${result.requests.total} requests`,
    );
  return { reqPerSec: result.requests.average, requests: result.requests.total, cpuUs: (cpu / result.requests.total) * 1e6 };
}

/** The one-query reference Worker of `npm run bench` (scripts/bench/reference-d1.toml) in its own workerd: its CPU a request. */
async function referenceCpu(seconds) {
  const port = await freePort();
  const child = spawnLocalWorker({
    port,
    config: join(root, 'scripts', 'bench', 'reference-d1.toml'),
    persistTo: join(dir, 'reference-state'),
    extraArgs: ['--log-level', 'warn'],
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  reference = child;
  try {
    const origin = `http://${host}:${port}`;
    for (let i = 0; ; i++) {
      const ready = await fetch(`${origin}/setup`, { method: 'POST' }).catch(() => undefined);
      if (ready?.ok) break;
      if (i > 240 || child.exitCode !== null) throw new Error('the reference Worker did not start');
      await new Promise((r) => setTimeout(r, 500));
    }
    const drive = (duration) => autocannon({ url: origin, connections: CONNECTIONS, duration, pipelining: 1, timeout: 60 });
    await drive(WARMUP);
    return await cpuOf(child, () => drive(seconds));
  } finally {
    await stopChild(child);
  }
}

/** Maps a bundle line to the source file esbuild's `// path` comment before it names. */
function sourceFiles(bundle) {
  const marks = [];
  bundle.split('\n').forEach((line, i) => {
    const m = line.match(/^\/\/ ((?:src|node_modules)\/\S+\.(?:[cm]?[jt]s|json))$/);
    if (m) marks.push([i, m[1]]);
  });
  return (url, line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let found = url;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) {
        found = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** An area: a package of node_modules, a folder of src, or one of V8's own entries ((garbage collector)...). */
function areaOf(file) {
  const pkg = file.match(/^node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  const src = file.match(/^src\/([^/]+)\//);
  if (src) return `src/${src[1]}`;
  return file;
}

function aggregate(profile, fileOf) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Each sample counts the median gap between samples (the sampler's real interval on a loaded machine): V8
  // samples an isolate only while it runs, so the longer gaps are the stretches it waited (on D1, on a
  // request), which belong to no JavaScript of it.
  const us = median(profile.timeDeltas.slice(1)) || INTERVAL_US;
  const where = (n) => {
    const { functionName, url, lineNumber } = n.callFrame;
    if (!url) return { fn: functionName || '(anonymous)', file: functionName.startsWith('(') ? functionName : '(native)' };
    return { fn: functionName || '(anonymous)', file: fileOf(url, lineNumber) };
  };
  const self = new Map();
  const selfFile = new Map();
  const inclusive = new Map();
  const callerArea = new Map();
  const add = (m, k, us) => m.set(k, (m.get(k) ?? 0) + us);
  let idle = 0;
  if (!profile.samples.length) return { wallMs: 0, samples: 0, idleMs: 0, busyMs: 0, functions: [], files: [], ownAreas: [], areas: [] };
  for (const id of profile.samples) {
    const n = byId.get(id);
    const w = where(n);
    if (w.fn === '(idle)') {
      idle += us;
      continue;
    }
    add(self, `${w.fn}  ${w.file}:${n.callFrame.lineNumber + 1}`, us);
    add(selfFile, w.file, us);
    const areas = new Set();
    let caller;
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const f = where(byId.get(at));
      if (f.fn !== '(root)') areas.add(areaOf(f.file));
      if (caller === undefined && byId.get(at).callFrame.url) caller = areaOf(f.file);
    }
    add(callerArea, caller ?? areaOf(w.file), us);
    for (const a of areas) add(inclusive, a, us);
  }
  const busy = profile.samples.length * us - idle;
  const top = (m, k = TOP) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / busy }));
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    samples: profile.samples.length,
    idleMs: idle / 1000,
    busyMs: busy / 1000,
    functions: top(self),
    files: top(selfFile),
    ownAreas: top(callerArea, 40),
    areas: top(inclusive, 40),
  };
}

function print(title, rows) {
  console.log(`\n${title}`);
  for (const r of rows) console.log(`  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(6)} ms  ${r.name}`);
}

async function main() {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  console.log(`Starting the service (state in ${dir})...`);
  service = await startService({
    port,
    inspectorPort,
    persistTo: join(dir, 'state'),
    envFile,
    // As `npm run bench` runs it: sessions and budgets out of the way of one platform's burst.
    vars: { LOG_LEVEL: 'warn', SERVICE_ENV: 'sandbox', API_PREFIX: '', SESSION_TTL_SECONDS: '86400', RATE_LIMITS: 'off' },
    extraArgs: ['--log-level', 'warn'],
    stdio: ['ignore', 'ignore', 'inherit'],
    quietMigrations: true,
  });
  const platform = await createPlatform(service.apiBase, secrets.OPERATOR_TOKEN);
  const ctx = {
    platform,
    api: async (method, path, body) => {
      const r = await fetch(`${service.apiBase}${path}`, {
        method,
        headers: { authorization: platform.auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : null };
    },
  };
  const pair = await fundedTransferPair(ctx);
  const body = JSON.stringify({ source: { accountId: pair.source }, destination: { accountId: pair.destination }, amount: 100 });
  const burst = (duration) =>
    autocannon({
      url: `${service.apiBase}/transfer-out`,
      connections: CONNECTIONS,
      duration,
      pipelining: 1,
      timeout: 60,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({
            ...req,
            body,
            headers: { authorization: platform.auth, 'content-type': 'application/json', 'idempotency-key': unique('p') },
          }),
        },
      ],
    });
  // One request first: a setup that does not transfer must fail here, not as a profile of errors.
  await must(ctx, 201, 'POST', '/transfer-out', JSON.parse(body), { 'idempotency-key': unique('p') });
  console.log(`Warm-up: ${WARMUP} s of transfer-outs at ${CONNECTIONS} connections`);
  await burst(WARMUP);
  await webhooksIdle(ctx);
  // The same burst unprofiled, and then the one-query reference Worker of `npm run bench` alone: workerd's CPU
  // a request of each, which the shared machine's load moves far less than their requests a second.
  const plain = await cpuOf(service.child, () => burst(SECONDS));
  await webhooksIdle(ctx);
  const reference = await referenceCpu(SECONDS);

  const sessions = [];
  for (const target of await isolates(inspectorPort)) {
    // One the inspector will not open (Miniflare's `#ASSETS` function binding answers 404) is left out.
    const session = await devtools(target.url).catch(() => undefined);
    if (session) sessions.push({ ...target, session });
  }
  for (const { session } of sessions) {
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  }
  console.log(`Profiling ${SECONDS} s of transfer-outs at ${CONNECTIONS} connections (sampling every ${INTERVAL_US} µs)`);
  const cpuBefore = workerdCpuSeconds(service.child);
  await Promise.all(sessions.map(({ session }) => session.send('Profiler.start')));
  const result = await burst(SECONDS);
  const profiles = await Promise.all(sessions.map(({ session }) => session.send('Profiler.stop')));
  const cpuSeconds = workerdCpuSeconds(service.child) - cpuBefore;
  const requests = result.requests.total;
  if (result.non2xx || result.errors || result.timeouts || !requests)
    throw new Error(`the burst had ${result.non2xx} non-2xx answers, ${result.errors + result.timeouts} errors, ${requests} requests`);

  const perRequest = (ms) => `${((ms / requests) * 1000).toFixed(0)} µs a request`;
  console.log(
    `\nUnprofiled, ${SECONDS} s at ${CONNECTIONS} connections each (workerd's CPU a request: the Worker, the local D1, the runtime):`,
  );
  console.log(`  POST /transfer-out: ${plain.reqPerSec.toFixed(0)} req/s, ${plain.cpuUs.toFixed(0)} µs a request`);
  console.log(`  one-query reference Worker: ${reference.reqPerSec.toFixed(0)} req/s, ${reference.cpuUs.toFixed(0)} µs a request`);
  console.log(
    `  ratio ${(plain.reqPerSec / reference.reqPerSec).toFixed(2)}x in requests a second, ${(reference.cpuUs / plain.cpuUs).toFixed(2)}x in CPU a request`,
  );
  console.log(`\n${requests} transfer-outs, ${result.requests.average.toFixed(0)} req/s (profiling slows them)`);
  console.log(
    `workerd's CPU: ${(cpuSeconds * 1000).toFixed(0)} ms (${perRequest(cpuSeconds * 1000)}); JavaScript time by isolate (native calls included):`,
  );
  const report = {
    requests,
    reqPerSec: result.requests.average,
    workerdCpuMs: cpuSeconds * 1000,
    unprofiled: plain,
    reference,
    isolates: {},
  };
  for (const [i, { id, session }] of sessions.entries()) {
    const { profile } = profiles[i];
    // The scripts' text, for the bundle's `// path` comments (Debugger.enable only now: it must not slow the burst).
    await session.send('Debugger.enable');
    const scripts = new Map();
    for (const url of new Set(profile.nodes.map((n) => n.callFrame.url).filter(Boolean))) {
      const node = profile.nodes.find((n) => n.callFrame.url === url);
      try {
        const { scriptSource } = await session.send('Debugger.getScriptSource', { scriptId: node.callFrame.scriptId });
        scripts.set(url, sourceFiles(scriptSource));
      } catch {
        // a script the debugger no longer has: named by its URL
      }
    }
    await session.send('Debugger.disable');
    session.close();
    const agg = aggregate(profile, (url, line) => scripts.get(url)?.(url, line) ?? url);
    report.isolates[id] = { profile, ...agg };
  }
  const ranked = Object.entries(report.isolates).sort((a, b) => b[1].busyMs - a[1].busyMs);
  for (const [id, agg] of ranked.filter(([, a]) => a.busyMs >= 1))
    console.log(`  ${agg.busyMs.toFixed(0).padStart(6)} ms  ${perRequest(agg.busyMs).padStart(18)}  ${id}`);
  for (const [id, agg] of ranked.filter(([, a]) => a.busyMs >= 0.05 * ranked[0][1].busyMs)) {
    const worker = id.startsWith('core:user:');
    console.log(`\n== ${id}`);
    print('Self time by function (share of the isolate busy time):', worker ? agg.functions : agg.functions.slice(0, 10));
    if (!worker) continue;
    print('Self time by source file:', agg.files);
    print('Self time by area (a native call counted to the JavaScript that made it):', agg.ownAreas);
    print('Inclusive time by area (a sample counts once for every area on its stack):', agg.areas);
  }
  if (flags.cpuprofile) {
    const [id, worker] = ranked.find(([x]) => x.startsWith('core:user:'));
    writeFileSync(flags.cpuprofile, JSON.stringify(worker.profile));
    console.log(`\nWrote ${flags.cpuprofile} (${id})`);
  }
  for (const agg of Object.values(report.isolates)) delete agg.profile;
  if (flags.write) writeSummary(report);
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);
  await webhooksIdle(ctx);
}

let code = 1;
try {
  await main();
  code = 0;
} catch (error) {
  console.error(error.stack ?? error);
} finally {
  await stopChild(service?.child);
}
process.exit(code);
