// Sandbox fault rules through the API: every effect, times and seeded probability, isolation, agents, bad rules.
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, BASE, expectError, failingFields, newPlatform, productionApi, tokenWith, type TestPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import { balanceOf, customerWithAccounts, externalAccount, fund, idemKey } from '../support/payments';
import { measured } from '../perf/counting';
import { DISCONNECT_REASON } from '../../src/sandbox/faults';

const createFault = async (p: TestPlatform, body: Record<string, unknown>) => {
  const res = await api('POST', '/sandbox/faults', { auth: p.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const onConfig = (effect: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  match: { method: 'GET', path: '/config' },
  effect,
  ...more,
});
const config = (p: TestPlatform) => api('GET', '/config', { auth: p.auth });

/** A platform whose customer holds funded USD and an external USD account that pays out. */
async function payer(amount = 100_000) {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, amount);
  const ext = await externalAccount(p, customer.id, 'USD', '321');
  return { p, customerId: customer.id as string, usd: accounts.USD!, ext };
}
const transferOut = (p: TestPlatform, usd: string, ext: string, amount: number, key?: string) =>
  api('POST', '/transfer-out', {
    auth: p.auth,
    headers: key ? { 'Idempotency-Key': key } : {},
    body: { source: { accountId: usd }, destination: { accountId: ext }, amount },
  });
const transactionCount = async (p: TestPlatform) =>
  (await api('GET', '/transactions?limit=100', { auth: p.auth })).body.data.length as number;

describe('POST /sandbox/faults', () => {
  it('answers 201 with the rule, and the list and the rule show it', async () => {
    const p = await newPlatform();
    const rule = await createFault(p, onConfig({ type: 'ERROR', status: 503, retryAfterSeconds: 2 }, { times: 2 }));
    expect(rule).toMatchObject({
      match: { method: 'GET', path: '/config' },
      effect: { type: 'ERROR', status: 503, retryAfterSeconds: 2 },
      times: 2,
      remaining: 2,
      firedCount: 0,
      probability: 1,
      evaluations: 0,
    });
    expect(rule.id).toMatch(/^SandboxFault:[0-9a-f-]{36}$/);
    expect(typeof rule.seed).toBe('number');
    expect(Date.parse(rule.createdAt)).toBeGreaterThan(0);
    expect((await api('GET', '/sandbox/faults', { auth: p.auth })).body).toEqual({ data: [rule] });
    expect((await api('GET', `/sandbox/faults/${rule.id}`, { auth: p.auth })).body).toEqual({ ...rule, firings: [] });
  });

  it('refuses a bad rule with 400 INVALID_INPUT naming the field', async () => {
    const p = await newPlatform();
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await api('POST', '/sandbox/faults', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(res.body)).toContain(field);
    };
    const error = { type: 'ERROR', status: 503 };
    await bad({ match: { method: 'POST', path: '/no-such-operation' }, effect: error }, 'match.path');
    await bad({ match: { method: 'POST', path: '/quotes/:quoteId/execute' }, effect: error }, 'match.path');
    await bad({ match: { method: 'POST', path: '/sandbox/faults' }, effect: error }, 'match.path');
    await bad({ match: { method: 'DELETE', path: '/transfer-out' }, effect: error }, 'match.method');
    await bad({ match: { method: 'FETCH', path: '/transfer-out' }, effect: error }, 'match.method');
    await bad({ match: { path: '/transfer-out' }, effect: error }, 'match.method');
    await bad({ match: { method: 'POST', path: '/transfer-out', extra: 1 }, effect: error }, 'match.extra');
    await bad({ ...onConfig({ type: 'ERROR', status: 302 }) }, 'effect.status');
    await bad({ ...onConfig({ type: 'ERROR', status: 600 }) }, 'effect.status');
    await bad({ ...onConfig({ type: 'AFTER_COMMIT', status: 505 }) }, 'effect.status');
    await bad({ ...onConfig({ type: 'AFTER_COMMIT', status: 429 }) }, 'effect.status');
    // A status the reference closes with codes no operation here answers: no fault could answer it honestly.
    await bad({ ...onConfig({ type: 'ERROR', status: 501 }) }, 'effect.status');
    await bad({ ...onConfig({ type: 'AFTER_COMMIT', status: 501 }) }, 'effect.status');
    await bad({ ...onConfig({ type: 'LATENCY', delayMs: 30_001 }) }, 'effect.delayMs');
    await bad({ ...onConfig({ type: 'EXPLODE' }) }, 'effect.type');
    await bad({ ...onConfig({ type: 'DISCONNECT' }, { times: 0 }) }, 'times');
    await bad({ ...onConfig({ type: 'DISCONNECT' }, { times: 1001 }) }, 'times');
    await bad({ ...onConfig({ type: 'DISCONNECT' }, { probability: 1.5 }) }, 'probability');
    await bad({ ...onConfig({ type: 'DISCONNECT' }, { seed: -1 }) }, 'seed');
    await bad({ ...onConfig({ type: 'DISCONNECT' }, { when: 'now' }) }, 'when');
    expect((await api('GET', '/sandbox/faults', { auth: p.auth })).body).toEqual({ data: [] });
  });

  it('holds at most 50 rules per platform', async () => {
    const p = await newPlatform();
    for (let i = 0; i < 50; i++) await createFault(p, onConfig({ type: 'LATENCY', delayMs: i }));
    expectError(await api('POST', '/sandbox/faults', { auth: p.auth, body: onConfig({ type: 'DISCONNECT' }) }), 400, 'INVALID_INPUT');
    expect((await api('GET', '/sandbox/faults', { auth: p.auth })).body.data).toHaveLength(50);
  });

  it('needs TRANSACT to create or delete and VIEW to read; 404 in production', async () => {
    const p = await newPlatform();
    const view = await tokenWith(p, ['VIEW']);
    expectError(await api('POST', '/sandbox/faults', { auth: view, body: onConfig({ type: 'DISCONNECT' }) }), 403, 'FORBIDDEN');
    expect((await api('GET', '/sandbox/faults', { auth: view })).status).toBe(200);
    const rule = await createFault(p, onConfig({ type: 'ERROR', status: 500 }));
    expectError(await api('DELETE', `/sandbox/faults/${rule.id}`, { auth: view }), 403, 'FORBIDDEN');
    for (const [method, path] of [
      ['POST', '/sandbox/faults'],
      ['GET', '/sandbox/faults'],
      ['GET', `/sandbox/faults/${rule.id}`],
      ['DELETE', `/sandbox/faults/${rule.id}`],
      ['DELETE', '/sandbox/faults'],
    ] as const) {
      expectError(
        await productionApi(method, path, { auth: p.auth, body: method === 'POST' ? onConfig({ type: 'DISCONNECT' }) : undefined }),
        404,
        'REFERENCE_NOT_FOUND',
        'ROUTE_NOT_FOUND',
      );
    }
    // Production ignores the rules the platform holds: its config answers.
    expect((await productionApi('GET', '/config', { auth: p.auth })).status).toBe(200);
  });
});

