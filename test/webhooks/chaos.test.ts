import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { database } from '../../src/db/client';
import { webhookDeliveries, webhookEvents } from '../../src/db/schema';
import { eventFields, legacyEvent } from '../../src/webhooks/outbox';
import { newId } from '../../src/crypto/ids';
import { purgeSettledDeliveries } from '../../src/webhooks/retention';
import { eq } from 'drizzle-orm';
import { api, expectError, failingFields, newPlatform, productionApi, type TestPlatform } from '../support/api';
import { customerWithAccounts, externalAccount, fund } from '../support/payments';
import { consume, fakeEndpoint, hookUrl, verifySignature } from '../support/webhooks';

const T0 = Date.parse('2033-02-01T09:00:00.000Z');
const at = (ms: number) => vi.setSystemTime(new Date(ms));
beforeEach(() => at(T0));
afterEach(() => vi.useRealTimers());

const send = (p: TestPlatform, body: Record<string, unknown>) => api('POST', '/sandbox/webhooks/send', { auth: p.auth, body });
const deliver = (eventId: string) => ({ type: 'webhook.deliver', eventId });
const publicKey = async (p: TestPlatform) => (await api('GET', '/config', { auth: p.auth })).body.webhookPublicKey as string;
const getDelivery = async (p: TestPlatform, id: string) =>
  (await api('GET', `/webhooks/deliveries/${encodeURIComponent(id)}`, { auth: p.auth })).body;
const replay = (p: TestPlatform, body: Record<string, unknown>) => api('POST', '/webhooks/deliveries/replay', { auth: p.auth, body });

/** A platform with a fake receiver answering `answer`, and a customer's USD account (its view as listed). */
async function setup(answer: (n: number) => number = () => 200) {
  const url = hookUrl();
  const p = await newPlatform({ webhookEndpoint: url });
  const hook = fakeEndpoint(url, answer);
  const { customer, accounts } = await customerWithAccounts(p);
  const account = async () =>
    (await api('GET', `/customers/internal-accounts?customerId=${customer.id}`, { auth: p.auth })).body.data.find(
      (a: any) => a.id === accounts.USD,
    );
  return { p, hook, accountId: accounts.USD!, account };
}

/** The receiver's calls about event `eventId`, as parsed envelopes with their signatures. */
const callsOf = (hook: ReturnType<typeof fakeEndpoint>, eventId?: string) =>
  hook.calls
    .map((c) => ({ ...JSON.parse(c.body), raw: c.body, signature: c.headers.get('X-Service-Signature')! }))
    .filter((c) => eventId === undefined || c.id === eventId);

