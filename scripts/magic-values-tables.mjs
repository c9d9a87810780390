// Rewrites the magic-value tables of docs/sandbox.md from the document GET /sandbox/magic-values serves
// (src/sandbox/magic-values.ts; test/sandbox/magic-values.test.ts fails when the two differ). esbuild comes with wrangler.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = mkdtempSync(join(tmpdir(), 'magic-values-'));
const entry = join(dir, 'entry.ts');
writeFileSync(
  entry,
  `import { settings } from ${JSON.stringify(join(process.cwd(), 'src/env'))};
import { magicValues, magicValueTables } from ${JSON.stringify(join(process.cwd(), 'src/sandbox/magic-values'))};
export const tables = () => magicValueTables(magicValues(settings({ SERVICE_ENV: 'sandbox' } as never)));`,
);
const out = join(dir, 'magic-values.mjs');
await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'error' });
const { tables } = await import(pathToFileURL(out).href);
rmSync(dir, { recursive: true, force: true });
const page = 'docs/sandbox.md';
let readme = readFileSync(page, 'utf8');
for (const [name, table] of Object.entries(tables())) {
  const begin = `<!-- magic values: ${name} (npm run magic-values) -->\n`;
  const end = `\n<!-- end of magic values: ${name} -->`;
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`${page} has no markers for the magic values' ${name} table`);
  readme = readme.slice(0, from + begin.length) + table + readme.slice(to);
}
writeFileSync(page, readme);
console.log(`${page} magic-value tables updated`);
