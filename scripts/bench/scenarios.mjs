// Scenarios and targets of `npm run bench` (scripts/bench.mjs).
//
// A scenario is `{ name, server?, setup(ctx) }`:
//   - `server`: 'service' (default), or a reference Worker: 'empty' or 'd1'.
//   - `setup(ctx)` runs once before the warm-up and returns the request to repeat:
//     `{ method?, path, headers?, body? }` (path relative to the API base for the service, to the origin
//     for a reference Worker), or `{ requests: [...] }` for a multi-step sequence in autocannon's format
//     (each step may have `setupRequest(req, context)` and `onResponse(status, body, context)`; this is how
//     a challenge-then-signed-retry pair, or a cursor walk, is driven per connection).
//   - Alternatively `measure(ctx)` instead of `setup`: a one-shot timed scenario (no autocannon) that
//     returns `{ ms }`, run `runs` times; used for work measured to completion rather than in req/s.
// `ctx` gives: `api(method, path, body?, headers?)` -> `{status, body}` as the bench platform,
// `platform` `{platformId, clientId, clientSecret, tokenId, auth}`, `operatorToken`, `apiBase`, `origins`.
// Each scenario must answer 2xx; the bench flags any non-2xx or socket error.
//
// Scenarios to add once the endpoint exists (setup data per issue 7; add each as a real entry below):
//   - 'GET /uma-providers page 1' and 'GET /uma-providers page 100': 10,000 directory rows; page 100
//     reached by following nextCursor 99 times in setup, then the same cursor repeated.
//   - 'POST /customers': a fresh platformCustomerId per request (autocannon `requests[].setupRequest`).
//   - 'GET /transactions/{id}': one transaction created (and settled) in setup.
//   - 'wallet privacy challenge' (unsigned first step, 202) and 'wallet privacy signed retry': an embedded
//     wallet with an active session whose key the bench holds; each connection takes a challenge, stamps
//     payloadToSign with @turnkey/api-key-stamper (real ECDSA) and sends the retry (`requests` pair).
//   - 'EMAIL_OTP verify (session)': sandbox OTP verify issuing a session (HPKE seal) per request.
//   - 'transfer-out': customers with funded accounts; one small transfer per request.
//   - 'bulk import 10,000 rows': `measure(ctx)`: upload a 10,000-row CSV, poll the job until COMPLETED.
// The targets below already name these scenarios; a target whose scenarios are missing prints "not measured".

/** @type {Array<{name: string, server?: 'service'|'empty'|'d1', setup?: (ctx: any) => Promise<object>|object, measure?: (ctx: any) => Promise<{ms: number}>}>} */
export const scenarios = [
  {
    name: 'reference: empty Worker',
    server: 'empty',
    setup: () => ({ path: '/' }),
  },
  {
    name: 'reference: one D1 PK SELECT',
    server: 'd1',
    setup: () => ({ path: '/?id=item-42' }),
  },
  {
    name: 'GET /config',
    setup: (ctx) => ({ path: '/config', headers: { authorization: ctx.platform.auth } }),
  },
  {
    name: 'GET /tokens/{id}',
    setup: async (ctx) => {
      const r = await ctx.api('POST', '/tokens', { name: 'bench read target', permissions: ['VIEW'] });
      if (r.status !== 201) throw new Error(`creating the token to read failed: ${r.status} ${JSON.stringify(r.body)}`);
      return { path: `/tokens/${r.body.id}`, headers: { authorization: ctx.platform.auth } };
    },
  },
];

/**
 * Targets of issue 7, judged on the 32-connection figures (throughput) unless `connections` says otherwise.
 * kind 'ratio': req/s of `numerator` / req/s of `denominator` >= `min`.
 * kind 'seconds': median ms of the timed `scenario` <= `max` seconds.
 * kind 'p99': every service scenario's median p99 at `connections` <= `maxMs`.
 */
export const targets = [
  { name: 'GET /config vs one-query reference Worker', kind: 'ratio', numerator: 'GET /config', denominator: 'reference: one D1 PK SELECT', min: 0.8, connections: 32 },
  { name: 'uma-providers page 100 vs page 1 (within 1.2x)', kind: 'ratio', numerator: 'GET /uma-providers page 100', denominator: 'GET /uma-providers page 1', min: 1 / 1.2, connections: 32 },
  { name: 'signed retry vs its unsigned first step', kind: 'ratio', numerator: 'wallet privacy signed retry', denominator: 'wallet privacy challenge', min: 0.5, connections: 32 },
  { name: 'session issuance vs GET /config', kind: 'ratio', numerator: 'EMAIL_OTP verify (session)', denominator: 'GET /config', min: 0.5, connections: 32 },
  { name: '10,000-row bulk import to COMPLETED', kind: 'seconds', scenario: 'bulk import 10,000 rows', max: 60 },
  { name: 'no service request above 50 ms p99 at 1 connection', kind: 'p99', maxMs: 50, connections: 1 },
];
