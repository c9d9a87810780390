import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { webhookDeliveries } from '../../src/db/schema';
import { deliverEvent } from '../../src/webhooks/delivery';
import { ECHOED_BODY_BYTES } from '../../src/webhooks/schema';
import { api, expectError, newPlatform, productionApi, tokenWith, type TestPlatform } from '../support/api';
import { deps, deliveryOf, fakeEndpoint, hookUrl, verifySignature, writeEvent } from '../support/webhooks';

const NEW_FIELDS = ['payload', 'signature', 'lastResponseBody'];

const publicKey = async (p: TestPlatform) => (await api('GET', '/config', { auth: p.auth })).body.webhookPublicKey as string;
const getDelivery = (p: TestPlatform, id: string) => api('GET', `/webhooks/deliveries/${encodeURIComponent(id)}`, { auth: p.auth });
const resend = (auth: string, id: string) => api('POST', `/webhooks/deliveries/${encodeURIComponent(id)}/resend`, { auth });

describe('WebhookDelivery payload, signature and lastResponseBody', () => {
  it('shows the exact bytes and signature of the last attempt, verifiable with webhookPublicKey; the answer capped', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n === 1 ? new Response('x'.repeat(3000), { status: 500 }) : new Response('ok')));
    const t = Date.now();
    const eventId = await writeEvent(p.id, t, 'OUTGOING_PAYMENT.COMPLETED', { id: 'Transaction:a', note: 'é ✓ "quoted"', amount: 7 });
    const before = await getDelivery(p, (await deliveryOf(eventId)).id);
    for (const field of NEW_FIELDS) expect(before.body).not.toHaveProperty(field);

    await deliverEvent(deps(), eventId, t + 10);
    const id = (await deliveryOf(eventId)).id;
    const first = (await getDelivery(p, id)).body;
    expect(first).toMatchObject({ status: 'PENDING', attempts: 1, lastResponseStatus: 500 });
    expect(first.payload).toBe(hook.calls[0]!.body);
    expect(first.signature).toBe(hook.calls[0]!.headers.get('X-Service-Signature'));
    expect(first.lastResponseBody).toBe('x'.repeat(ECHOED_BODY_BYTES));
    const key = await publicKey(p);
    expect(await verifySignature(key, first.payload, first.signature)).toBe(true);
    expect(await verifySignature(key, first.payload + ' ', first.signature)).toBe(false);

    // The retry sends the very same bytes, signed afresh (ECDSA is randomized): the view shows the new signature.
    await deliverEvent(deps(), eventId, t + 10 + 30_000);
    const second = (await getDelivery(p, id)).body;
    expect(hook.calls[1]!.body).toBe(hook.calls[0]!.body);
    expect(second).toMatchObject({
      status: 'DELIVERED',
      attempts: 2,
      lastResponseStatus: 200,
      lastResponseBody: 'ok',
      payload: first.payload,
    });
    expect(second.signature).toBe(hook.calls[1]!.headers.get('X-Service-Signature'));
    expect(await verifySignature(key, second.payload, second.signature)).toBe(true);

    const list = await api('GET', '/webhooks/deliveries', { auth: p.auth });
    expect(list.body.data[0]).toEqual(second);
  });

  it('renders rows without the new columns (earlier releases, or a never attempted delivery) without the fields', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const t = Date.now();
    const eventId = await writeEvent(p.id, t);
    await deliverEvent(deps(), eventId, t + 10);
    const id = (await deliveryOf(eventId)).id;
    // What a delivery made before migration 0005 holds.
    await database(env.DB)
      .update(webhookDeliveries)
      .set({ payload: null, signature: null, lastResponseBody: null })
      .where(eq(webhookDeliveries.id, id));
    const old = await getDelivery(p, id);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ status: 'DELIVERED', attempts: 1, lastResponseStatus: 200 });
    for (const field of NEW_FIELDS) expect(old.body).not.toHaveProperty(field);

    // A resend of such a row builds the envelope from the event: the same bytes as the first attempt.
    const res = await resend(p.auth, id);
    expect(res.status).toBe(200);
    expect(hook.calls[1]!.body).toBe(hook.calls[0]!.body);
    expect(res.body.payload).toBe(hook.calls[0]!.body);
  });
});

