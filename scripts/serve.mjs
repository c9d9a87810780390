#!/usr/bin/env node
// The Worker on this machine (scripts/lib/local-worker.mjs), as a process: `npm start` and the benches start it.
//   node scripts/serve.mjs --port 8787 [--ip 127.0.0.1] [--inspector-port N] [--config wrangler.toml]
//     [--persist-to DIR] [--env-file FILE] [--var NAME:VALUE]... [--log-level warn] [--log-requests] [--watch]
// Secrets come from --env-file, else .dev.vars (as `wrangler dev` reads them); --var overrides wrangler.toml [vars].
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { readDevVars, root } from './lib/service.mjs';
import { startLocalWorker } from './lib/local-worker.mjs';

const { values } = parseArgs({
  options: {
    config: { type: 'string', default: join(root, 'wrangler.toml') },
    ip: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '8787' },
    'inspector-port': { type: 'string' },
    'persist-to': { type: 'string', default: join(root, '.wrangler', 'state') },
    'env-file': { type: 'string', default: join(root, '.dev.vars') },
    var: { type: 'string', multiple: true, default: [] },
    'log-level': { type: 'string', default: 'info' },
    'log-requests': { type: 'boolean', default: false },
    watch: { type: 'boolean', default: false },
  },
});

const vars = {};
for (const item of values.var) {
  const colon = item.indexOf(':');
  if (colon <= 0) throw new Error(`--var ${item}: expected NAME:VALUE`);
  vars[item.slice(0, colon)] = item.slice(colon + 1);
}

const worker = await startLocalWorker({
  config: values.config,
  host: values.ip,
  port: Number(values.port),
  inspectorPort: values['inspector-port'] ? Number(values['inspector-port']) : undefined,
  persistTo: values['persist-to'],
  bindings: { ...readDevVars(values['env-file']), ...vars },
  logLevel: values['log-level'],
  logRequests: values['log-requests'],
  watch: values.watch,
}).catch((error) => {
  // A message for the project's own errors; the stack for a failed assertion inside a library, which says nothing else.
  console.error(error?.code === 'ERR_ASSERTION' ? error.stack : (error.message ?? error));
  process.exit(1);
});

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    worker.close().finally(() => process.exit(0));
  });
}
