import { describe, expect, it } from 'vitest';
import { deliverEvent } from '../../src/webhooks/delivery';
import { api, expectError, failingFields, newPlatform, productionApi, tokenWith } from '../support/api';
import { deps, deliveryOf, fakeEndpoint, hookUrl, verifySignature, writeEvent } from '../support/webhooks';
import { measured } from '../perf/counting';

/** The Worker in production mode, called the way the runtime would. */
const production = (method: string, path: string, auth: string, body?: unknown) => productionApi(method, path, { auth, body });

describe('GET /config webhook fields', () => {
  it('shows webhookPublicKey (PEM SPKI) and, in sandbox, sandboxUmaDomain; both read-only (ignored when sent)', async () => {
    const p = await newPlatform();
    const res = await api('GET', '/config', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body.webhookPublicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(res.body.sandboxUmaDomain).toBe('sandbox.uma.test');
    const key = atob(res.body.webhookPublicKey.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''));
    expect(key.length).toBe(91); // SPKI DER of an uncompressed P-256 point

    const patched = await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: 'other.test' } });
    expect(patched.body.webhookPublicKey).toBe(res.body.webhookPublicKey);
    for (const field of ['webhookPublicKey', 'sandboxUmaDomain']) {
      const sent = await api('PATCH', '/config', { auth: p.auth, body: { [field]: 'x' } });
      expect(sent.status).toBe(200);
      expect(sent.body[field]).toBe(res.body[field]);
    }
  });

  it('omits sandboxUmaDomain in production mode', async () => {
    const p = await newPlatform();
    const res = await production('GET', '/config', p.auth);
    expect(res.status).toBe(200);
    expect(res.body.webhookPublicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(res.body).not.toHaveProperty('sandboxUmaDomain');
  });
});

describe('POST /sandbox/webhooks/test', () => {
  it('sends a signed TEST event and reports the answer', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const res = await api('POST', '/sandbox/webhooks/test', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url, response_status: 200, response_body: 'answer 1', eventId: expect.stringMatching(/^Webhook:/) });

    expect(hook.calls).toHaveLength(1);
    const sent = JSON.parse(hook.calls[0]!.body);
    expect(sent).toEqual({ id: res.body.eventId, type: 'TEST', timestamp: expect.stringMatching(/Z$/), data: {} });
    const { body: config } = await api('GET', '/config', { auth: p.auth });
    expect(await verifySignature(config.webhookPublicKey, hook.calls[0]!.body, hook.calls[0]!.headers.get('X-Service-Signature')!)).toBe(
      true,
    );

    const list = await api('GET', '/webhooks/deliveries', { auth: p.auth });
    expect(list.body.data).toEqual([
      expect.objectContaining({
        eventId: res.body.eventId,
        eventType: 'TEST',
        status: 'DELIVERED',
        attempts: 1,
        lastResponseStatus: 200,
        url,
      }),
    ]);
  });

  it('answers 400 WEBHOOK_DELIVERY_ERROR with the endpoint status, and does not retry a TEST event', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 500);
    const res = await api('POST', '/sandbox/webhooks/test', { auth: p.auth });
    const body = expectError(res, 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(body.details).toEqual({ url, eventId: expect.stringMatching(/^Webhook:/), response_status: 500, response_body: 'answer 1' });
    expect(await deliveryOf(body.details.eventId)).toMatchObject({ status: 'FAILED', attempts: 1, lastResponseStatus: 500 });
    expect(await deliverEvent(deps(), body.details.eventId, Date.now() + 3_600_000)).toEqual({ result: 'not_due' });
    expect(hook.calls).toHaveLength(1);
  });

  it('answers 400 WEBHOOK_DELIVERY_ERROR on a network error', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    fakeEndpoint(url, () => {
      throw new TypeError('getaddrinfo ENOTFOUND');
    });
    const body = expectError(await api('POST', '/sandbox/webhooks/test', { auth: p.auth }), 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(body.details.error).toBe('Connection failed');
    expect(JSON.stringify(body)).not.toContain('ENOTFOUND');
    expect(body.details).not.toHaveProperty('response_status');
  });

  it('answers 400 WEBHOOK_ENDPOINT_NOT_SET without an endpoint', async () => {
    const p = await newPlatform();
    expectError(await api('POST', '/sandbox/webhooks/test', { auth: p.auth }), 400, 'WEBHOOK_ENDPOINT_NOT_SET');
  });

  it('needs MANAGE, answers 401 without credentials and 404 in production', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    expectError(await api('POST', '/sandbox/webhooks/test', { auth: await tokenWith(p, ['VIEW', 'TRANSACT']) }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/sandbox/webhooks/test'), 401, 'UNAUTHORIZED');
    const prod = await production('POST', '/sandbox/webhooks/test', p.auth);
    expect(prod.status).toBe(404);
    expect(prod.body).toMatchObject({ code: 'REFERENCE_NOT_FOUND', details: { reason: 'ROUTE_NOT_FOUND' } });
    // Production hides it even from unauthenticated callers and other methods.
    expect((await production('GET', '/sandbox/webhooks/test', 'Basic bm9uZTpub25l')).status).toBe(404);
    expect(hook.calls).toHaveLength(0);
  });
});

