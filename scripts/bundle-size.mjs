// `npm run size`: builds the Worker as `wrangler deploy` would (dry run, nothing uploaded), gzips each module it
// would upload and fails when their sum is above the budget. `--budget <KiB>` overrides the budget (CI checks
// that a tiny one fails).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

// The budget, in KiB of gzip (docs/deployment.md).
const BUDGET_KIB = 360;

const flag = process.argv.indexOf('--budget');
const budget = flag === -1 ? BUDGET_KIB : Number(process.argv[flag + 1]);
if (!(budget > 0)) {
  console.error('usage: node scripts/bundle-size.mjs [--budget <KiB>]');
  process.exit(2);
}

const outdir = mkdtempSync(join(tmpdir(), 'bundle-size-'));
try {
  const build = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir], { encoding: 'utf8' });
  if (build.status !== 0) {
    console.error(build.stdout, build.stderr);
    console.error('wrangler deploy --dry-run failed');
    process.exit(1);
  }
  // What is uploaded: the Worker and its text modules, not the source map or wrangler's README.
  const modules = readdirSync(outdir).filter((name) => !name.endsWith('.map') && name !== 'README.md');
  let raw = 0;
  let gzip = 0;
  for (const name of modules) {
    const bytes = readFileSync(join(outdir, name));
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  const kib = (n) => (n / 1024).toFixed(2);
  console.log(`Worker bundle: ${kib(raw)} KiB, ${kib(gzip)} KiB gzip (budget ${budget} KiB gzip, ${modules.length} modules)`);
  if (gzip > budget * 1024) {
    console.error(`over budget by ${kib(gzip - budget * 1024)} KiB gzip`);
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
