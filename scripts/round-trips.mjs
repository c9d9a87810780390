#!/usr/bin/env node
// `npm run round-trips`: the D1 round trips, account (Durable Object) calls and D1 rows read and written of
// every operation of /openapi.json on its success path, on a platform seeded with 20,000 rows per list,
// measured by test/perf/route-budgets.test.ts (the service's own D1 meter, src/db/meter.ts), with each
// operation's budgets. Prints the table; `--write` also puts it into docs/engineering/performance.md between its round-trips markers.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const run = spawnSync('npx', ['vitest', 'run', '--config', 'test/vitest.config.ts', 'test/perf/route-budgets.test.ts'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const output = `${run.stdout}\n${run.stderr}`;
const table = output.match(/ROUND-TRIPS-TABLE-START\n([\s\S]*?)\nROUND-TRIPS-TABLE-END/)?.[1];
if (run.status !== 0 || !table) {
  console.error(output);
  console.error(run.status !== 0 ? 'The budgets test failed (above).' : 'The test printed no table.');
  process.exit(1);
}
console.log(table);
if (process.argv.includes('--write')) {
  const readme = join(root, 'docs', 'engineering', 'performance.md');
  const text = readFileSync(readme, 'utf8');
  const start = '<!-- round-trips:start -->';
  const end = '<!-- round-trips:end -->';
  const [before, rest] = text.split(start);
  if (rest === undefined || !rest.includes(end)) throw new Error(`docs/engineering/performance.md has no ${start} ... ${end} section`);
  writeFileSync(readme, `${before}${start}\n${table}\n${end}${rest.slice(rest.indexOf(end) + end.length)}`);
  console.error('docs/engineering/performance.md updated.');
}