describe('POST /webhooks/test (the path the SDK posts to)', () => {
  it('is the same operation as /sandbox/webhooks/test: same answer, same event', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n === 1 ? 200 : 500));
    const res = await api('POST', '/webhooks/test', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url, response_status: 200, response_body: 'answer 1', eventId: expect.stringMatching(/^Webhook:/) });
    expect(JSON.parse(hook.calls[0]!.body)).toMatchObject({ id: res.body.eventId, type: 'TEST', data: {} });
    const failed = expectError(await api('POST', '/webhooks/test', { auth: p.auth }), 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(failed.details).toMatchObject({ url, response_status: 500 });
    expectError(await api('POST', '/webhooks/test', { auth: await tokenWith(p, ['VIEW', 'TRANSACT']) }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/webhooks/test'), 401, 'UNAUTHORIZED');
    expectError(await api('POST', '/webhooks/test', { auth: (await newPlatform()).auth }), 400, 'WEBHOOK_ENDPOINT_NOT_SET');
    expect(hook.calls).toHaveLength(2);
  });

  it('is served in production, under the production endpoint rules', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const res = await production('POST', '/webhooks/test', p.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url, response_status: 200 });
    expect(hook.calls).toHaveLength(1);

    // A loopback endpoint, fine in sandbox, is refused by a production delivery without being fetched.
    const local = await newPlatform({ webhookEndpoint: 'http://localhost:8787/hook' });
    const refused = expectError(await production('POST', '/webhooks/test', local.auth), 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(refused.details.error).toMatch(/^webhookEndpoint refused: /);
    expect(refused.details).not.toHaveProperty('response_status');
  });
});

