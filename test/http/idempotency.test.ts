import { env } from 'cloudflare:test';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { idempotencyKeys } from '../../src/db/schema';
import { ApiError, notFound } from '../../src/http/errors';
import {
  d1Store,
  IN_FLIGHT_LEASE_MS,
  KEY_TTL_MS,
  purgeExpiredIdempotencyKeys,
  runIdempotent,
  type IdempotentRequest,
} from '../../src/http/idempotency';
import { loadTogether } from '../../src/db/client';
import type { Change } from '../../src/http/change';
import { json } from '../../src/http/route';
import { api, newPlatform } from '../support/api';
import { customerWithAccounts, externalAccount, fund } from '../support/payments';

const db = () => database(env.DB);
const deps = (queue: Queue<unknown> = env.JOBS) => ({ db: db(), queue });
/** A change that commits nothing but its answer (the work of a real one is its statements). */
const answer = (status: number, body: unknown): Change => ({ statements: [], messages: [], status, body });
const NOW = Date.parse('2031-05-01T10:00:00.000Z');

function req(overrides: Partial<IdempotentRequest> = {}): IdempotentRequest {
  return {
    platformId: `Platform:${crypto.randomUUID()}`,
    scope: 'platform',
    key: crypto.randomUUID(),
    method: 'POST',
    path: '/2025-10-13/quotes/Quote:1/execute',
    body: '{"amount":100,"currency":"USD"}',
    now: NOW,
    ...overrides,
  };
}

/** An action that counts its runs and answers `status` with a fresh body. */
function counter(status = 201) {
  const c = {
    runs: 0,
    action: async () => {
      c.runs++;
      return json({ run: c.runs, id: crypto.randomUUID() }, status);
    },
  };
  return c;
}

async function call(r: IdempotentRequest, action: () => Promise<Response | Change>) {
  try {
    const res = await runIdempotent(deps(), r, action);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  } catch (error) {
    if (error instanceof ApiError)
      return { status: error.status, body: { code: error.code, details: error.details }, headers: new Headers(error.headers) };
    throw error;
  }
}

