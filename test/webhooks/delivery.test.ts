import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { database } from '../../src/db/client';
import { logger } from '../../src/http/log';
import { deliverEvent, deliverEvents, GIVE_UP_AFTER_MS, retryDelayMs } from '../../src/webhooks/delivery';
import { dispatchEvents } from '../../src/webhooks/outbox';
import { api, newPlatform } from '../support/api';
import { deps, consume, deliveryOf, fakeEndpoint, hookUrl, runCron, verifySignature, writeEvent } from '../support/webhooks';

const T0 = Date.parse('2031-03-01T12:00:00.000Z');
const at = (ms: number) => vi.setSystemTime(new Date(ms));
const deliver = (eventId: string) => ({ type: 'webhook.deliver', eventId });
afterEach(() => {
  vi.useRealTimers();
});

describe('webhook delivery', () => {
  it('POSTs the signed envelope; the signature verifies with webhookPublicKey from GET /config', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const eventId = await writeEvent(p.id, T0, 'INCOMING_PAYMENT.COMPLETED', { id: 'Transaction:abc', status: 'COMPLETED', amount: 5 });
    at(T0);
    const result = await consume(deliver(eventId));
    expect(result.explicitAcks).toHaveLength(1);

    expect(hook.calls).toHaveLength(1);
    const call = hook.calls[0]!;
    expect(JSON.parse(call.body)).toEqual({
      id: eventId,
      type: 'INCOMING_PAYMENT.COMPLETED',
      timestamp: new Date(T0).toISOString(),
      data: { id: 'Transaction:abc', status: 'COMPLETED', amount: 5 },
    });
    expect(eventId).toMatch(/^Webhook:[0-9a-f-]{36}$/);
    expect(call.headers.get('Content-Type')).toBe('application/json');
    const config = await api('GET', '/config', { auth: p.auth });
    const pem = config.body.webhookPublicKey as string;
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/);
    const signature = call.headers.get('X-Service-Signature')!;
    expect(await verifySignature(pem, call.body, signature)).toBe(true);
    // The signature covers the exact bytes: any change breaks it.
    expect(await verifySignature(pem, call.body.replace('"amount":5', '"amount":6'), signature)).toBe(false);

    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 1, lastResponseStatus: 200, deliveredAt: T0, url });
  });

  it('retries after a failing endpoint with growing backoff, then delivers once', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n < 3 ? 500 : 200));
    const eventId = await writeEvent(p.id, T0);

    at(T0);
    await consume(deliver(eventId));
    expect(await deliveryOf(eventId)).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: 500,
      nextAttemptAt: T0 + 30_000,
    });

    // A redelivered message before the retry is due sends nothing.
    at(T0 + 29_000);
    await consume(deliver(eventId));
    expect(hook.calls).toHaveLength(1);

    at(T0 + 30_000);
    await consume(deliver(eventId));
    expect(await deliveryOf(eventId)).toMatchObject({
      status: 'PENDING',
      attempts: 2,
      lastResponseStatus: 500,
      nextAttemptAt: T0 + 90_000,
    });

    at(T0 + 90_000);
    await consume(deliver(eventId));
    expect(await deliveryOf(eventId)).toMatchObject({
      status: 'DELIVERED',
      attempts: 3,
      lastResponseStatus: 200,
      deliveredAt: T0 + 90_000,
    });
    // Every retry carries the same body and a valid signature.
    expect(new Set(hook.calls.map((c) => c.body)).size).toBe(1);

    // Delivered: a redelivered message, the sweep and a late retry send nothing more.
    at(T0 + 10 * 60_000);
    await consume(deliver(eventId), deliver(eventId));
    await runCron(T0 + 10 * 60_000);
    expect(hook.calls).toHaveLength(3);
  });

  it('spaces retries 30 s, 1, 2, 4, 8, 16 min, then every 30 min, and gives up after 3 days', async () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(retryDelayMs)).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000, 1_800_000,
    ]);
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 503);
    const eventId = await writeEvent(p.id, T0);
    let t = T0;
    for (let attempt = 1; attempt <= 8; attempt++) {
      const outcome = await deliverEvent(deps(), eventId, t);
      expect(outcome).toMatchObject({ result: 'retry', responseStatus: 503, nextAttemptAt: t + retryDelayMs(attempt) });
      t += retryDelayMs(attempt);
    }
    expect(hook.calls).toHaveLength(8);

    // Jump to the end of the 3 days (the sweep attempts whatever is due, by the cron's time).
    const lastAllowed = T0 + GIVE_UP_AFTER_MS - 40 * 60_000;
    await runCron(lastAllowed);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'PENDING', attempts: 9, nextAttemptAt: lastAllowed + 30 * 60_000 });
    await runCron(lastAllowed + 30 * 60_000);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'FAILED', attempts: 10, lastResponseStatus: 503 });

    await runCron(T0 + 4 * GIVE_UP_AFTER_MS);
    at(T0 + 4 * GIVE_UP_AFTER_MS);
    await consume(deliver(eventId));
    expect(hook.calls).toHaveLength(10);
  });

  it.each([200, 202, 204, 299, 409])('treats %i as delivered and never retries', async (status) => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => status);
    const eventId = await writeEvent(p.id, T0);
    expect(await deliverEvent(deps(), eventId, T0)).toMatchObject({ result: 'delivered', responseStatus: status });
    for (const later of [30_000, 60 * 60_000, GIVE_UP_AFTER_MS]) {
      expect(await deliverEvent(deps(), eventId, T0 + later)).toEqual({ result: 'not_due' });
      await runCron(T0 + later);
    }
    expect(hook.calls).toHaveLength(1);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 1, lastResponseStatus: status });
  });

  it.each([400, 401, 404, 410, 429, 500, 302])('retries after %i', async (status) => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    fakeEndpoint(url, () => status);
    const eventId = await writeEvent(p.id, T0);
    expect(await deliverEvent(deps(), eventId, T0)).toMatchObject({ result: 'retry', responseStatus: status, nextAttemptAt: T0 + 30_000 });
  });

  it('records a network error without a status, as one generic message, and retries', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    fakeEndpoint(url, () => {
      throw new TypeError('connection refused');
    });
    const eventId = await writeEvent(p.id, T0);
    expect(await deliverEvent(deps(), eventId, T0)).toMatchObject({ result: 'retry', error: 'Connection failed' });
    expect(await deliveryOf(eventId)).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: null,
      lastError: 'Connection failed',
    });
  });

  it('delivers once when the consumer (with a duplicated message) and the sweep race', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => new Promise((resolve) => setTimeout(() => resolve(200), 50)));
    const eventId = await writeEvent(p.id, T0);
    at(T0 + 1_000);
    await Promise.all([
      consume(deliver(eventId), deliver(eventId)),
      consume(deliver(eventId)),
      runCron(T0 + 1_000),
      deliverEvent(deps(), eventId, T0 + 1_000),
    ]);
    expect(hook.calls).toHaveLength(1);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
  });

  it('sweeps a delivery whose attempt died after claiming, once its lease ends', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const eventId = await writeEvent(p.id, T0);
    // Claim as an attempt would, then "crash" before sending: the signing key is missing.
    await expect(deliverEvent({ ...deps(), signingKey: undefined }, eventId, T0)).rejects.toThrow('WEBHOOK_SIGNING_KEY');
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'PENDING', attempts: 1, nextAttemptAt: T0 + 60_000 });
    await runCron(T0 + 59_000);
    expect(hook.calls).toHaveLength(0);
    await runCron(T0 + 60_000);
    expect(hook.calls).toHaveLength(1);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 2 });
  });

  it('skips, with a clear reason, when the platform has no webhookEndpoint', async () => {
    const p = await newPlatform();
    const eventId = await writeEvent(p.id, T0);
    expect(await deliverEvent(deps(), eventId, T0)).toEqual({ result: 'skipped', reason: expect.stringContaining('No webhookEndpoint') });
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'SKIPPED', lastError: expect.stringContaining('No webhookEndpoint') });
    expect(await deliverEvent(deps(), eventId, T0 + 60_000)).toEqual({ result: 'not_due' });
  });

  it("uses the platform's current webhookEndpoint at each attempt", async () => {
    const first = hookUrl();
    const second = hookUrl();
    const p = await newPlatform({ webhookEndpoint: first });
    const a = fakeEndpoint(first, () => 500);
    const eventId = await writeEvent(p.id, T0);
    await deliverEvent(deps(), eventId, T0);
    expect((await api('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: second } })).status).toBe(200);
    const b = fakeEndpoint(second, () => 200);
    await deliverEvent(deps(), eventId, T0 + 30_000);
    expect([a.calls.length, b.calls.length]).toEqual([1, 1]);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', url: second });
  });

  it("evaluates due times on the platform's sandbox clock", async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 500);
    expect((await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 3600 } })).status).toBe(200);
    // The event happened at platform time T0 + 1 h, i.e. wall-clock T0.
    const eventId = await writeEvent(p.id, T0 + 3_600_000);
    expect(await deliverEvent(deps(), eventId, T0 - 1)).toEqual({ result: 'not_due' });
    expect(await deliverEvent(deps(), eventId, T0)).toMatchObject({ result: 'retry', nextAttemptAt: T0 + 3_600_000 + 30_000 });
    expect(hook.calls).toHaveLength(1);
  });

  it('dispatchEvents sends a queue message that the real consumer delivers', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const eventId = await writeEvent(p.id, Date.now());
    await dispatchEvents(env.JOBS, [eventId]);
    for (let i = 0; i < 50 && (await deliveryOf(eventId)).status === 'PENDING'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(hook.calls).toHaveLength(1);
  });

  it('attempts a batch of events together: one round trip of three statements for the claims, one for the results, one retry send', async () => {
    const ok = hookUrl();
    const failing = hookUrl();
    const withHook = await newPlatform({ webhookEndpoint: ok });
    const other = await newPlatform({ webhookEndpoint: failing });
    const without = await newPlatform();
    const hookOk = fakeEndpoint(ok, () => 200);
    fakeEndpoint(failing, () => 503);
    const delivered = await writeEvent(withHook.id, T0);
    const retried = await writeEvent(other.id, T0);
    const skipped = await writeEvent(without.id, T0);
    const notDue = await writeEvent(withHook.id, T0 + 60_000);
    // Statements per round trip: the claims are three (skip, claim, contexts), however many events.
    const batches: number[] = [];
    const real = database(env.DB);
    const db = new Proxy(real, {
      get: (target, prop) =>
        prop === 'batch'
          ? (...args: unknown[][]) => (batches.push(args[0]!.length), Reflect.apply(target.batch, target, args))
          : Reflect.get(target, prop),
    });
    const sent: unknown[] = [];
    const queue = {
      send: () => Promise.reject(new Error('one sendBatch expected')),
      sendBatch: async (m: unknown[]) => void sent.push(...m),
    } as unknown as Queue<unknown>;
    const outcomes = await deliverEvents({ ...deps(), db, queue }, [delivered, retried, skipped, notDue], T0);
    expect(outcomes.map((o) => o.result)).toEqual(['delivered', 'retry', 'skipped', 'not_due']);
    expect(batches).toEqual([3, 2]);
    expect(sent).toEqual([{ body: { type: 'webhook.deliver', eventId: retried }, delaySeconds: 30 }]);
    expect(hookOk.calls).toHaveLength(1);
    expect(await deliveryOf(delivered)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(await deliveryOf(retried)).toMatchObject({ status: 'PENDING', attempts: 1, nextAttemptAt: T0 + 30_000 });
    expect(await deliveryOf(skipped)).toMatchObject({ status: 'SKIPPED', attempts: 1 });
    expect(await deliveryOf(notDue)).toMatchObject({ status: 'PENDING', attempts: 0 });
  });

  it('settles the deliveries of platforms without an endpoint in the claim round trip itself', async () => {
    const without = await newPlatform();
    const ids = [await writeEvent(without.id, T0), await writeEvent(without.id, T0)];
    let batches = 0;
    const real = database(env.DB);
    const db = new Proxy(real, {
      get: (target, prop) =>
        prop === 'batch' ? (...args: unknown[]) => (batches++, Reflect.apply(target.batch, target, args)) : Reflect.get(target, prop),
    });
    const outcomes = await deliverEvents({ ...deps(), db }, ids, T0);
    expect(outcomes).toEqual(ids.map(() => ({ result: 'skipped', reason: expect.stringContaining('No webhookEndpoint') })));
    expect(batches).toBe(1);
    for (const id of ids) {
      expect(await deliveryOf(id)).toMatchObject({
        status: 'SKIPPED',
        attempts: 1,
        lastAttemptAt: T0,
        nextAttemptAt: T0,
        lastError: expect.stringContaining('No webhookEndpoint'),
      });
    }
    expect(await deliverEvents(deps(), ids, T0 + 60_000)).toEqual([{ result: 'not_due' }, { result: 'not_due' }]);
  });

  it('the consumer delivers the webhook messages of a batch together and acks each (a duplicate too)', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const ids = [await writeEvent(p.id, T0), await writeEvent(p.id, T0), await writeEvent(p.id, T0)];
    at(T0);
    const result = await consume(...ids.map(deliver), deliver(ids[0]!), { type: 'no.such.job' });
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(5);
    expect(hook.calls.map((c) => JSON.parse(c.body).id).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await deliveryOf(id)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
  });

  it('dispatchEvents never throws: a failed send is left to the sweep', async () => {
    const failing = { sendBatch: () => Promise.reject(new Error('queue down')) } as unknown as Queue<unknown>;
    await expect(dispatchEvents(failing, ['Webhook:x'], logger('error'))).resolves.toBeUndefined();
  });
});