describe('GET /webhooks/deliveries', () => {
  it('lists the platform’s deliveries newest first, with filters and a keyset cursor', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    fakeEndpoint(url, (n) => (n === 1 ? 200 : 500));
    const t = Date.now();
    const e1 = await writeEvent(p.id, t, 'OUTGOING_PAYMENT.COMPLETED');
    const e2 = await writeEvent(p.id, t + 1, 'INCOMING_PAYMENT.PENDING');
    const e3 = await writeEvent(p.id, t + 2, 'OUTGOING_PAYMENT.COMPLETED');
    await deliverEvent(deps(), e1, t + 10);
    await deliverEvent(deps(), e2, t + 10);

    const all = await api('GET', '/webhooks/deliveries', { auth: p.auth });
    expect(all.status).toBe(200);
    expect(all.body.totalCount).toBe(3);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.data.map((d: any) => d.eventId)).toEqual([e3, e2, e1]);
    const [d3, d2, d1] = all.body.data;
    expect(d1).toEqual({
      id: expect.stringMatching(/^WebhookDelivery:/),
      eventId: e1,
      eventType: 'OUTGOING_PAYMENT.COMPLETED',
      status: 'DELIVERED',
      mode: 'NORMAL',
      attempts: 1,
      url,
      lastResponseStatus: 200,
      lastResponseBody: 'answer 1',
      payload: expect.stringContaining(`"id":"${e1}"`),
      signature: expect.any(String),
      lastAttemptAt: new Date(t + 10).toISOString(),
      deliveredAt: new Date(t + 10).toISOString(),
      createdAt: new Date(t).toISOString(),
      updatedAt: new Date(t + 10).toISOString(),
    });
    expect(d2).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: 500,
      nextAttemptAt: new Date(t + 10 + 30_000).toISOString(),
    });
    expect(d3).toEqual({
      id: expect.any(String),
      eventId: e3,
      eventType: 'OUTGOING_PAYMENT.COMPLETED',
      status: 'PENDING',
      mode: 'NORMAL',
      attempts: 0,
      nextAttemptAt: new Date(t + 2).toISOString(),
      createdAt: new Date(t + 2).toISOString(),
      updatedAt: new Date(t + 2).toISOString(),
    });

    const byType = await api('GET', '/webhooks/deliveries?eventType=OUTGOING_PAYMENT.COMPLETED', { auth: p.auth });
    expect(byType.body.data.map((d: any) => d.eventId)).toEqual([e3, e1]);
    const byStatus = await api('GET', '/webhooks/deliveries?status=DELIVERED', { auth: p.auth });
    expect(byStatus.body.data.map((d: any) => d.eventId)).toEqual([e1]);
    const byEvent = await api('GET', `/webhooks/deliveries?eventId=${encodeURIComponent(e2)}`, { auth: p.auth });
    expect(byEvent.body.data.map((d: any) => d.eventId)).toEqual([e2]);

    const page1 = await api('GET', '/webhooks/deliveries?limit=2', { auth: p.auth });
    expect(page1.body).toMatchObject({ hasMore: true, totalCount: 3, nextCursor: expect.any(String) });
    const page2 = await api('GET', `/webhooks/deliveries?limit=2&cursor=${page1.body.nextCursor}`, { auth: p.auth });
    expect(page2.body.data.map((d: any) => d.eventId)).toEqual([e1]);
    expect(page2.body.hasMore).toBe(false);
    expect(page2.body).not.toHaveProperty('nextCursor');

    const one = await api('GET', `/webhooks/deliveries/${encodeURIComponent(d1.id)}`, { auth: p.auth });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(d1);
  });

  it('totalCount comes from maintained counters (all, per status), by a bounded count for eventId, and is omitted for eventType', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const other = await newPlatform();
    fakeEndpoint(url, () => 200);
    const t = Date.now();
    const e1 = await writeEvent(p.id, t, 'OUTGOING_PAYMENT.COMPLETED');
    await writeEvent(p.id, t + 1, 'INCOMING_PAYMENT.PENDING');
    await writeEvent(p.id, t + 2, 'OUTGOING_PAYMENT.COMPLETED');
    await writeEvent(other.id, t, 'OUTGOING_PAYMENT.COMPLETED');
    await deliverEvent(deps(), e1, t + 10);
    const total = async (query: string) => (await api('GET', `/webhooks/deliveries${query}`, { auth: p.auth })).body.totalCount;

    expect(await total('')).toBe(3);
    expect(await total('?status=PENDING')).toBe(2);
    expect(await total('?status=DELIVERED')).toBe(1);
    expect(await total('?status=FAILED')).toBe(0);
    expect(await total(`?eventId=${encodeURIComponent(e1)}`)).toBe(1);
    expect(await total(`?eventId=${encodeURIComponent(e1)}&status=PENDING`)).toBe(0);
    // No counter per event type (nor per type and status): the field is left out rather than counted by a scan.
    expect(await total('?eventType=OUTGOING_PAYMENT.COMPLETED')).toBeUndefined();
    expect(await total('?eventType=OUTGOING_PAYMENT.COMPLETED&status=PENDING')).toBeUndefined();

    // The page reads the counter, never counts the platform's rows.
    for (const query of ['', '?status=PENDING']) {
      const res = await measured('GET', `/webhooks/deliveries${query}`, { auth: p.auth });
      expect(res.cost.sql.filter((s) => /count\(/i.test(s.query))).toEqual([]);
    }

    // A sandbox reset deletes the rows, and the counters follow.
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    expect(await total('')).toBe(0);
    expect(await total('?status=PENDING')).toBe(0);
    expect((await api('GET', '/webhooks/deliveries', { auth: other.auth })).body.totalCount).toBe(1);
  });

  it('keeps platforms apart: other platforms see nothing and get 404', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const eventId = await writeEvent(p.id, Date.now());
    const mine = await api('GET', '/webhooks/deliveries', { auth: p.auth });
    expect(mine.body.data).toHaveLength(1);
    const theirs = await api('GET', '/webhooks/deliveries', { auth: other.auth });
    expect(theirs.body).toEqual({ data: [], hasMore: false, totalCount: 0 });
    expect((await api('GET', `/webhooks/deliveries?eventId=${encodeURIComponent(eventId)}`, { auth: other.auth })).body.data).toEqual([]);
    const id = encodeURIComponent(mine.body.data[0].id);
    expectError(
      await api('GET', `/webhooks/deliveries/${id}`, { auth: other.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
    expectError(
      await api('GET', '/webhooks/deliveries/WebhookDelivery:nope', { auth: p.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
  });

  it('validates filters and needs VIEW', async () => {
    const p = await newPlatform();
    const bad = await api('GET', '/webhooks/deliveries?status=LOST&eventType=NOPE&limit=0', { auth: p.auth });
    expectError(bad, 400, 'INVALID_INPUT');
    expect(failingFields(bad).sort()).toEqual(['eventType', 'limit', 'status']);
    expectError(await api('GET', '/webhooks/deliveries?cursor=%%%', { auth: p.auth }), 400, 'INVALID_INPUT');
    const noView = await tokenWith(p, ['TRANSACT', 'MANAGE']);
    expectError(await api('GET', '/webhooks/deliveries', { auth: noView }), 403, 'FORBIDDEN');
    expectError(await api('GET', '/webhooks/deliveries/x', { auth: noView }), 403, 'FORBIDDEN');
    expectError(await api('GET', '/webhooks/deliveries'), 401, 'UNAUTHORIZED');
  });
});

describe('OpenAPI', () => {
  it('documents the webhook, rate and sandbox-clock operations', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    expect(paths['/webhooks/deliveries'].get.operationId).toBe('listWebhookDeliveries');
    expect(paths['/webhooks/deliveries/{deliveryId}'].get.operationId).toBe('getWebhookDelivery');
    expect(paths['/sandbox/webhooks/test'].post.operationId).toBe('sendTestWebhook');
    expect(paths['/webhooks/test'].post.operationId).toBe('sendWebhookTest');
    expect(paths['/sandbox/clock/advance'].post.operationId).toBe('advanceSandboxClock');
    expect(paths['/exchange-rates'].get.parameters.map((p: any) => p.name)).toEqual([
      'sourceCurrency',
      'destinationCurrency',
      'sendingAmount',
    ]);
    const schemas = res.body.components.schemas;
    expect(schemas.WebhookType.enum).toContain('OUTGOING_PAYMENT.COMPLETED');
    expect(Object.keys(schemas.OutgoingRateDetails.properties)).toEqual([
      'counterpartyMultiplier',
      'counterpartyFixedFee',
      'serviceApiMultiplier',
      'serviceApiFixedFee',
      'serviceApiVariableFeeRate',
      'serviceApiVariableFeeAmount',
    ]);
    expect(schemas.PlatformConfig.required).toContain('webhookPublicKey');
  });
});