describe('POST /webhooks/deliveries/{deliveryId}/resend', () => {
  it('sends the same event and bytes again, freshly signed, adds an attempt and records the answer', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n === 1 ? 200 : 202));
    const t = Date.now();
    const eventId = await writeEvent(p.id, t, 'INCOMING_PAYMENT.COMPLETED', { id: 'Transaction:r' });
    await deliverEvent(deps(), eventId, t + 10);
    const id = (await deliveryOf(eventId)).id;
    const before = (await getDelivery(p, id)).body;

    const res = await resend(p.auth, id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      eventId,
      status: 'DELIVERED',
      attempts: 2,
      url,
      lastResponseStatus: 202,
      lastResponseBody: 'answer 2',
      payload: before.payload,
      deliveredAt: before.deliveredAt,
    });
    expect(res.body).not.toHaveProperty('lastError');
    expect(hook.calls).toHaveLength(2);
    expect(hook.calls[1]!.body).toBe(hook.calls[0]!.body);
    expect(JSON.parse(hook.calls[1]!.body).id).toBe(eventId);
    const signature = hook.calls[1]!.headers.get('X-Service-Signature');
    expect(res.body.signature).toBe(signature);
    expect(await verifySignature(await publicKey(p), res.body.payload, res.body.signature)).toBe(true);
    expect((await getDelivery(p, id)).body).toEqual(res.body);
  });

  it('makes a FAILED delivery DELIVERED once the receiver is healthy; a failed resend keeps FAILED', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n < 3 ? 503 : 200));
    const failed = expectError(await api('POST', '/webhooks/test', { auth: p.auth }), 400, 'WEBHOOK_DELIVERY_ERROR');
    const id = (await deliveryOf(failed.details.eventId)).id;

    const again = await resend(p.auth, id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'FAILED', attempts: 2, lastResponseStatus: 503, lastResponseBody: 'answer 2' });
    expect(again.body).not.toHaveProperty('deliveredAt');

    const healed = await resend(p.auth, id);
    expect(healed.body).toMatchObject({ status: 'DELIVERED', attempts: 3, lastResponseStatus: 200, lastResponseBody: 'answer 3' });
    expect(healed.body.deliveredAt).toBe(healed.body.lastAttemptAt);
    expect(hook.calls.map((c) => c.body)).toEqual(Array(3).fill(hook.calls[0]!.body));
  });

  it('sends a never attempted PENDING delivery; a failure keeps it PENDING with its retry schedule', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n === 1 ? 500 : 200));
    const t = Date.now() + 60_000;
    const eventId = await writeEvent(p.id, t, 'OUTGOING_PAYMENT.PENDING', { id: 'Transaction:p' });
    const id = (await deliveryOf(eventId)).id;

    const failed = await resend(p.auth, id);
    expect(failed.body).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: 500,
      nextAttemptAt: new Date(t).toISOString(),
    });
    expect(JSON.parse(failed.body.payload)).toEqual({
      id: eventId,
      type: 'OUTGOING_PAYMENT.PENDING',
      timestamp: new Date(t).toISOString(),
      data: { id: 'Transaction:p' },
    });
    const ok = await resend(p.auth, id);
    expect(ok.body).toMatchObject({ status: 'DELIVERED', attempts: 2, lastResponseStatus: 200 });
    expect(ok.body).not.toHaveProperty('nextAttemptAt');
    // Delivered: the scheduled attempt finds nothing to do.
    expect(await deliverEvent(deps(), eventId, t + 10)).toEqual({ result: 'not_due' });
    expect(hook.calls).toHaveLength(2);
  });

  it('counts every attempt of parallel resends', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, async (n) => {
      await new Promise((r) => setTimeout(r, 5));
      return n % 2 ? 200 : 500;
    });
    const eventId = await writeEvent(p.id, Date.now());
    const id = (await deliveryOf(eventId)).id;
    const answers = await Promise.all(Array.from({ length: 8 }, () => resend(p.auth, id)));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(hook.calls).toHaveLength(8);
    expect(new Set(answers.map((r) => r.body.attempts))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(await deliveryOf(eventId)).toMatchObject({ attempts: 8, status: 'DELIVERED' });
  });

  it('follows the endpoint rules: a refused endpoint is not fetched, the attempt records why and sends no signature', async () => {
    const p = await newPlatform({ webhookEndpoint: 'http://localhost:8787/hook' });
    const eventId = await writeEvent(p.id, Date.now());
    const id = (await deliveryOf(eventId)).id;
    const res = await productionApi('POST', `/webhooks/deliveries/${encodeURIComponent(id)}/resend`, { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'PENDING', attempts: 1, url: 'http://localhost:8787/hook' });
    expect(res.body.lastError).toMatch(/^webhookEndpoint refused: /);
    expect(res.body.payload).toContain(eventId);
    for (const field of ['signature', 'lastResponseBody', 'lastResponseStatus']) expect(res.body).not.toHaveProperty(field);
  });

  it('answers 404 for another platform’s or an unknown delivery, 403 without MANAGE, 400 without an endpoint', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const other = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const eventId = await writeEvent(p.id, Date.now());
    const id = (await deliveryOf(eventId)).id;

    expectError(await resend(other.auth, id), 404, 'REFERENCE_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND');
    expectError(await resend(p.auth, 'WebhookDelivery:nope'), 404, 'REFERENCE_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND');
    expectError(await resend(await tokenWith(p, ['VIEW']), id), 403, 'FORBIDDEN');
    expectError(await resend(await tokenWith(p, ['VIEW', 'TRANSACT']), id), 403, 'FORBIDDEN');
    expectError(await api('POST', `/webhooks/deliveries/${encodeURIComponent(id)}/resend`), 401, 'UNAUTHORIZED');
    expect(hook.calls).toHaveLength(0);
    expect(await deliveryOf(eventId)).toMatchObject({ attempts: 0, status: 'PENDING' });

    const bare = await newPlatform();
    const bareId = (await deliveryOf(await writeEvent(bare.id, Date.now()))).id;
    expectError(await resend(bare.auth, bareId), 400, 'WEBHOOK_ENDPOINT_NOT_SET');
  });

  it('is documented in /openapi.json with the new WebhookDelivery fields', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const op = doc.paths['/webhooks/deliveries/{deliveryId}/resend'].post;
    expect(op.operationId).toBe('resendWebhookDelivery');
    expect(op.tags).toEqual(['Webhooks']);
    expect(op['x-required-permission']).toBe('MANAGE');
    // 409: every write of a platform while the operator moves it (PLATFORM_MOVING).
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '429']);
    const schema = doc.components.schemas.WebhookDelivery;
    for (const field of NEW_FIELDS) {
      expect(schema.properties[field].type).toBe('string');
      expect(schema.required).not.toContain(field);
    }
  });
});