describe('Idempotency-Key', () => {
  it('requires the key: 400 INVALID_INPUT naming the header; at most 255 printable characters', async () => {
    const c = counter();
    for (const key of [null, '', '   ', '""', 'k'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await call(req({ key }), c.action);
      expect(res.status, String(key)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.details.fields[0].field).toBe('Idempotency-Key');
    }
    expect(c.runs).toBe(0);
    expect((await call(req({ key: 'k'.repeat(255) }), c.action)).status).toBe(201);
    // The draft's Structured Field form ("...") names the same key as the bare token.
    const r = req({ key: '"abc-123"' });
    await call(r, c.action);
    const replay = await call({ ...r, key: 'abc-123' }, c.action);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(c.runs).toBe(2);
  });

  it('replays the stored response of the same request without acting again', async () => {
    const c = counter(201);
    const r = req();
    const first = await call(r, c.action);
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const again = await call({ ...r, now: NOW + 60_000 }, c.action);
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.headers.get('Content-Type')).toBe('application/json');
    // Same JSON in another key order and spacing is the same request.
    const reordered = await call({ ...r, body: '{ "currency": "USD",\n "amount": 100 }' }, c.action);
    expect(reordered).toMatchObject({ status: 201, body: first.body });
    expect(c.runs).toBe(1);
  });

  it('answers 422 for the same key with a different body, method or path', async () => {
    const c = counter();
    const r = req();
    await call(r, c.action);
    for (const change of [
      { body: '{"amount":101,"currency":"USD"}' },
      { path: '/2025-10-13/transfer-out' },
      { method: 'PUT' },
      { body: '' },
    ]) {
      const res = await call({ ...r, ...change }, c.action);
      expect(res.status, JSON.stringify(change)).toBe(422);
      expect(res.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    }
    expect(c.runs).toBe(1);
  });

  it('answers 409 while the first request is in flight, then replays once it finishes', async () => {
    const r = req();
    let finish!: () => void;
    let started!: () => void;
    // A latch: resolved once the first request holds the key and runs its action.
    const running = new Promise<void>((resolve) => (started = resolve));
    let runs = 0;
    const slow = async () => {
      runs++;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      started();
      await finished;
      return json({ done: true }, 200);
    };
    const first = call(r, slow);
    await running;
    const during = await call(r, slow);
    expect(during.status).toBe(409);
    expect(during.body).toMatchObject({ code: 'CONFLICT', details: { reason: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' } });
    expect(during.headers.get('Retry-After')).toBe('1');
    // A different request under the same key is still 422, even in flight.
    expect((await call({ ...r, body: '{}' }, slow)).status).toBe(422);
    finish();
    expect((await first).status).toBe(200);
    const after = await call(r, slow);
    expect(after).toMatchObject({ status: 200, body: { done: true } });
    expect(after.headers.get('Idempotent-Replayed')).toBe('true');
    expect(runs).toBe(1);
  });

  it('does not store 5xx answers or unexpected errors: the client may retry', async () => {
    const r = req();
    const failing = counter(503);
    expect((await call(r, failing.action)).status).toBe(503);
    expect((await call(r, failing.action)).status).toBe(503);
    expect(failing.runs).toBe(2);

    await expect(runIdempotent(deps(), r, async () => Promise.reject(new Error('D1 went away')))).rejects.toThrow('D1 went away');
    await expect(runIdempotent(deps(), r, async () => Promise.reject(new ApiError('INTERNAL_ERROR', 'x')))).rejects.toThrow();
    const ok = counter(200);
    expect((await call(r, ok.action)).status).toBe(200);
    expect(ok.runs).toBe(1);
    expect((await call(r, ok.action)).headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('stores 4xx answers, thrown or returned, and replays them', async () => {
    const r = req();
    let runs = 0;
    const refuse = async (): Promise<Response> => {
      runs++;
      throw notFound('QUOTE_NOT_FOUND', 'Quote not found');
    };
    const first = await call(r, refuse);
    expect(first).toMatchObject({ status: 404, body: { status: 404, code: 'QUOTE_NOT_FOUND', message: 'Quote not found' } });
    const again = await call(r, refuse);
    expect(again).toMatchObject({ status: 404, body: first.body });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(runs).toBe(1);
  });

  it('lets a route choose not to store a status (a signed-retry 202 challenge)', async () => {
    const r = req();
    const challenge = counter(202);
    const replays = (status: number) => status !== 202 && status < 500;
    expect((await runIdempotent(deps(), r, challenge.action, { replays })).status).toBe(202);
    expect((await runIdempotent(deps(), r, challenge.action, { replays })).status).toBe(202);
    expect(challenge.runs).toBe(2);
  });

  it("runs the route's reads in the claim's round trip, after the claim", async () => {
    const r = req();
    // The reads run after the claim in the same batch: the second one sees the key just claimed.
    const reads = {
      none: db()
        .select({ one: sql<number>`1` })
        .from(idempotencyKeys)
        .limit(0),
      key: db()
        .select({ key: idempotencyKeys.key, state: idempotencyKeys.state })
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.key, r.key!)),
    };
    const claim = d1Store.claim(db(), { platformId: r.platformId, scope: r.scope, key: r.key!, fingerprint: 'f', at: NOW });
    const loaded = await loadTogether(db(), { ...claim, ...reads });
    expect({ none: loaded.none, key: loaded.key }).toEqual({ none: [], key: [{ key: r.key, state: 'IN_FLIGHT' }] });
    // The runner takes the claim that round trip made: no second claim, and the action runs.
    let runs = 0;
    const res = await runIdempotent(deps(), { ...r, body: '' }, async () => (runs++, json({ ok: true }, 201)), { claimed: loaded });
    expect(res.status).toBe(201);
    expect(runs).toBe(1);
  });

  it('commits a Change with its recorded answer in one batch, then writes nothing more', async () => {
    const r = req();
    const body = { done: crypto.randomUUID() };
    const res = await runIdempotent(deps(), r, async () => answer(201, body));
    expect(res.status).toBe(201);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(await res.text()).toBe(JSON.stringify(body));
    const row = (
      await db()
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.platformId, r.platformId), eq(idempotencyKeys.key, r.key!)))
    )[0];
    expect(row).toMatchObject({ state: 'DONE', responseStatus: 201, responseBody: JSON.stringify(body) });
    const replay = await call(r, counter().action);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body).toEqual(body);
  });

  it('keeps a committed answer when what follows the commit fails (its queue messages)', async () => {
    const r = req();
    const broken = { sendBatch: async () => Promise.reject(new Error('queue down')) } as unknown as Queue<unknown>;
    const change = { ...answer(201, { done: true }), messages: [{ body: { type: 'noop' } }] };
    expect((await runIdempotent(deps(broken), r, async () => change)).status).toBe(201);
    const replay = await call(r, counter().action);
    expect(replay).toMatchObject({ status: 201, body: { done: true } });
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('fences the batch on the claim: an attempt whose claim was taken over commits nothing', async () => {
    const r = req();
    let stolen = false;
    const res = await call(r, async () => {
      // Another attempt takes the key over meanwhile (the first one's lease lapsed).
      await db().update(idempotencyKeys).set({ claimToken: 'someone-else' }).where(eq(idempotencyKeys.key, r.key!));
      stolen = true;
      return { ...answer(201, { done: true }), statements: [db().delete(idempotencyKeys).where(eq(idempotencyKeys.key, 'never'))] };
    });
    expect(stolen).toBe(true);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT', details: { reason: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' } });
    const [row] = await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, r.key!));
    expect(row).toMatchObject({ state: 'IN_FLIGHT', claimToken: 'someone-else' });
  });

  it('runs the action exactly once under 20 concurrent requests with one key', async () => {
    const r = req();
    let runs = 0;
    // The first action holds its claim until the 19 other requests have been answered (a latch, not a delay);
    // any further run returns at once, so a broken claim fails the count below rather than hanging.
    let othersAnswered!: () => void;
    const others = new Promise<void>((resolve) => (othersAnswered = resolve));
    let answered = 0;
    const action = async () => {
      if (++runs === 1) await others;
      return json({ executed: true }, 200);
    };
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(r, action).finally(() => {
          if (++answered === 19) othersAnswered();
        }),
      ),
    );
    expect(runs).toBe(1);
    const original = results.filter((x) => x.status === 200 && !x.headers.get('Idempotent-Replayed'));
    expect(original).toHaveLength(1);
    for (const x of results) {
      expect([200, 409]).toContain(x.status);
      if (x.status === 200) expect(x.body).toEqual({ executed: true });
    }
  });

  it('separates platforms and scopes', async () => {
    const c = counter();
    const r = req();
    await call(r, c.action);
    await call({ ...r, platformId: `Platform:${crypto.randomUUID()}` }, c.action);
    await call({ ...r, scope: 'Agent:1' }, c.action);
    expect(c.runs).toBe(3);
  });

  it('forgets a key after 24 hours and takes over a claim abandoned by a dead worker', async () => {
    const c = counter();
    const r = req();
    await call(r, c.action);
    expect((await call({ ...r, now: NOW + KEY_TTL_MS - 1 }, c.action)).headers.get('Idempotent-Replayed')).toBe('true');
    const fresh = await call({ ...r, now: NOW + KEY_TTL_MS, body: '{"other":true}' }, c.action);
    expect(fresh.status).toBe(201);
    expect(c.runs).toBe(2);

    // A claim whose worker died: in flight, never finished.
    const dead = req();
    await db()
      .insert(idempotencyKeys)
      .values({
        platformId: dead.platformId,
        scope: dead.scope,
        key: dead.key!,
        fingerprint: 'x',
        state: 'IN_FLIGHT',
        claimToken: 'dead',
        lockedUntil: NOW + IN_FLIGHT_LEASE_MS,
        createdAt: NOW,
        expiresAt: NOW + KEY_TTL_MS,
      });
    expect((await call({ ...dead, now: NOW + IN_FLIGHT_LEASE_MS - 1 }, c.action)).status).toBe(422);
    expect((await call({ ...dead, now: NOW + IN_FLIGHT_LEASE_MS }, c.action)).status).toBe(201);
    expect(c.runs).toBe(3);
  });

  it('a route declared idempotent reads the header, path and raw body of the request', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 10_000);
    const external = await externalAccount(p, customer.id, 'USD', '002');
    const send = (body: unknown, key = 'route-key') =>
      api('POST', '/transfer-out', { auth: p.auth, headers: { 'Idempotency-Key': key }, body });
    const body = { source: { accountId: accounts.USD }, destination: { accountId: external }, amount: 100 };
    const first = await send(body);
    expect(first.status).toBe(201);
    // The same request in another key order and spacing is the same request.
    const again = await send({ amount: 100, destination: body.destination, source: body.source });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await send({ ...body, amount: 101 })).status).toBe(422);
    const [row] = await db()
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.platformId, p.id), eq(idempotencyKeys.key, 'route-key')));
    expect(row).toMatchObject({ state: 'DONE', responseStatus: 201, scope: 'platform' });
  });

  it('the sweep purges expired keys', async () => {
    const c = counter();
    const r = req();
    await call(r, c.action);
    await purgeExpiredIdempotencyKeys(db(), NOW + KEY_TTL_MS - 1);
    expect(await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, r.key!))).toHaveLength(1);
    await purgeExpiredIdempotencyKeys(db(), NOW + KEY_TTL_MS + 1);
    expect(await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.key, r.key!))).toHaveLength(0);
  });
});

describe('Idempotency-Key in /openapi.json', () => {
  it('is documented, optional, on exactly the operations that honour it', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const documented: string[] = [];
    for (const ops of Object.values(doc.paths) as Record<
      string,
      { operationId: string; parameters?: { name: string; required: boolean }[] }
    >[]) {
      for (const op of Object.values(ops)) {
        const header = op.parameters?.find((x) => x.name === 'Idempotency-Key');
        if (!header) continue;
        expect(header.required, op.operationId).toBe(false);
        documented.push(op.operationId);
      }
    }
    expect(documented.sort()).toEqual(
      [
        'createQuote',
        'executeQuote',
        'createTransferIn',
        'createTransferOut',
        'agentExecuteQuote',
        'agentCreateTransferOut',
        'agentCreateTransferIn',
        'replayWebhookDeliveries',
        // Its key names one link (test/kyc/kyc-link.test.ts): the answer's secret is never stored to replay.
        'createCustomerKycLink',
      ].sort(),
    );
  });
});
