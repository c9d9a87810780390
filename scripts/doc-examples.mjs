#!/usr/bin/env node
// `npm run docs:check [page…]`: runs the documentation's examples and checks every documented status
// (docs/README.md, "Runnable docs"). Each page (README.md, every docs/**/*.md, docs/quickstart.sh; or the pages
// named) gets a fresh `npm start` on its own free port and throwaway state, then its ```sh blocks run in order as
// one bash script (`set -euo pipefail`) from a scratch directory whose `.sandbox/` is that instance's state and
// whose other entries link to the repository (so `docs/…`, `examples/…`, `scripts/…` resolve; a developer's own
// .sandbox/.wrangler/.dev.vars are never touched). `curl` is wrapped: each call's real status is recorded
// (from its response headers, its output unchanged) with the script line it ran on. A `# NNN` comment line
// documents the status of the request just before it; a documented status that differs, a 4xx/5xx nobody
// documented, a documented request that never ran, or a script that stops on an error fails the page, printing
// the page's line, the command, expected and real status and the answer's body. Two pages run at a time.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Pages run at once: each is a Worker plus its script, and the machines this runs on have two cores. */
const PARALLEL = 2;
const START_TIMEOUT_MS = 120_000;
const PAGE_TIMEOUT_MS = 10 * 60_000;
/** Entries of the repository a page's scratch directory does not link: local state belongs to the developer. */
const PRIVATE_ENTRIES = new Set(['.git', '.sandbox', '.wrangler', '.dev.vars']);

const DOCUMENTED = /^\s*#\s(\d{3})(\s|$)/;
const CURL = /(^|[\s;|&(`{])curl(\s|$)/;

/**
 * The code a page runs, as lines with their place on the page: for a Markdown page its ```sh fences (the fence's
 * indentation removed), for a shell script the whole file.
 */
export function extractCode(page, text) {
  const lines = text.split('\n');
  if (!page.endsWith('.md')) return lines.map((code, i) => ({ code, line: i + 1 }));
  const out = [];
  let indent = null;
  lines.forEach((raw, i) => {
    if (indent === null) {
      const open = /^(\s*)```sh\s*$/.exec(raw);
      if (open) indent = open[1].length;
    } else if (/^\s*```\s*$/.test(raw)) {
      indent = null;
    } else {
      out.push({ code: raw.slice(Math.min(indent, raw.length - raw.trimStart().length)), line: i + 1 });
    }
  });
  return out;
}

/**
 * The page's requests and their documented statuses: `requests` maps the index of each line where a curl
 * command starts to `{status?, commentIndex?}`; a `# NNN` line documents the nearest request above it.
 * `problems` lists comments that document nothing (none above, or a request documented twice).
 */
export function documentedStatuses(code) {
  const requests = new Map();
  const problems = [];
  let last = null;
  code.forEach(({ code: text, line }, i) => {
    const doc = DOCUMENTED.exec(text);
    if (doc) {
      if (last === null) problems.push({ line, message: `"# ${doc[1]}" follows no request` });
      else if (requests.get(last).status) problems.push({ line, message: `"# ${doc[1]}" documents a request already documented` });
      else requests.set(last, { status: Number(doc[1]), commentIndex: i });
      return;
    }
    if (/^\s*#/.test(text)) return;
    if (CURL.test(text)) {
      last = i;
      requests.set(i, {});
    }
  });
  return { requests, problems };
}

/** The curl wrapper every page script sources: records `<script line>\t<status>\t<body file>\t<exit code>`. */
const CURL_WRAPPER = `
curl() {
  local hdr body rc=0 status
  hdr=$(mktemp "$DOCS_CHECK_DIR/headers.XXXXXX")
  body=$(mktemp "$DOCS_CHECK_DIR/body.XXXXXX")
  { command curl -D "$hdr" "$@" | tee "$body"; } || rc=$?
  status=$(grep -aE '^HTTP/[0-9.]+ [0-9]{3}' "$hdr" | tail -n 1 | cut -d' ' -f2)
  printf '%s\\t%s\\t%s\\t%s\\n' "\${BASH_LINENO[0]}" "\${status:-000}" "$body" "$rc" >>"$DOCS_CHECK_LOG"
  return "$rc"
}
`;
/** Lines before the page's own code in its script. */
const PREAMBLE = ['set -euo pipefail', 'source "$DOCS_CHECK_DIR/curl.sh"'];

/** Compares what ran with what the page documents; returns the failures as text. */
export function judge({ page, code, calls, exitCode, stderr }) {
  const { requests, problems } = documentedStatuses(code);
  const failures = problems.map((p) => `${page}:${p.line}: ${p.message}`);
  const starts = [...requests.keys()];
  // The request's lines: from its first up to its status comment, the next request or 8 lines.
  const commandAt = (i) => {
    const lines = [code[i].code];
    for (let j = i + 1; j < Math.min(code.length, i + 8); j++) {
      if (DOCUMENTED.test(code[j].code) || requests.has(j)) break;
      lines.push(code[j].code);
    }
    return lines.join('\n');
  };
  const bodyOf = (file) => {
    try {
      const text = readFileSync(file, 'utf8');
      return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
    } catch {
      return '';
    }
  };
  const ran = new Set();
  for (const call of calls) {
    const index = call.scriptLine - 1 - PREAMBLE.length;
    const start = starts.filter((s) => s <= index).pop();
    if (start === undefined) continue;
    ran.add(start);
    const expected = requests.get(start).status;
    const where = `${page}:${code[start].line}`;
    const detail = `  ${commandAt(start).split('\n').join('\n  ')}\n  body: ${bodyOf(call.body).trim() || '(empty, or written elsewhere by -o)'}`;
    if (expected && expected !== call.status) {
      failures.push(`${where}: documented ${expected}, answered ${call.status}\n${detail}`);
    } else if (!expected && (call.status >= 400 || call.status === 0)) {
      failures.push(`${where}: answered ${call.status || 'nothing'} and no "# NNN" line documents it\n${detail}`);
    }
  }
  if (exitCode !== 0) {
    const last = calls.at(-1);
    failures.push(
      `${page}: the script stopped with exit code ${exitCode}` +
        (last
          ? ` after the request at ${page}:${code[starts.filter((s) => s <= last.scriptLine - 1 - PREAMBLE.length).pop() ?? 0]?.line}`
          : '') +
        `\n  stderr: ${stderr.trim().split('\n').slice(-15).join('\n  ')}`,
    );
  } else {
    for (const [start, r] of requests) {
      if (r.status && !ran.has(start)) failures.push(`${page}:${code[start].line}: documents ${r.status} but the request never ran`);
    }
  }
  return failures;
}

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });

/** Process groups started here and still running: stopped when the checker itself is interrupted. */
const live = new Set();
/** Scratch directories of pages still running, removed on an interruption too. */
const scratch = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of live) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Stops a detached child and everything it started (its process group). */
async function stopGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
    return;
  }
  const exited = new Promise((r) => child.once('close', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {}
  if ((await Promise.race([exited.then(() => true), sleep(5000)])) !== true) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
    await exited;
  }
}

