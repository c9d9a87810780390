import { env } from 'cloudflare:test';
import { describe, expect, inject, it } from 'vitest';
import { basic, expectError, newPlatform, workerApi, type ApiResult, type CallOptions } from '../support/api';
import { multipart } from '../support/customers';
import { newAgent } from '../support/agents';
import { RATE_LIMIT_PERIOD_SECONDS } from '../../src/http/rate-limit';

// The suite's own budgets are out of reach (test/vitest.config.ts); these calls swap in the tight pair: 8
// requests and 2 expensive calls a minute per key. Each test sends from its own address, so the budget of
// credentials not seen yet (the client IP's) is its own too.
const TIGHT = 8;
const TIGHT_EXPENSIVE = 2;
const tight = { RATE_LIMIT: env.TIGHT_RATE_LIMIT, EXPENSIVE_RATE_LIMIT: env.TIGHT_EXPENSIVE_RATE_LIMIT };

let addresses = 0;
/** A client at a fresh address, calling the Worker with the tight budgets. */
function client(extra: Partial<typeof env> = {}) {
  const ip = `198.51.100.${++addresses}`;
  return (method: string, path: string, opts: CallOptions = {}) =>
    workerApi(method, path, { ...tight, ...extra }, { ...opts, headers: { 'CF-Connecting-IP': ip, ...opts.headers } });
}

/**
 * Sends `call` until it is refused. The limiter counts in fixed windows, so one window may end on the way:
 * twice the budget (plus the request that spends the address's budget) always reaches a refusal.
 */
async function untilRefused(call: () => Promise<ApiResult>, budget: number) {
  const answers: ApiResult[] = [];
  for (let i = 0; i < 2 * budget + 2; i++) {
    const res = await call();
    answers.push(res);
    if (res.status === 429) return { refused: res, admitted: answers.slice(0, -1) };
  }
  throw new Error(`no 429 in ${answers.length} requests: ${answers.map((a) => a.status).join(', ')}`);
}

function expectRateLimited(res: ApiResult, message: RegExp) {
  expectError(res, 429, 'RATE_LIMITED');
  expect(res.body).toEqual({ status: 429, code: 'RATE_LIMITED', message: expect.stringMatching(message) });
  expect(res.headers.get('Retry-After')).toBe(String(RATE_LIMIT_PERIOD_SECONDS));
  expect(res.headers.get('Cache-Control')).toBe('no-store');
}

