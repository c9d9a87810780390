// Scenarios and targets of `npm run bench` (scripts/bench.mjs).
//
// A scenario is `{ name, server?, note?, settle?, setup(ctx) }`:
//   - `server`: 'service' (default), or a reference Worker: 'empty' or 'd1'.
//   - `note`: a line printed under the table (what a row measures when it is not one request).
//   - `settle(ctx)`: awaited after each of its runs, until the background work the run queued is done.
// Load scenarios run interleaved (a round runs each once; see scripts/bench.mjs), timed ones at the end.
//   - `setup(ctx)` runs once before the warm-up and returns the request to repeat:
//     `{ method?, path, headers?, body? }` (path relative to the API base for the service, to the origin
//     for a reference Worker), or `{ requests: [...] }` for a multi-step sequence in autocannon's format
//     (each step may have `setupRequest(req, context)` and `onResponse(status, body, context)`), or
//     `{ loop: async (client) => ... }` for steps that need async client work between requests (autocannon's
//     hooks are synchronous): scripts/bench/loop.mjs runs it back to back on each connection, and
//     `client.request(method, path, {headers, body, label})` (path relative to the API base) resolves with
//     `{status, text, ms}`; figures are per request, with p50/p99 per `label` and steps per second.
//   - Alternatively `measure(ctx)` instead of `setup`: a one-shot timed scenario (no autocannon) that
//     returns `{ ms }`, run `runs` times; used for work measured to completion rather than in req/s.
// `ctx` gives: `api(method, path, body?, headers?)` -> `{status, body}` as the bench platform,
// `platform` `{platformId, clientId, clientSecret, tokenId, auth}`, `operatorToken`, `apiBase`, `origins`.
// Each scenario must answer 2xx; the bench flags any non-2xx or socket error.
import { SANDBOX_PLATFORM } from '../lib/service.mjs';
import {
  customerBody,
  customersCsv,
  benchAgent,
  customerWithAccounts,
  emailCredential,
  freshClientPublicKey,
  fundedTransferPair,
  loadUmaProviders,
  must,
  openSession,
  umaProvidersCursor,
  unique,
  webhooksIdle,
} from './fixtures.mjs';

const UMA_PROVIDERS = 10_000;
const BULK_ROWS = 10_000;

/** Setup shared by several scenarios, made once per bench run. */
const once = (make) => {
  let value;
  return (ctx) => (value ??= make(ctx));
};
const umaDirectory = once((ctx) => loadUmaProviders(ctx, UMA_PROVIDERS));
const wallet = once(async (ctx) => {
  const { customer, accounts } = await customerWithAccounts(ctx);
  const credential = await emailCredential(ctx, accounts.wallet);
  return { customer, accountId: accounts.wallet, credential, ...(await openSession(ctx, credential.id)) };
});

/** Both steps of the privacy update: the unsigned request answers 202 with what to sign. */
async function privacyChallenge(client, ctx, accountId) {
  const r = await client.request('PATCH', `/internal-accounts/${accountId}`, {
    headers: { authorization: ctx.platform.auth },
    body: { privateEnabled: true },
    label: 'challenge',
  });
  if (r.status !== 202) throw new Error(`challenge: ${r.status} ${r.text}`);
  return JSON.parse(r.text);
}