/** A fresh `npm start` (scripts/dev.mjs) on a free port with its state in `stateDir`; resolves once its credentials exist. */
async function startService(stateDir) {
  const port = await freePort();
  const log = [];
  const child = spawn(process.execPath, [join(root, 'scripts', 'dev.mjs')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), STATE_DIR: stateDir },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child.pid);
  child.on('close', () => live.delete(child.pid));
  child.stdout.on('data', (d) => log.push(d));
  child.stderr.on('data', (d) => log.push(d));
  const credentials = join(stateDir, 'credentials.json');
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!existsSync(credentials)) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${Buffer.concat(log).toString()}`);
    if (Date.now() > deadline) {
      await stopGroup(child);
      throw new Error(`npm start gave no credentials in ${START_TIMEOUT_MS / 1000} s:\n${Buffer.concat(log).toString()}`);
    }
    await sleep(200);
  }
  return { child, port, log };
}

/** Runs one page against its own instance; resolves to `{page, failures, requests, seconds}`. */
async function checkPage(path) {
  const page = relative(root, path).startsWith('..') ? path : relative(root, path);
  const began = Date.now();
  const code = extractCode(path, readFileSync(path, 'utf8'));
  // A page with nothing to run needs no instance.
  if (!code.some((c) => c.code.trim() && !/^\s*#/.test(c.code))) return { page, failures: [], requests: 0, seconds: 0 };
  const work = mkdtempSync(join(tmpdir(), 'docs-check-'));
  scratch.add(work);
  const cwd = join(work, 'cwd');
  const stateDir = join(work, 'state');
  const checkDir = join(work, 'check');
  for (const d of [cwd, stateDir, checkDir]) mkdirSync(d);
  for (const entry of readdirSync(root)) if (!PRIVATE_ENTRIES.has(entry)) symlinkSync(join(root, entry), join(cwd, entry));
  symlinkSync(stateDir, join(cwd, '.sandbox'));
  writeFileSync(join(checkDir, 'curl.sh'), CURL_WRAPPER);
  const script = join(checkDir, 'page.sh');
  writeFileSync(script, `${[...PREAMBLE, ...code.map((c) => c.code)].join('\n')}\n`);
  const logFile = join(checkDir, 'calls.tsv');
  writeFileSync(logFile, '');
  let service;
  try {
    service = await startService(stateDir);
    const run = spawn('bash', [script], {
      cwd,
      env: { ...process.env, STATE_DIR: stateDir, PORT: String(service.port), DOCS_CHECK_DIR: checkDir, DOCS_CHECK_LOG: logFile },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(run.pid);
    let stdout = '';
    let stderr = '';
    run.stdout.on('data', (d) => (stdout += d));
    run.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n(stopped after ${PAGE_TIMEOUT_MS / 1000} s)`;
      stopGroup(run);
    }, PAGE_TIMEOUT_MS);
    const exitCode = await new Promise((r) => run.on('close', (c, signal) => r(c ?? (signal ? 128 : 1))));
    clearTimeout(timer);
    // Whatever the page left running in the background (a webhook receiver it forgot to stop).
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {}
    live.delete(run.pid);
    const calls = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((row) => {
        const [line, status, body, rc] = row.split('\t');
        return { scriptLine: Number(line), status: Number(status), body, rc: Number(rc) };
      });
    const failures = judge({ page, code, calls, exitCode, stderr });
    if (failures.length && process.env.DOCS_CHECK_VERBOSE) failures.push(`stdout of ${page}:\n${stdout}`);
    return { page, failures, requests: calls.length, seconds: (Date.now() - began) / 1000 };
  } catch (error) {
    return { page, failures: [`${page}: ${error.message}`], requests: 0, seconds: (Date.now() - began) / 1000 };
  } finally {
    if (service) await stopGroup(service.child);
    rmSync(work, { recursive: true, force: true });
    scratch.delete(work);
  }
}