describe('ERROR', () => {
  it('answers the status in the error shape with X-Sandbox-Fault and Retry-After, `times` times, then the real answer', async () => {
    const p = await newPlatform();
    const rule = await createFault(p, onConfig({ type: 'ERROR', status: 503, retryAfterSeconds: 2 }, { times: 2 }));
    for (let i = 0; i < 2; i++) {
      const res = await config(p);
      expectError(res, 503, 'INTERNAL_ERROR');
      expect(res.headers.get('X-Sandbox-Fault')).toBe(rule.id);
      expect(res.headers.get('Retry-After')).toBe('2');
      expect(res.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const real = await config(p);
    expect(real.status).toBe(200);
    expect(real.headers.get('X-Sandbox-Fault')).toBeNull();
    const shown = (await api('GET', `/sandbox/faults/${rule.id}`, { auth: p.auth })).body;
    expect(shown).toMatchObject({ remaining: 0, firedCount: 2, evaluations: 2 });
    expect(shown.firings).toHaveLength(2);
    expect(shown.firings[0]).toMatchObject({ method: 'GET', path: '/2025-10-13/config' });
  });

  it('uses the code the API has for the status: 429 RATE_LIMITED, 404 REFERENCE_NOT_FOUND, 5xx INTERNAL_ERROR', async () => {
    const p = await newPlatform();
    for (const [status, code] of [
      [429, 'RATE_LIMITED'],
      [404, 'REFERENCE_NOT_FOUND'],
      // The look-ups' counterparty failures: the codes inside the reference's enums for 412 and 424.
      [412, 'UNSUPPORTED_UMA_VERSION'],
      [424, 'LNURLP_REQUEST_FAILED'],
      [409, 'CONFLICT'],
      [502, 'INTERNAL_ERROR'],
    ] as const) {
      await createFault(p, onConfig({ type: 'ERROR', status }));
      expectError(await config(p), status, code);
    }
  });

  it('does nothing: a transfer-out refused by the rule moves no money, and its Idempotency-Key is free for the retry', async () => {
    const { p, usd, ext } = await payer();
    const rule = await createFault(p, { match: { method: 'POST', path: '/transfer-out' }, effect: { type: 'ERROR', status: 429 } });
    const key = idemKey();
    const refused = await transferOut(p, usd, ext, 1_000, key);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('X-Sandbox-Fault')).toBe(rule.id);
    expect(await balanceOf(p, usd)).toBe(100_000);
    expect(await transactionCount(p)).toBe(0);
    const retried = await transferOut(p, usd, ext, 1_000, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await balanceOf(p, usd)).toBe(99_000);
  });

  it('narrows to a customer or an account named in the path, query or body', async () => {
    const { p, customerId, usd, ext } = await payer();
    const other = await customerWithAccounts(p);
    await createFault(p, { match: { method: 'GET', path: '/customers/{customerId}', customerId }, effect: { type: 'ERROR', status: 500 } });
    await createFault(p, { match: { method: 'POST', path: '/transfer-out', accountId: usd }, effect: { type: 'ERROR', status: 500 } });
    expect((await api('GET', `/customers/${other.customer.id}`, { auth: p.auth })).status).toBe(200);
    expectError(await api('GET', `/customers/${customerId}`, { auth: p.auth }), 500, 'INTERNAL_ERROR');
    await fund(p, other.accounts.USD!, 1_000);
    const theirs = await externalAccount(p, other.customer.id, 'USD', '321');
    const elsewhere = await transferOut(p, other.accounts.USD!, theirs, 100);
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(201);
    expectError(await transferOut(p, usd, ext, 100), 500, 'INTERNAL_ERROR');
  });
});

describe('LATENCY', () => {
  it('waits delayMs, then answers normally, marked', async () => {
    const p = await newPlatform();
    const rule = await createFault(p, onConfig({ type: 'LATENCY', delayMs: 300 }));
    const started = Date.now();
    const res = await config(p);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(res.status).toBe(200);
    expect(res.body.id).toBeDefined();
    expect(res.headers.get('X-Sandbox-Fault')).toBe(rule.id);
  });
});

describe('AFTER_COMMIT on POST /transfer-out', () => {
  it('commits once and answers 500; the keyed retry replays the real answer; a keyless retry pays again', async () => {
    const { p, usd, ext } = await payer();
    const rule = await createFault(p, { match: { method: 'POST', path: '/transfer-out' }, effect: { type: 'AFTER_COMMIT', status: 500 } });
    const key = idemKey();
    const failed = await transferOut(p, usd, ext, 1_000, key);
    expectError(failed, 500, 'INTERNAL_ERROR');
    expect(failed.headers.get('X-Sandbox-Fault')).toBe(rule.id);
    expect(await balanceOf(p, usd)).toBe(99_000);
    expect(await transactionCount(p)).toBe(1);

    const replayed = await transferOut(p, usd, ext, 1_000, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replayed.headers.get('X-Sandbox-Fault')).toBeNull();
    const [committed] = (await api('GET', '/transactions', { auth: p.auth })).body.data;
    expect(replayed.body.id).toBe(committed.id);
    expect(await balanceOf(p, usd)).toBe(99_000);

    // The rule again, and a client that retries without a key: two transfers.
    await createFault(p, { match: { method: 'POST', path: '/transfer-out' }, effect: { type: 'AFTER_COMMIT', status: 503 } });
    expectError(await transferOut(p, usd, ext, 1_000), 503, 'INTERNAL_ERROR');
    expect((await transferOut(p, usd, ext, 1_000)).status).toBe(201);
    expect(await balanceOf(p, usd)).toBe(97_000);
    expect(await transactionCount(p)).toBe(3);
  });
});

describe('DISCONNECT', () => {
  it('handles the request, then breaks off the answer: the client sees a status and headers, and reading the body fails', async () => {
    const { p, usd, ext } = await payer();
    const rule = await createFault(p, { match: { method: 'POST', path: '/transfer-out' }, effect: { type: 'DISCONNECT' } });
    const key = idemKey();
    const res = await SELF.fetch(`${BASE}/transfer-out`, {
      method: 'POST',
      headers: { Authorization: p.auth, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ source: { accountId: usd }, destination: { accountId: ext }, amount: 1_000 }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('X-Sandbox-Fault')).toBe(rule.id);
    // Sent uncompressed: compressed on its way, the cut body would end as a complete empty one.
    expect(res.headers.get('Content-Encoding')).toBe('identity');
    await expect(res.text()).rejects.toThrow(DISCONNECT_REASON);
    // It was done, once: the keyed retry replays it.
    expect(await balanceOf(p, usd)).toBe(99_000);
    const replayed = await transferOut(p, usd, ext, 1_000, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await balanceOf(p, usd)).toBe(99_000);
  });
});

describe('times and probability', () => {
  /** Which of `n` calls the rule fired on. */
  const pattern = async (p: TestPlatform, n: number) => {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push((await config(p)).status === 500);
    return out;
  };

  it('fires on the same calls for identical rules on two platforms, about `probability` of them', async () => {
    const [a, b, c] = [await newPlatform(), await newPlatform(), await newPlatform()];
    const rule = onConfig({ type: 'ERROR', status: 500 }, { times: 1000, probability: 0.3 });
    const [ra, rb] = [await createFault(a, rule), await createFault(b, rule)];
    expect(ra.seed).toBe(rb.seed);
    const rc = await createFault(c, { ...rule, seed: (ra.seed + 1) % 1000 });
    const [pa, pb, pc] = [await pattern(a, 60), await pattern(b, 60), await pattern(c, 30)];
    expect(pa).toEqual(pb);
    expect(pc).not.toEqual(pa.slice(0, 30));
    const share = pa.filter(Boolean).length;
    expect(share).toBeGreaterThanOrEqual(9);
    expect(share).toBeLessThanOrEqual(27);
    expect((await api('GET', `/sandbox/faults/${ra.id}`, { auth: a.auth })).body).toMatchObject({
      evaluations: 60,
      firedCount: share,
      remaining: 1000 - share,
    });
    expect(rc.seed).not.toBe(ra.seed);
  });

  it('probability 0 never fires; the oldest matching rule decides', async () => {
    const p = await newPlatform();
    const never = await createFault(p, onConfig({ type: 'ERROR', status: 500 }, { probability: 0 }));
    await createFault(p, onConfig({ type: 'ERROR', status: 502 }));
    expect((await pattern(p, 3)).some(Boolean)).toBe(false);
    expect((await api('GET', `/sandbox/faults/${never.id}`, { auth: p.auth })).body).toMatchObject({ evaluations: 3, firedCount: 0 });
  });
});

describe('scope', () => {
  it('applies to its own platform only, and never to /sandbox/faults itself', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    await createFault(p, onConfig({ type: 'ERROR', status: 500 }, { times: 5 }));
    expect((await config(other)).status).toBe(200);
    expect((await api('GET', '/sandbox/faults', { auth: other.auth })).body).toEqual({ data: [] });
    expectError(await config(p), 500, 'INTERNAL_ERROR');
  });

  it('is 404 to another platform: read or delete', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const rule = await createFault(p, onConfig({ type: 'ERROR', status: 500 }));
    expectError(
      await api('GET', `/sandbox/faults/${rule.id}`, { auth: other.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'SANDBOX_FAULT_NOT_FOUND',
    );
    expectError(
      await api('DELETE', `/sandbox/faults/${rule.id}`, { auth: other.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'SANDBOX_FAULT_NOT_FOUND',
    );
    expect((await api('DELETE', '/sandbox/faults', { auth: other.auth })).status).toBe(204);
    expectError(await config(p), 500, 'INTERNAL_ERROR');
  });

  it('applies to the platform’s agents (their bearer tokens)', async () => {
    const a = await newAgent();
    const rule = await createFault(a.p, { match: { method: 'GET', path: '/agents/me' }, effect: { type: 'ERROR', status: 503 } });
    const res = await api('GET', '/agents/me', { auth: a.bearer });
    expectError(res, 503, 'INTERNAL_ERROR');
    expect(res.headers.get('X-Sandbox-Fault')).toBe(rule.id);
    expect((await api('GET', '/agents/me', { auth: a.bearer })).status).toBe(200);
  });

  it('DELETE removes one rule or all of them (204), and requests answer normally again', async () => {
    const p = await newPlatform();
    const one = await createFault(p, onConfig({ type: 'ERROR', status: 500 }, { times: 10 }));
    expect((await api('DELETE', `/sandbox/faults/${one.id}`, { auth: p.auth })).status).toBe(204);
    expectError(await api('GET', `/sandbox/faults/${one.id}`, { auth: p.auth }), 404, 'REFERENCE_NOT_FOUND', 'SANDBOX_FAULT_NOT_FOUND');
    expect((await config(p)).status).toBe(200);
    await createFault(p, onConfig({ type: 'ERROR', status: 500 }, { times: 10 }));
    await createFault(p, onConfig({ type: 'ERROR', status: 502 }, { times: 10 }));
    expect((await api('DELETE', '/sandbox/faults', { auth: p.auth })).status).toBe(204);
    expect((await api('GET', '/sandbox/faults', { auth: p.auth })).body).toEqual({ data: [] });
    expect((await config(p)).status).toBe(200);
  });
});

describe('round trips', () => {
  it('a platform whose rules are for other operations pays nothing extra; a matching rule costs one round trip', async () => {
    const p = await newPlatform();
    expect((await measured('GET', '/config', { auth: p.auth })).cost).toMatchObject({ d1: 1, account: [], queue: 0 });
    await createFault(p, { match: { method: 'PATCH', path: '/config' }, effect: { type: 'ERROR', status: 500 }, times: 5 });
    await createFault(p, {
      match: { method: 'GET', path: '/customers/{customerId}', customerId: 'Customer:nobody' },
      effect: { type: 'DISCONNECT' },
    });
    const unmatched = await measured('GET', '/config', { auth: p.auth });
    expect(unmatched.status).toBe(200);
    expect(unmatched.cost).toMatchObject({ d1: 1, account: [], queue: 0 });
    const { customer } = await customerWithAccounts(p);
    // A rule for the operation, narrowed to another customer: still nothing.
    expect((await measured('GET', `/customers/${customer.id}`, { auth: p.auth })).cost.d1).toBe(1);
    await createFault(p, onConfig({ type: 'LATENCY', delayMs: 0 }));
    const matched = await measured('GET', '/config', { auth: p.auth });
    expect(matched.headers.get('X-Sandbox-Fault')).toBeTruthy();
    expect(matched.cost.d1).toBe(2);
    // Spent: the platform row no longer carries it, and the call is back to one round trip.
    expect((await measured('GET', '/config', { auth: p.auth })).cost.d1).toBe(1);
  });
});
