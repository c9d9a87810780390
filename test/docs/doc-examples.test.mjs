// The docs checker itself (scripts/doc-examples.mjs): a page answering as documented passes, one documenting a
// wrong status or leaving a 4xx undocumented fails, naming the line, both statuses and the body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { documentedStatuses, extractCode } from '../../scripts/doc-examples.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('only sh fences run, and each "# NNN" documents the request above it', () => {
  const page = [
    '```sh',
    'A=$(curl -s x \\',
    '  -d y)',
    '# 201 made',
    '```',
    '```console',
    'curl z',
    '```',
    '  ```sh',
    '  curl w',
    '  # 404',
    '  ```',
  ];
  const code = extractCode('p.md', page.join('\n'));
  assert.deepEqual(
    code.map((c) => [c.line, c.code]),
    [
      [2, 'A=$(curl -s x \\'],
      [3, '  -d y)'],
      [4, '# 201 made'],
      [10, 'curl w'],
      [11, '# 404'],
    ],
  );
  const { requests, problems } = documentedStatuses(code);
  assert.deepEqual(
    [...requests.entries()],
    [
      [0, { status: 201, commentIndex: 2 }],
      [3, { status: 404, commentIndex: 4 }],
    ],
  );
  assert.deepEqual(problems, []);
  assert.equal(documentedStatuses(extractCode('p.md', '```sh\n# 200\n```')).problems.length, 1);
});

test('a fresh npm start per page: the right page passes, the wrong one fails with line, statuses and body', () => {
  const run = spawnSync(
    process.execPath,
    [join(root, 'scripts', 'doc-examples.mjs'), 'test/docs/fixtures/right.md', 'test/docs/fixtures/wrong.md'],
    { cwd: root, encoding: 'utf8', timeout: 300_000 },
  );
  const out = run.stdout;
  assert.equal(run.status, 1, out + run.stderr);
  assert.match(out, /^ok {3}test\/docs\/fixtures\/right\.md \(3 requests/m);
  assert.match(out, /^FAIL test\/docs\/fixtures\/wrong\.md \(2 requests/m);
  assert.match(out, /wrong\.md:6: documented 404, answered 200\n {2}curl -s -u "\$AUTH" "\$BASE\/config"/);
  assert.match(out, /wrong\.md:8: answered 404 and no "# NNN" line documents it[\s\S]*"code":"USER_NOT_FOUND"/);
  assert.match(out, /1 of 2 pages ran as documented/);
});