describe('POST /sandbox/webhooks/send', () => {
  it('NORMAL with resourceId: the resource as it is now, signed, through the queue; listed with its mode', async () => {
    const { p, hook, accountId, account } = await setup();
    await fund(p, accountId, 1_234);
    const res = await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', resourceId: accountId });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.deliveries).toHaveLength(1);
    const delivery = res.body.deliveries[0];
    expect(delivery).toMatchObject({ mode: 'NORMAL', status: 'PENDING', eventType: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', attempts: 0 });

    await consume(deliver(delivery.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, delivery.id)).status).toBe('DELIVERED'));
    const [call] = callsOf(hook, delivery.eventId);
    expect(call.type).toBe('INTERNAL_ACCOUNT.BALANCE_UPDATED');
    expect(call.data).toEqual(await account());
    expect(call.data.balance.amount).toBe(1_234);
    expect(await verifySignature(await publicKey(p), call.raw, call.signature)).toBe(true);

    const list = await api('GET', `/webhooks/deliveries?eventId=${delivery.eventId}`, { auth: p.auth });
    expect(list.body.data).toEqual([expect.objectContaining({ id: delivery.id, mode: 'NORMAL', status: 'DELIVERED' })]);
    // Deliveries of ordinary events are NORMAL too.
    const all = await api('GET', '/webhooks/deliveries?limit=100', { auth: p.auth });
    expect(new Set(all.body.data.map((d: any) => d.mode))).toEqual(new Set(['NORMAL']));
  });

  it('resourceId sends a transaction and a customer as their GETs show them now', async () => {
    const { p, hook, accountId } = await setup();
    await fund(p, accountId, 5_000);
    const customers = await api('GET', '/customers', { auth: p.auth });
    const customer = customers.body.data[0];
    const ext = await externalAccount(p, customer.id, 'USD', '321');
    const out = await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'chaos-out' },
      body: { source: { accountId }, destination: { accountId: ext }, amount: 1_000 },
    });
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    for (const [type, id, path] of [
      ['OUTGOING_PAYMENT.COMPLETED', out.body.id, `/transactions/${out.body.id}`],
      ['CUSTOMER.KYC_APPROVED', customer.id, `/customers/${customer.id}`],
    ]) {
      const res = await send(p, { type, resourceId: id });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const { eventId } = res.body.deliveries[0];
      await consume(deliver(eventId));
      await vi.waitFor(() => expect(callsOf(hook, eventId)).toHaveLength(1));
      expect(callsOf(hook, eventId)[0].data).toEqual((await api('GET', path!, { auth: p.auth })).body);
    }
  });

  it('data is sent as given once it fits the type’s schema; a misfit is 400 naming the field', async () => {
    const { p, hook, account } = await setup();
    const view = await account();
    const bad = await send(p, {
      type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
      data: { ...view, balance: { ...view.balance, amount: 'lots' } },
    });
    expectError(bad, 400, 'INVALID_INPUT');
    expect(failingFields(bad)).toEqual(['data.balance.amount']);
    const missing = await send(p, { type: 'INTERNAL_ACCOUNT.STATUS_UPDATED', data: { ...view, id: undefined } });
    expect(failingFields(missing)).toEqual(['data.id']);

    const data = { ...view, status: 'FROZEN' };
    const res = await send(p, { type: 'INTERNAL_ACCOUNT.STATUS_UPDATED', data });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const { eventId } = res.body.deliveries[0];
    await consume(deliver(eventId));
    await vi.waitFor(() => expect(callsOf(hook, eventId)).toHaveLength(1));
    expect(callsOf(hook, eventId)[0].data).toEqual(data);
  });

  it('refuses what does not fit: both or neither of resourceId and data, a resource of another kind, another platform’s resource', async () => {
    const { p, accountId } = await setup();
    const other = await setup();
    expect(failingFields(await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED' }))).toEqual(['resourceId']);
    expect(failingFields(await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', resourceId: accountId, data: {} }))).toEqual(['data']);
    expect(failingFields(await send(p, { type: 'OUTGOING_PAYMENT.COMPLETED', resourceId: accountId }))).toEqual(['resourceId']);
    expect(failingFields(await send(p, { type: 'TEST', resourceId: accountId }))).toEqual(['resourceId']);
    expect(failingFields(await send(p, { type: 'TEST', data: {}, mode: 'DELAYED' }))).toEqual(['delaySeconds']);
    expect(failingFields(await send(p, { type: 'TEST', data: {}, mode: 'DELAYED', delaySeconds: 3_601 }))).toEqual(['delaySeconds']);
    expect(failingFields(await send(p, { type: 'TEST', data: {}, delaySeconds: 5 }))).toEqual(['delaySeconds']);
    expect(failingFields(await send(p, { type: 'TEST', data: {}, mode: 'OUT_OF_ORDER' }))).toEqual(['resourceId']);
    expectError(await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', resourceId: other.accountId }), 404, 'REFERENCE_NOT_FOUND');
    expectError(await send(p, { type: 'CUSTOMER.KYC_APPROVED', resourceId: 'Customer:nope' }), 404, 'REFERENCE_NOT_FOUND');
  });

  it('DUPLICATE: the same event, one event id, delivered twice; resend works on either delivery', async () => {
    const { p, hook } = await setup();
    const res = await send(p, { type: 'TEST', data: {}, mode: 'DUPLICATE' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const [a, b] = res.body.deliveries;
    expect(a.id).not.toBe(b.id);
    expect(a.eventId).toBe(b.eventId);
    expect([a.mode, b.mode]).toEqual(['DUPLICATE', 'DUPLICATE']);

    await consume(deliver(a.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, b.id)).status).toBe('DELIVERED'));
    expect((await getDelivery(p, a.id)).status).toBe('DELIVERED');
    const calls = callsOf(hook, a.eventId);
    expect(calls).toHaveLength(2);
    expect(calls[0].raw).toBe(calls[1].raw);
    const key = await publicKey(p);
    for (const c of calls) expect(await verifySignature(key, c.raw, c.signature)).toBe(true);
    const listed = await api('GET', `/webhooks/deliveries?eventId=${encodeURIComponent(a.eventId)}`, { auth: p.auth });
    expect(listed.body.data.map((d: any) => d.id).sort()).toEqual([a.id, b.id].sort());

    const again = await api('POST', `/webhooks/deliveries/${encodeURIComponent(b.id)}/resend`, { auth: p.auth });
    expect(again.body).toMatchObject({ id: b.id, mode: 'DUPLICATE', status: 'DELIVERED', attempts: 2 });
    expect(callsOf(hook, a.eventId)).toHaveLength(3);
  });

  it('BAD_SIGNATURE: a signature that does not verify under webhookPublicKey; attempted once; resend signs badly again', async () => {
    const { p, hook } = await setup(() => 401);
    const res = await send(p, { type: 'TEST', data: {}, mode: 'BAD_SIGNATURE' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const [d] = res.body.deliveries;
    expect(d.mode).toBe('BAD_SIGNATURE');
    await consume(deliver(d.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, d.id)).status).toBe('FAILED'));
    const key = await publicKey(p);
    const [call] = callsOf(hook, d.eventId);
    expect(call.signature).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(await verifySignature(key, call.raw, call.signature)).toBe(false);
    expect(await getDelivery(p, d.id)).toMatchObject({ attempts: 1, lastResponseStatus: 401 });
    // The refusal is the result: no retry comes.
    at(T0 + 3_600_000);
    await consume(deliver(d.eventId));
    expect(callsOf(hook, d.eventId)).toHaveLength(1);

    const again = await api('POST', `/webhooks/deliveries/${encodeURIComponent(d.id)}/resend`, { auth: p.auth });
    expect(again.body).toMatchObject({ mode: 'BAD_SIGNATURE', attempts: 2, lastResponseStatus: 401 });
    const second = callsOf(hook, d.eventId)[1]!;
    expect(second.raw).toBe(call.raw);
    expect(await verifySignature(key, second.raw, second.signature)).toBe(false);
  });

  it('DELAYED: nothing before delaySeconds; then delivered, or at once when the sandbox clock advances past it', async () => {
    const { p, hook } = await setup();
    const late = (await send(p, { type: 'TEST', data: {}, mode: 'DELAYED', delaySeconds: 600 })).body.deliveries[0];
    const early = (await send(p, { type: 'TEST', data: {}, mode: 'DELAYED', delaySeconds: 3_600 })).body.deliveries[0];
    expect(late).toMatchObject({ mode: 'DELAYED', status: 'PENDING', nextAttemptAt: new Date(T0 + 600_000).toISOString() });

    await consume(deliver(late.eventId), deliver(early.eventId));
    at(T0 + 599_000);
    await consume(deliver(late.eventId));
    expect(callsOf(hook)).toHaveLength(0);
    at(T0 + 600_000);
    await consume(deliver(late.eventId), deliver(early.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, late.id)).status).toBe('DELIVERED'));
    expect(callsOf(hook, early.eventId)).toHaveLength(0);

    // The clock advance releases the hour-long one now, 10 minutes into it.
    const advanced = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 3_000 } });
    expect(advanced.status).toBe(200);
    await consume(deliver(early.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, early.id)).status).toBe('DELIVERED'));
    expect(callsOf(hook, early.eventId)).toHaveLength(1);
  });

  it('OUT_OF_ORDER: the resource’s latest event, then its earlier one after it; 400 with fewer than two events', async () => {
    const { p, hook, accountId } = await setup();
    expectError(await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', resourceId: accountId, mode: 'OUT_OF_ORDER' }), 400);
    await fund(p, accountId, 100);
    expect(failingFields(await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', resourceId: accountId, mode: 'OUT_OF_ORDER' }))).toEqual(
      ['resourceId'],
    );
    at(T0 + 1_000);
    await fund(p, accountId, 200);
    // The receiver has had both events (the real queue may be sending them too); the chaos comes after.
    const past = (await api('GET', '/webhooks/deliveries?eventType=INTERNAL_ACCOUNT.BALANCE_UPDATED', { auth: p.auth })).body.data;
    await consume(...past.map((d: any) => deliver(d.eventId)));
    await vi.waitFor(async () => {
      const now = (await api('GET', '/webhooks/deliveries?eventType=INTERNAL_ACCOUNT.BALANCE_UPDATED', { auth: p.auth })).body.data;
      expect(now.map((d: any) => d.status)).toEqual(['DELIVERED', 'DELIVERED']);
    });
    const mark = hook.calls.length;
    at(T0 + 2_000);
    const res = await send(p, { type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', resourceId: accountId, mode: 'OUT_OF_ORDER' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const [latest, earlier] = res.body.deliveries;
    expect([latest.mode, earlier.mode]).toEqual(['OUT_OF_ORDER', 'OUT_OF_ORDER']);
    expect(latest.eventId > earlier.eventId).toBe(true);

    await consume(deliver(latest.eventId), deliver(earlier.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, latest.id)).status).toBe('DELIVERED'));
    expect((await getDelivery(p, earlier.id)).status).toBe('PENDING');
    at(T0 + 3_000);
    await consume(deliver(earlier.eventId));
    await vi.waitFor(async () => expect((await getDelivery(p, earlier.id)).status).toBe('DELIVERED'));
    // The newer balance, then the older one.
    expect(
      callsOf(hook)
        .slice(mark)
        .map((c) => [c.id, c.data.balance.amount]),
    ).toEqual([
      [latest.eventId, 300],
      [earlier.eventId, 100],
    ]);
  });

  it('retention keeps an event while another delivery of it remains, and purges it with its last one', async () => {
    const { p } = await setup();
    const [a, b] = (await send(p, { type: 'TEST', data: {}, mode: 'DUPLICATE' })).body.deliveries;
    const db = database(env.DB);
    // One of the pair settled long ago, the other still pending.
    await db.update(webhookDeliveries).set({ status: 'DELIVERED', sweepAt: 0 }).where(eq(webhookDeliveries.id, a.id));
    await purgeSettledDeliveries(db, T0, 1_000, 1_000_000);
    const event = () =>
      db.select(eventFields).from(webhookDeliveries).leftJoin(webhookEvents, legacyEvent).where(eq(webhookDeliveries.eventId, a.eventId));
    expect(await event()).toHaveLength(1);
    expect((await getDelivery(p, b.id)).eventId).toBe(a.eventId);
    await db.update(webhookDeliveries).set({ status: 'FAILED', sweepAt: 0 }).where(eq(webhookDeliveries.id, b.id));
    await purgeSettledDeliveries(db, T0, 1_000, 1_000_000);
    expect(await event()).toHaveLength(0);
  });

  it('is 404 in production', async () => {
    const { p } = await setup();
    expectError(await productionApi('POST', '/sandbox/webhooks/send', { auth: p.auth, body: { type: 'TEST', data: {} } }), 404);
  });
});

