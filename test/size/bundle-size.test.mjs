// The size check itself (`node --test test/size/`, run by .ci/run): a budget the bundle breaks must fail the run.
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { test } from 'node:test';

const size = (...args) => spawnSync(process.execPath, ['scripts/bundle-size.mjs', ...args], { encoding: 'utf8' });

test('a budget below the bundle fails with exit 1 and says by how much', () => {
  const run = size('--budget', '1');
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /KiB gzip \(budget 1 KiB gzip/);
  assert.match(run.stderr, /over budget by [\d.]+ KiB gzip/);
});

test('a budget above the bundle passes', () => {
  const run = size('--budget', '100000');
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('an unreadable budget is a usage error, not a pass', () => {
  assert.equal(size('--budget', 'none').status, 2);
});
