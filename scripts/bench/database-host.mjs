// Bench only (`npm run bench:homes`, scripts/lib/local-worker.mjs bundles it in place of src/index.ts): the
// service's Worker, plus a door through which another local runtime uses this runtime's database. Locally every
// D1 database executes on the thread of the runtime that binds it; a deployment's databases each run apart from
// the Worker. The bench gives each runtime's `DB` as Miniflare's remote binding (a `remoteProxyConnectionString`
// naming a runtime's URL): its D1 calls arrive here as HTTP requests marked `MF-Binding`, and run on this
// runtime's own database, `BENCH_DATABASE`. So which process executes a database's SQL is the bench's choice.
import worker from '../../src/index.ts';

export * from '../../src/index.ts';

/** The header prefix under which Miniflare's remote binding client sends the D1 request's own headers. */
const FORWARDED = 'mf-header-';

export default {
  ...worker,
  fetch(request, env, ctx) {
    if (!request.headers.has('MF-Binding')) return worker.fetch(request, env, ctx);
    const headers = new Headers();
    for (const [name, value] of request.headers) if (name.startsWith(FORWARDED)) headers.set(name.slice(FORWARDED.length), value);
    // The wrapped D1 binding's own fetcher: the database's wire protocol, untouched (sessions and bookmarks too).
    return env.BENCH_DATABASE.fetcher.fetch(request.headers.get('MF-URL'), new Request(request, { headers }));
  },
};