/** README.md, every docs/**\/*.md, docs/quickstart.sh. */
function allPages() {
  const pages = [join(root, 'README.md')];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  if (existsSync(join(root, 'docs', 'quickstart.sh'))) pages.push(join(root, 'docs', 'quickstart.sh'));
  return pages;
}

async function main() {
  for (const tool of ['bash', 'curl', 'jq']) {
    const probe = spawn('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    if ((await new Promise((r) => probe.on('close', r))) !== 0) {
      console.error(`docs:check needs ${tool} on the PATH`);
      process.exit(2);
    }
  }
  const args = process.argv.slice(2);
  const pages = args.length ? args.map((a) => resolve(a)) : allPages();
  const missing = pages.filter((p) => !existsSync(p));
  if (missing.length) {
    console.error(`No such page: ${missing.join(', ')}`);
    process.exit(2);
  }
  const began = Date.now();
  const queue = [...pages];
  const results = [];
  // Pages that start the webhook receiver listen on its documented port (8790): one such page at a time.
  let receiverFree = Promise.resolve();
  const usesReceiver = (path) => readFileSync(path, 'utf8').includes('webhook-receiver.mjs');
  const exclusive = async (path) => {
    if (!usesReceiver(path)) return checkPage(path);
    const previous = receiverFree;
    let release;
    receiverFree = new Promise((r) => (release = r));
    await previous;
    try {
      return await checkPage(path);
    } finally {
      release();
    }
  };
  const worker = async () => {
    for (let path = queue.shift(); path; path = queue.shift()) {
      const result = await exclusive(path);
      results.push(result);
      const head = `${result.failures.length ? 'FAIL' : 'ok  '} ${result.page} (${result.requests} request${result.requests === 1 ? '' : 's'}, ${result.seconds.toFixed(1)} s)`;
      console.log(result.failures.length ? `${head}\n${result.failures.join('\n')}\n` : head);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, pages.length) }, worker));
  const failed = results.filter((r) => r.failures.length);
  console.log(
    `${results.length - failed.length} of ${results.length} pages ran as documented in ${((Date.now() - began) / 1000).toFixed(1)} s` +
      (failed.length ? `; failing: ${failed.map((r) => r.page).join(', ')}` : ''),
  );
  process.exit(failed.length ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