const customerCount = async (platformId: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM customers WHERE platform_id = ?').bind(platformId).first<{ n: number }>())!.n;

describe('per-platform request budgets', () => {
  it('refuses a platform over its budget with 429 RATE_LIMITED and Retry-After, and serves another platform', async () => {
    const [a, b] = [await newPlatform(), await newPlatform()];
    const call = client();
    const { refused, admitted } = await untilRefused(() => call('GET', '/config', { auth: a.auth }), TIGHT);
    expect(admitted.length).toBeGreaterThanOrEqual(TIGHT);
    expect(admitted.every((r) => r.status === 200)).toBe(true);
    expectRateLimited(refused, /^Too many requests for this platform/);
    // A refused write writes nothing.
    const before = await customerCount(a.id);
    expectRateLimited(
      await call('POST', '/customers', {
        auth: a.auth,
        body: { customerType: 'INDIVIDUAL', platformCustomerId: 'refused', umaAddress: `$refused@${a.umaDomain}` },
      }),
      /platform/,
    );
    expect(await customerCount(a.id)).toBe(before);
    // The neighbour, from the same address, has its own budget.
    for (let i = 0; i < 3; i++) expect((await call('GET', '/config', { auth: b.auth })).status).toBe(200);
  });

  it('counts every token of a platform, and its agents, against the one budget', async () => {
    const { p, bearer } = await newAgent();
    const second = await workerApi('POST', '/tokens', {}, { auth: p.auth, body: { name: 'second', permissions: ['VIEW'] } });
    expect(second.status).toBe(201);
    const call = client();
    const tokens = [p.auth, basic(second.body.clientId, second.body.clientSecret)];
    let n = 0;
    const { refused } = await untilRefused(() => call('GET', '/config', { auth: tokens[n++ % 2] }), TIGHT + 1);
    expectRateLimited(refused, /platform/);
    // The agent's bearer token spends its platform's budget: spent.
    await call('GET', '/agents/me', { auth: bearer }); // the first call with a token not seen yet spends the address's
    expectRateLimited(await call('GET', '/agents/me', { auth: bearer }), /platform/);
  });

  it("wrong credentials spend the client address's budget, never the platform's", async () => {
    const victim = await newPlatform();
    const attacker = client();
    const wrong = basic(victim.clientId, 'not-the-secret');
    const { refused, admitted } = await untilRefused(() => attacker('GET', '/config', { auth: wrong }), TIGHT);
    expect(admitted.every((r) => r.status === 401)).toBe(true);
    expectRateLimited(refused, /^Too many requests from this address/);
    // From elsewhere the platform has its whole budget.
    const call = client();
    for (let i = 0; i < TIGHT; i++) expect((await call('GET', '/config', { auth: victim.auth })).status).toBe(200);
  });

  it('limits unauthenticated calls (device-code redeem) by client address', async () => {
    const call = client();
    const { refused, admitted } = await untilRefused(() => call('POST', '/agents/device-codes/NO-SUCH-CODE/redeem'), TIGHT);
    expect(admitted.length).toBeGreaterThanOrEqual(TIGHT);
    expect(admitted.every((r) => r.status === 404)).toBe(true);
    expectRateLimited(refused, /address/);
    // Another address is not affected.
    expect((await client()('POST', '/agents/device-codes/NO-SUCH-CODE/redeem')).status).toBe(404);
  });

  it('gives searches and bulk imports a lower budget of their own; plain reads go on', async () => {
    const p = await newPlatform();
    const call = client();
    expect((await call('GET', '/config', { auth: p.auth })).status).toBe(200);
    const { refused, admitted } = await untilRefused(() => call('GET', '/customers?search=smith', { auth: p.auth }), TIGHT_EXPENSIVE);
    expect(admitted.length).toBeGreaterThanOrEqual(TIGHT_EXPENSIVE);
    expectRateLimited(refused, /^Too many searches or bulk imports for this platform/);
    const form = multipart([{ name: 'file', filename: 'c.csv', contentType: 'text/csv', value: 'platformCustomerId\n' }]);
    expectRateLimited(
      await call('POST', '/customers/bulk/csv', { auth: p.auth, raw: form.body, headers: { 'Content-Type': form.contentType } }),
      /bulk imports/,
    );
    expect((await call('GET', '/customers?limit=5', { auth: p.auth })).status).toBe(200);
  });

  // Security review round three, finding 3: each new spelling of one Authorization header was a key not seen yet,
  // so it spent the address's budget only and searched on after the platform's search budget was spent.
  it('a respelled Authorization header spends the same budget: no fresh budget by respelling (sandbox and production)', async () => {
    for (const mode of ['sandbox', 'production']) {
      const p = await newPlatform();
      const call = client(mode === 'production' ? { SERVICE_ENV: 'production' } : {});
      const search = (auth: string) => call('GET', '/customers?search=smith', { auth });
      expectRateLimited((await untilRefused(() => search(p.auth), TIGHT_EXPENSIVE)).refused, /searches/);
      const b64 = btoa(`${p.clientId}:${p.clientSecret}`);
      const b64url = b64.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
      // The scheme in any case, more blanks, the URL-safe alphabet without padding: the same credentials, so
      // refused by the platform's budget, never served from a fresh one.
      for (const spelling of [`basic ${b64}`, `BASIC ${b64}`, `Basic  ${b64}`, `bAsIc\t${b64}`, `Basic ${b64url}`]) {
        expectRateLimited(await search(spelling), /^Too many searches or bulk imports for this platform/);
      }
    }
  });

  it("an agent's respelled bearer header spends its platform's budget, not a fresh one", async () => {
    const { p, bearer } = await newAgent();
    const call = client();
    // The first call with a token not seen yet spends the address's budget; then the platform's, until refused.
    await call('GET', '/agents/me', { auth: bearer });
    expectRateLimited((await untilRefused(() => call('GET', '/config', { auth: p.auth }), TIGHT)).refused, /platform/);
    const token = bearer.replace(/^Bearer /, '');
    for (const spelling of [`Bearer  ${token}`, `Bearer\t${token}`, `Bearer ${token} `]) {
      expectRateLimited(await call('GET', '/agents/me', { auth: spelling }), /^Too many requests for this platform/);
    }
  });

  it('documents the 429 with Retry-After on every operation but the operator’s', async () => {
    const doc = (await workerApi('GET', '/openapi.json', {})).body;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const limited = !op.security?.some((s: object) => 'OperatorAuth' in s);
        expect(op.responses['429'] !== undefined, `${method} ${path}`).toBe(limited);
        if (limited) expect(op.responses['429'].headers?.['Retry-After'], `${method} ${path}`).toBeDefined();
      }
    }
  });

  it("states wrangler.toml's period as Retry-After: every budget's period is RATE_LIMIT_PERIOD_SECONDS", () => {
    const periods = inject('RATE_LIMIT_PERIODS');
    expect(periods.length).toBeGreaterThanOrEqual(2);
    for (const period of periods) expect(period).toBe(RATE_LIMIT_PERIOD_SECONDS);
  });

  it('RATE_LIMITS=off lifts the budgets (local load tests)', async () => {
    const p = await newPlatform();
    const call = client({ RATE_LIMITS: 'off' });
    for (let i = 0; i < 2 * TIGHT + 2; i++) expect((await call('GET', '/config', { auth: p.auth })).status).toBe(200);
  });
});