describe('POST /webhooks/deliveries/replay', () => {
  /** Event and delivery rows written straight to the tables (the list of a long history), created `at`. */
  async function pastDeliveries(platformId: string, rows: { at: number; type?: string; status?: 'DELIVERED' | 'FAILED' }[]) {
    const db = database(env.DB);
    const ids: string[] = [];
    // D1 takes 100 bound values a statement: 8 rows of deliveries (11 columns) per insert.
    for (let i = 0; i < rows.length; i += 8) {
      const chunk = rows.slice(i, i + 8).map((r) => {
        const eventId = newId('Webhook', r.at);
        const id = newId('WebhookDelivery', r.at);
        ids.push(id);
        const type = r.type ?? 'TEST';
        return {
          event: { id: eventId, platformId, type, timestamp: r.at, data: {} },
          delivery: {
            id,
            platformId,
            eventId,
            eventType: type,
            status: r.status ?? 'DELIVERED',
            attempts: 1,
            nextAttemptAt: r.at,
            createdAt: r.at,
            updatedAt: r.at,
            sweepAt: r.at,
          },
        };
      });
      await db.batch([
        db.insert(webhookEvents).values(chunk.map((c) => c.event)),
        db.insert(webhookDeliveries).values(chunk.map((c) => c.delivery)),
      ]);
    }
    return ids;
  }

  it('re-sends the matching deliveries oldest first through the queue, by type, status and creation time', async () => {
    const { p, hook } = await setup();
    const other = await setup();
    const H = 3_600_000;
    const ids = await pastDeliveries(p.id, [
      { at: T0 - 5 * H, type: 'TEST' },
      { at: T0 - 4 * H, type: 'CUSTOMER.KYC_APPROVED', status: 'FAILED' },
      { at: T0 - 3 * H, type: 'CUSTOMER.KYC_APPROVED' },
      { at: T0 - 2 * H, type: 'CUSTOMER.KYC_APPROVED', status: 'FAILED' },
      { at: T0 - 1 * H, type: 'TEST', status: 'FAILED' },
    ]);
    const theirs = await pastDeliveries(other.p.id, [{ at: T0 - 3 * H, type: 'CUSTOMER.KYC_APPROVED', status: 'FAILED' }]);

    const byType = await replay(p, { type: 'CUSTOMER.KYC_APPROVED' });
    expect(byType.status, JSON.stringify(byType.body)).toBe(202);
    expect(byType.body).toEqual({ count: 3, deliveryIds: [ids[1], ids[2], ids[3]] });
    expect((await replay(p, { status: 'FAILED', type: 'TEST' })).body).toEqual({ count: 1, deliveryIds: [ids[4]] });
    const range = await replay(p, { createdAfter: new Date(T0 - 4 * H).toISOString(), createdBefore: new Date(T0 - 2 * H).toISOString() });
    expect(range.body).toEqual({ count: 2, deliveryIds: [ids[1], ids[2]] });

    // The replayed ones are due now: the consumer (this call, or the real queue first) sends each, and the
    // receiver's 200 settles them. The one no filter matched keeps its single attempt.
    const events = await Promise.all(ids.slice(1).map(async (id) => (await getDelivery(p, id)).eventId));
    await consume(...events.map(deliver));
    await vi.waitFor(async () => {
      for (const id of ids.slice(1)) expect((await getDelivery(p, id)).status).toBe('DELIVERED');
    });
    for (const id of ids.slice(1)) expect((await getDelivery(p, id)).attempts).toBeGreaterThanOrEqual(2);
    const sent = new Set(callsOf(hook).map((c) => c.id));
    for (const eventId of events) expect(sent.has(eventId)).toBe(true);
    expect(await getDelivery(p, ids[0]!)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    // Another platform's deliveries are untouched.
    expect(await getDelivery(other.p, theirs[0]!)).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(other.hook.calls).toHaveLength(0);
  });

  it('re-sends at most 1,000, the oldest; an Idempotency-Key replays the answer', async () => {
    const { p } = await setup(() => 500);
    const ids = await pastDeliveries(
      p.id,
      Array.from({ length: 1_001 }, (_, i) => ({ at: T0 - 2_000_000 + i * 1_000 })),
    );
    const headers = { 'Idempotency-Key': 'replay-1' };
    const res = await api('POST', '/webhooks/deliveries/replay', { auth: p.auth, body: {}, headers });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.count).toBe(1_000);
    expect(res.body.deliveryIds).toEqual(ids.slice(0, 1_000));
    expect((await getDelivery(p, ids[1_000]!)).status).toBe('DELIVERED');
    const again = await api('POST', '/webhooks/deliveries/replay', { auth: p.auth, body: {}, headers });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(res.body);
  });

  it('needs MANAGE and is served in production too', async () => {
    const { p } = await setup();
    const viewer = await api('POST', '/tokens', { auth: p.auth, body: { name: 'viewer', permissions: ['VIEW'] } });
    const auth = `Basic ${btoa(`${viewer.body.clientId}:${viewer.body.clientSecret}`)}`;
    expectError(await api('POST', '/webhooks/deliveries/replay', { auth, body: {} }), 403);
    const prod = await productionApi('POST', '/webhooks/deliveries/replay', { auth: p.auth, body: { status: 'FAILED' } });
    expect(prod.status, JSON.stringify(prod.body)).toBe(202);
    expect(prod.body).toEqual({ count: 0, deliveryIds: [] });
  });
});
