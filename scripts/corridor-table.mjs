// Rewrites the corridor table of docs/guides/external-accounts.md from the declarations in src/external-accounts/corridors/
// (test/accounts/readme.test.ts fails when the two differ). esbuild comes with wrangler.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const out = join(mkdtempSync(join(tmpdir(), 'corridors-')), 'corridors.mjs');
await build({
  entryPoints: ['src/external-accounts/corridors/index.ts'],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  outfile: out,
  logLevel: 'error',
});
const { corridorTable } = await import(pathToFileURL(out).href);
const readme = readFileSync('docs/guides/external-accounts.md', 'utf8');
const begin = '<!-- corridor table: npm run corridors -->\n';
const end = '\n<!-- end of corridor table -->';
const from = readme.indexOf(begin);
const to = readme.indexOf(end, from);
if (from < 0 || to < 0) throw new Error('docs/guides/external-accounts.md has no corridor table markers');
writeFileSync('docs/guides/external-accounts.md', readme.slice(0, from + begin.length) + corridorTable() + readme.slice(to));
console.log('docs/guides/external-accounts.md corridor table updated');