/** @type {Array<{name: string, server?: 'service'|'empty'|'d1', note?: string, settle?: (ctx: any) => Promise<void>, setup?: (ctx: any) => Promise<object>|object, measure?: (ctx: any) => Promise<{ms: number}>}>} */
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
  {
    name: 'GET /uma-providers page 1',
    setup: async (ctx) => {
      await umaDirectory(ctx);
      return { path: '/uma-providers', headers: { authorization: ctx.platform.auth } };
    },
  },
  {
    name: 'GET /uma-providers page 100',
    note: `page 100 of ${UMA_PROVIDERS.toLocaleString('en')} providers at the default limit 20: the cursor from following nextCursor 99 times, repeated`,
    setup: async (ctx) => {
      await umaDirectory(ctx);
      const cursor = await umaProvidersCursor(ctx, 100);
      return { path: `/uma-providers?cursor=${encodeURIComponent(cursor)}`, headers: { authorization: ctx.platform.auth } };
    },
  },
  {
    name: 'POST /customers',
    note: 'a new platformCustomerId per request; each customer gets its internal accounts (one per platform currency)',
    setup: (ctx) => ({
      requests: [
        {
          method: 'POST',
          path: '/customers',
          headers: { authorization: ctx.platform.auth, 'content-type': 'application/json' },
          setupRequest: (req) => ({ ...req, body: JSON.stringify(customerBody(unique('c'))) }),
        },
      ],
    }),
  },
  {
    name: 'GET /transactions/{id}',
    note: 'a completed transfer-out made in setup',
    setup: async (ctx) => {
      const pair = await fundedTransferPair(ctx, 1_000_000);
      const t = await must(
        ctx,
        201,
        'POST',
        '/transfer-out',
        { source: { accountId: pair.source }, destination: { accountId: pair.destination }, amount: 10_000 },
        {
          'idempotency-key': unique('setup'),
        },
      );
      if (t.status !== 'COMPLETED') throw new Error(`the setup transfer is ${t.status}, not COMPLETED`);
      return { path: `/transactions/${t.id}`, headers: { authorization: ctx.platform.auth } };
    },
  },
  {
    name: 'wallet privacy challenge',
    note: 'the unsigned first step of PATCH /internal-accounts/{id} {privateEnabled: true} (202 with payloadToSign); node:http loop driver',
    setup: async (ctx) => {
      const w = await wallet(ctx);
      return { loop: (client) => privacyChallenge(client, ctx, w.accountId) };
    },
  },
  {
    name: 'wallet privacy signed retry',
    note:
      'one step = the challenge, then the retry stamped with ApiKeyStamper (real ECDSA) with Service-Wallet-Signature and Request-Id; ' +
      'req/s counts both requests; the retry alone is derived in the targets as 1 / (2/R - 1/C), R this row, C the challenge row; node:http loop driver',
    setup: async (ctx) => {
      const w = await wallet(ctx);
      return {
        loop: async (client) => {
          const challenge = await privacyChallenge(client, ctx, w.accountId);
          const { stampHeaderValue } = await w.stamper.stamp(challenge.payloadToSign);
          const r = await client.request('PATCH', `/internal-accounts/${w.accountId}`, {
            headers: { authorization: ctx.platform.auth, 'service-wallet-signature': stampHeaderValue, 'request-id': challenge.requestId },
            body: { privateEnabled: true },
            label: 'retry',
          });
          if (r.status !== 200) throw new Error(`signed retry: ${r.status} ${r.text}`);
        },
      };
    },
  },
  {
    name: 'EMAIL_OTP verify (session)',
    note: 'sandbox OTP 000000 (the OTP re-issue limit concerns challenges, not verify); a fresh clientPublicKey per request, the session key HPKE-sealed to it',
    setup: async (ctx) => {
      const w = await wallet(ctx);
      return {
        requests: [
          {
            method: 'POST',
            path: `/auth/credentials/${w.credential.id}/verify`,
            headers: { authorization: ctx.platform.auth, 'content-type': 'application/json' },
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ type: 'EMAIL_OTP', otp: '000000', clientPublicKey: freshClientPublicKey() }),
            }),
          },
        ],
      };
    },
  },
  {
    name: 'transfer-out',
    note: '1.00 USD per request from a funded account to a bank account ending in 001 (completes at once), a new Idempotency-Key each; each run waits for its webhooks to be processed',
    // Each transfer queues webhook deliveries (no endpoint is set: each is marked SKIPPED); let them finish.
    settle: webhooksIdle,
    setup: async (ctx) => {
      const pair = await fundedTransferPair(ctx);
      const body = JSON.stringify({ source: { accountId: pair.source }, destination: { accountId: pair.destination }, amount: 100 });
      return {
        requests: [
          {
            method: 'POST',
            path: '/transfer-out',
            setupRequest: (req) => ({
              ...req,
              body,
              headers: { authorization: ctx.platform.auth, 'content-type': 'application/json', 'idempotency-key': unique('t') },
            }),
          },
        ],
      };
    },
  },
  {
    name: 'GET /customers/{id}',
    setup: async (ctx) => {
      const c = await must(ctx, 201, 'POST', '/customers', customerBody(unique('read')));
      return { path: `/customers/${c.id}`, headers: { authorization: ctx.platform.auth } };
    },
  },
  {
    name: 'GET /customers page',
    note: 'the first page (limit 20) with its totalCount, over every customer the bench made',
    setup: (ctx) => ({ path: '/customers?limit=20', headers: { authorization: ctx.platform.auth } }),
  },
  {
    name: 'agent transfer-out (AUTO)',
    note: "POST /agents/me/transfer-out with the agent's bearer token: 1.00 USD under the policy's approval threshold, executed at once; each run waits for its webhooks",
    settle: webhooksIdle,
    setup: async (ctx) => {
      const a = await benchAgent(ctx, 1_000_000);
      const body = JSON.stringify({ source: { accountId: a.source }, destination: { accountId: a.destination }, amount: 100 });
      return {
        requests: [
          {
            method: 'POST',
            path: '/agents/me/transfer-out',
            setupRequest: (req) => ({ ...req, body, headers: { authorization: a.bearer, 'content-type': 'application/json' } }),
          },
        ],
      };
    },
  },
  {
    name: 'agent action approval',
    note: "one step = the agent's transfer-out above the approval threshold (PENDING_APPROVAL), then the platform's POST /agents/{agentId}/actions/{actionId}/approve; req/s counts both; node:http loop driver",
    settle: webhooksIdle,
    setup: async (ctx) => {
      const a = await benchAgent(ctx, 50);
      const body = { source: { accountId: a.source }, destination: { accountId: a.destination }, amount: 100 };
      return {
        loop: async (client) => {
          const pending = await client.request('POST', '/agents/me/transfer-out', {
            headers: { authorization: a.bearer },
            body,
            label: 'submit',
          });
          if (pending.status !== 201) throw new Error(`agent transfer-out: ${pending.status} ${pending.text}`);
          const action = JSON.parse(pending.text);
          const approved = await client.request('POST', `/agents/${a.agentId}/actions/${action.id}/approve`, {
            headers: { authorization: ctx.platform.auth },
            label: 'approve',
          });
          if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${approved.text}`);
        },
      };
    },
  },
  {
    name: 'bulk import 10,000 rows',
    note: `POST /customers/bulk/csv with ${BULK_ROWS.toLocaleString('en')} new customers, then GET /customers/bulk/jobs/{jobId} every 250 ms until COMPLETED`,
    measure: async (ctx) => {
      const csv = customersCsv(BULK_ROWS, SANDBOX_PLATFORM.umaDomain);
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'customers.csv');
      const started = performance.now();
      const r = await fetch(`${ctx.apiBase}/customers/bulk/csv`, {
        method: 'POST',
        headers: { authorization: ctx.platform.auth },
        body: form,
      });
      const accepted = await r.json();
      if (r.status !== 202) throw new Error(`bulk upload: ${r.status} ${JSON.stringify(accepted)}`);
      for (;;) {
        const job = await must(ctx, 200, 'GET', `/customers/bulk/jobs/${accepted.jobId}`);
        if (job.status === 'COMPLETED' || job.status === 'FAILED') {
          const ms = performance.now() - started;
          if (job.status !== 'COMPLETED' || job.progress.successful !== BULK_ROWS) {
            throw new Error(
              `bulk import ended ${job.status} with ${JSON.stringify(job.progress)}: ${JSON.stringify(job.errors.slice(0, 3))}`,
            );
          }
          return { ms };
        }
        if (performance.now() - started > 600_000)
          throw new Error(`bulk import still ${job.status} after 10 min: ${JSON.stringify(job.progress)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  },
];

/**
 * Targets of issue 7, judged on the 32-connection figures (throughput) unless `connections` says otherwise.
 * kind 'ratio': req/s of `numerator` / req/s of `denominator` >= `min`.
 * kind 'pair': `pair` runs a first step and its retry back to back (R req/s, both counted), `first` the first
 *   step alone (C req/s); one pair takes 2/R s of service time, so the retry alone runs at 1 / (2/R - 1/C)
 *   req/s, and its throughput relative to the first step is that / C = 1 / (2C/R - 1) >= `min`.
 * kind 'seconds': median ms of the timed `scenario` <= `max` seconds.
 * kind 'p99': every service scenario's median p99 at `connections` <= `maxMs`.
 */
export const targets = [
  {
    name: 'GET /config vs one-query reference Worker',
    kind: 'ratio',
    numerator: 'GET /config',
    denominator: 'reference: one D1 PK SELECT',
    min: 0.8,
    connections: 32,
  },
  {
    name: 'uma-providers page 100 vs page 1 (within 1.2x)',
    kind: 'ratio',
    numerator: 'GET /uma-providers page 100',
    denominator: 'GET /uma-providers page 1',
    min: 1 / 1.2,
    connections: 32,
  },
  {
    name: 'signed retry vs its unsigned first step',
    kind: 'pair',
    pair: 'wallet privacy signed retry',
    first: 'wallet privacy challenge',
    min: 0.5,
    connections: 32,
  },
  {
    name: 'session issuance vs GET /config',
    kind: 'ratio',
    numerator: 'EMAIL_OTP verify (session)',
    denominator: 'GET /config',
    min: 0.5,
    connections: 32,
  },
  ...[
    'GET /tokens/{id}',
    'GET /customers/{id}',
    'GET /transactions/{id}',
    'GET /uma-providers page 1',
    'GET /uma-providers page 100',
    'GET /customers page',
  ].map((read) => ({
    name: `${read} vs one-query reference Worker`,
    kind: 'ratio',
    numerator: read,
    denominator: 'reference: one D1 PK SELECT',
    min: 0.85,
    connections: 32,
  })),
  ...['POST /customers', 'transfer-out'].map((write) => ({
    name: `${write} vs one-query reference Worker`,
    kind: 'ratio',
    numerator: write,
    denominator: 'reference: one D1 PK SELECT',
    min: 0.5,
    connections: 32,
  })),
  {
    name: 'agent transfer-out vs platform transfer-out',
    kind: 'ratio',
    numerator: 'agent transfer-out (AUTO)',
    denominator: 'transfer-out',
    min: 0.85,
    connections: 32,
  },
  { name: '10,000-row bulk import to COMPLETED', kind: 'seconds', scenario: 'bulk import 10,000 rows', max: 60 },
  { name: 'no service request above 50 ms p99 at 1 connection', kind: 'p99', maxMs: 50, connections: 1 },
];
