import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { iso } from '../../src/common/time';
import { api, expectError, failingFields, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { advance, events } from '../support/payments';
import { consume, deliveryOf, fakeEndpoint, hookUrl, verifySignature } from '../support/webhooks';

const T0 = Date.parse('2033-03-01T09:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

/** A platform with one customer whose UMA address is `$<local>@<its domain>`. */
async function platformWithCustomer(local: string, overrides: Record<string, unknown> = {}) {
  const p = await newPlatform(overrides);
  const customer = await createCustomer(p, individualBody({ umaAddress: `$${local}@${p.umaDomain}` }));
  return { p, customer, uma: customer.umaAddress as string };
}

const invite = (p: TestPlatform, body: Record<string, unknown>) => api('POST', '/invitations', { auth: p.auth, body });
const claim = (p: TestPlatform, code: string, inviteeUma: string) =>
  api('POST', `/invitations/${code}/claim`, { auth: p.auth, body: { inviteeUma } });
const cancel = (p: TestPlatform, code: string) => api('POST', `/invitations/${code}/cancel`, { auth: p.auth });
const claimedEvents = async (platformId: string) => (await events(platformId)).filter((e) => e.type === 'INVITATION.CLAIMED');

describe('POST /invitations', () => {
  it("creates a pending invitation from one of the platform's customers, readable by its code from any platform", async () => {
    const a = await platformWithCustomer('Alice');
    const res = await invite(a.p, {
      inviterUma: `$alice@${a.p.umaDomain.toUpperCase()}`,
      firstName: 'Alice',
      amountToSend: 12_550,
      expiresAt: '2033-03-02T09:00:00+00:00',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const code = res.body.code as string;
    expect(code).toMatch(/^[0-9a-f]{16}$/);
    expect(res.body).toEqual({
      code,
      createdAt: iso(T0),
      url: `https://${a.p.umaDomain}/i/${code}`,
      expiresAt: '2033-03-02T09:00:00.000Z',
      // The address as the customer holds it, whatever the case it was given in.
      inviterUma: a.uma,
      status: 'PENDING',
      firstName: 'Alice',
      amountToSend: { amount: 12_550, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } },
    });
    expect((await api('GET', `/invitations/${code}`, { auth: a.p.auth })).body).toEqual(res.body);
    // The invitee is usually another platform's customer: that platform reads it too (VIEW is enough).
    const other = await newPlatform();
    expect((await api('GET', `/invitations/${code}`, { auth: await tokenWith(other, ['VIEW']) })).body).toEqual(res.body);
    // The smallest invitation: only the inviter.
    const bare = await invite(a.p, { inviterUma: a.uma });
    expect(bare.status).toBe(201);
    expect(Object.keys(bare.body).sort()).toEqual(['code', 'createdAt', 'inviterUma', 'status', 'url']);
    expect(bare.body.code).not.toBe(code);
  });

  it('refuses an inviter that is not one of its customers, a past expiry and malformed fields, naming them', async () => {
    const a = await platformWithCustomer('alice');
    const b = await platformWithCustomer('bob');
    expect(failingFields(await invite(a.p, { inviterUma: `$nobody@${a.p.umaDomain}` }))).toEqual(['inviterUma']);
    // Another platform's customer is not this platform's to invite from.
    expect(failingFields(await invite(a.p, { inviterUma: b.uma }))).toEqual(['inviterUma']);
    expect(failingFields(await invite(a.p, { inviterUma: a.uma, expiresAt: iso(T0 - 1) }))).toEqual(['expiresAt']);
    expect(failingFields(await invite(a.p, { inviterUma: a.uma, expiresAt: iso(T0) }))).toEqual(['expiresAt']);
    expect(failingFields(await invite(a.p, { inviterUma: 'not an address' }))).toEqual(['inviterUma']);
    expect(failingFields(await invite(a.p, { inviterUma: a.uma, amountToSend: 0 }))).toEqual(['amountToSend']);
    expect(failingFields(await invite(a.p, { inviterUma: a.uma, amountToSend: 1.5 }))).toEqual(['amountToSend']);
    expect(failingFields(await invite(a.p, { inviterUma: a.uma, expiresAt: 'tomorrow' }))).toEqual(['expiresAt']);
    expect(failingFields(await invite(a.p, { inviterUma: a.uma, inviteeUma: b.uma }))).toEqual(['inviteeUma']);
    expect(failingFields(await invite(a.p, {}))).toEqual(['inviterUma']);
    expectError(await api('POST', '/invitations', { auth: await tokenWith(a.p, ['VIEW', 'TRANSACT']), body: { inviterUma: a.uma } }), 403);
    // None of those made an invitation.
    expect((await api('GET', '/invitations', { auth: a.p.auth })).body.data).toEqual([]);
  });

  it('an unknown code is 404 INVITATION_NOT_FOUND everywhere', async () => {
    const a = await platformWithCustomer('alice');
    expectError(await api('GET', '/invitations/0123456789abcdef', { auth: a.p.auth }), 404, 'INVITATION_NOT_FOUND');
    expectError(await claim(a.p, '0123456789abcdef', a.uma), 404, 'INVITATION_NOT_FOUND');
    expectError(await cancel(a.p, '0123456789abcdef'), 404, 'INVITATION_NOT_FOUND');
    expectError(await api('GET', '/invitations/nope', { auth: a.p.auth }), 404, 'INVITATION_NOT_FOUND');
    expectError(await api('GET', `/invitations/${'x'.repeat(65)}`, { auth: a.p.auth }), 400, 'INVALID_INPUT');
    expectError(await api('GET', '/invitations/0123456789abcdef'), 401, 'UNAUTHORIZED');
  });
});

describe('claiming an invitation', () => {
  it('another platform claims it for its customer: CLAIMED, and the inviting platform gets a signed INVITATION.CLAIMED', async () => {
    const url = hookUrl();
    const a = await platformWithCustomer('alice', { webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const b = await platformWithCustomer('Bob');
    const code = (await invite(a.p, { inviterUma: a.uma, firstName: 'Alice', amountToSend: 500 })).body.code as string;

    vi.setSystemTime(T0 + 60_000);
    const res = await claim(b.p, code, `$bob@${b.p.umaDomain}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code, status: 'CLAIMED', inviteeUma: b.uma, claimedAt: iso(T0 + 60_000), inviterUma: a.uma });
    expect((await api('GET', `/invitations/${code}`, { auth: a.p.auth })).body).toEqual(res.body);

    // The inviting platform's event (the claimer's platform gets none), its data the invitation as claimed.
    const [event] = await claimedEvents(a.p.id);
    expect(event).toMatchObject({ type: 'INVITATION.CLAIMED', data: res.body, timestamp: T0 + 60_000 });
    expect(await claimedEvents(b.p.id)).toEqual([]);
    await consume({ type: 'webhook.deliver', eventId: event!.id });
    await vi.waitFor(async () => expect((await deliveryOf(event!.id)).status).toBe('DELIVERED'));
    const sent = hook.calls.find((c) => JSON.parse(c.body).id === event!.id)!;
    expect(JSON.parse(sent.body)).toEqual({ id: event!.id, type: 'INVITATION.CLAIMED', timestamp: iso(T0 + 60_000), data: res.body });
    const pem = (await api('GET', '/config', { auth: a.p.auth })).body.webhookPublicKey;
    expect(await verifySignature(pem, sent.body, sent.headers.get('X-Service-Signature')!)).toBe(true);

    // Logged among the platform's deliveries, and resent like any webhook, with the same bytes.
    const listed = await api('GET', '/webhooks/deliveries?eventType=INVITATION.CLAIMED', { auth: a.p.auth });
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ eventId: event!.id, status: 'DELIVERED', payload: sent.body });
    const resent = await api('POST', `/webhooks/deliveries/${listed.body.data[0].id}/resend`, { auth: a.p.auth });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(resent.body).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expect(hook.calls.filter((c) => JSON.parse(c.body).id === event!.id).map((c) => c.body)).toEqual([sent.body, sent.body]);
    hook.restore();
  });

  it('a repeat of the same claim answers it unchanged; any other claim of a claimed invitation is INVITATION_ALREADY_CLAIMED', async () => {
    const a = await platformWithCustomer('alice');
    const b = await platformWithCustomer('bob');
    const c = await platformWithCustomer('carol');
    const code = (await invite(a.p, { inviterUma: a.uma })).body.code as string;
    const first = await claim(b.p, code, b.uma);
    expect(first.status).toBe(200);
    vi.setSystemTime(T0 + 5_000);
    // A retry after a lost answer (any letter case): the same claim, no second event.
    const again = await claim(b.p, code, b.uma.toUpperCase());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await claimedEvents(a.p.id)).toHaveLength(1);
    // Another customer of the same platform, or another platform.
    const bob2 = await createCustomer(b.p, individualBody({ umaAddress: `$bob2@${b.p.umaDomain}` }));
    expectError(await claim(b.p, code, bob2.umaAddress), 400, 'INVITATION_ALREADY_CLAIMED');
    expectError(await claim(c.p, code, c.uma), 400, 'INVITATION_ALREADY_CLAIMED');
    // A platform of another home reaches the invitation in the inviter's and is refused alike.
    const far = await platformWithCustomer('dora', { home: 'DB_2' });
    expectError(await claim(far.p, code, far.uma), 400, 'INVITATION_ALREADY_CLAIMED');
    expectError(await cancel(a.p, code), 400, 'INVITATION_ALREADY_CLAIMED');
    expect((await api('GET', `/invitations/${code}`, { auth: a.p.auth })).body).toEqual(first.body);
  });

  it("is for the calling platform's own customer, never the inviter itself", async () => {
    const a = await platformWithCustomer('alice');
    const b = await platformWithCustomer('bob');
    const code = (await invite(a.p, { inviterUma: a.uma })).body.code as string;
    // An address the claiming platform does not hold (another platform's, or nobody's).
    expect(failingFields(await claim(b.p, code, a.uma))).toEqual(['inviteeUma']);
    expect(failingFields(await claim(b.p, code, `$ghost@${b.p.umaDomain}`))).toEqual(['inviteeUma']);
    expect(failingFields(await claim(b.p, code, 'not-an-address'))).toEqual(['inviteeUma']);
    expect(failingFields(await api('POST', `/invitations/${code}/claim`, { auth: b.p.auth, body: {} }))).toEqual(['inviteeUma']);
    // The inviter cannot claim its own invitation; another customer of the inviting platform can.
    expect(failingFields(await claim(a.p, code, a.uma))).toEqual(['inviteeUma']);
    expectError(await claim({ ...b.p, auth: await tokenWith(b.p, ['VIEW', 'TRANSACT']) }, code, b.uma), 403, 'FORBIDDEN');
    expect((await api('GET', `/invitations/${code}`, { auth: a.p.auth })).body.status).toBe('PENDING');
    const friend = await createCustomer(a.p, individualBody({ umaAddress: `$friend@${a.p.umaDomain}` }));
    expect((await claim(a.p, code, friend.umaAddress)).body).toMatchObject({ status: 'CLAIMED', inviteeUma: friend.umaAddress });
  });

  it('of two platforms claiming at once, exactly one gets it and one event is sent, whatever their homes', async () => {
    const a = await platformWithCustomer('alice');
    // Two in the inviter's database, two in another home: the claim's condition holds in the invitation's home.
    const claimers = await Promise.all(
      [['b'], ['c'], ['d', 'DB_2'], ['e', 'DB_2']].map(([x, home]) => platformWithCustomer(x!, home ? { home } : {})),
    );
    const code = (await invite(a.p, { inviterUma: a.uma })).body.code as string;
    const answers = await Promise.all(claimers.map((x) => claim(x.p, code, x.uma)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    const winner = answers.find((r) => r.status === 200)!;
    for (const r of answers.filter((r) => r.status === 400)) expect(r.body.code).toBe('INVITATION_ALREADY_CLAIMED');
    expect((await claimedEvents(a.p.id)).map((e) => e.data)).toEqual([winner.body]);
  });
});

describe('cancelled and expired invitations', () => {
  it('only the inviting platform cancels, once; a cancelled invitation cannot be claimed', async () => {
    const a = await platformWithCustomer('alice');
    const b = await platformWithCustomer('bob');
    const far = await platformWithCustomer('dora', { home: 'DB_2' });
    const code = (await invite(a.p, { inviterUma: a.uma })).body.code as string;
    expectError(await cancel(b.p, code), 403, 'FORBIDDEN');
    expectError(await cancel(far.p, code), 403, 'FORBIDDEN');
    expectError(await cancel({ ...a.p, auth: await tokenWith(a.p, ['VIEW']) }, code), 403, 'FORBIDDEN');
    vi.setSystemTime(T0 + 1_000);
    // Sent as the SDK sends it: no body, no Content-Type.
    const res = await cancel(a.p, code);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code, status: 'CANCELLED' });
    expect(res.body.claimedAt).toBeUndefined();
    expectError(await cancel(a.p, code), 400, 'INVITATION_CANCELLED');
    expectError(await claim(b.p, code, b.uma), 400, 'INVITATION_CANCELLED');
    expectError(await claim(far.p, code, far.uma), 400, 'INVITATION_CANCELLED');
    expect((await api('GET', `/invitations/${code}`, { auth: b.p.auth })).body.status).toBe('CANCELLED');
    expect((await api('GET', `/invitations/${code}`, { auth: far.p.auth })).body.status).toBe('CANCELLED');
    expect(await claimedEvents(a.p.id)).toEqual([]);
  });

  it.each(['DB', 'DB_2'])(
    "expires at expiresAt on the inviting platform's clock: EXPIRED, and neither claimed nor cancelled (claimer in %s)",
    async (home) => {
      const a = await platformWithCustomer('alice');
      const b = await platformWithCustomer('bob', { home });
      const code = (await invite(a.p, { inviterUma: a.uma, expiresAt: iso(T0 + 3_600_000) })).body.code as string;
      const later = (await invite(a.p, { inviterUma: a.uma, expiresAt: iso(T0 + 7_200_000) })).body.code as string;
      // The claiming platform's clock does not decide.
      await advance(b.p, 5_000);
      expect((await api('GET', `/invitations/${code}`, { auth: b.p.auth })).body.status).toBe('PENDING');
      await advance(a.p, 3_600);
      const expired = await api('GET', `/invitations/${code}`, { auth: b.p.auth });
      expect(expired.body).toMatchObject({ status: 'EXPIRED', expiresAt: iso(T0 + 3_600_000) });
      const refused = expectError(await claim(b.p, code, b.uma), 400, 'INVALID_INPUT');
      expect(refused.details).toEqual({ reason: 'INVITATION_EXPIRED', expiresAt: iso(T0 + 3_600_000) });
      expect(expectError(await cancel(a.p, code), 400, 'INVALID_INPUT').details.reason).toBe('INVITATION_EXPIRED');
      // One still in its time is claimed as usual.
      expect((await claim(b.p, later, b.uma)).body.status).toBe('CLAIMED');
    },
  );
});

describe('GET /invitations', () => {
  it("lists the platform's own invitations, newest first, a page at a time", async () => {
    const a = await platformWithCustomer('alice');
    const b = await platformWithCustomer('bob');
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) {
      vi.setSystemTime(T0 + i * 1_000);
      codes.push((await invite(a.p, { inviterUma: a.uma })).body.code);
    }
    await invite(b.p, { inviterUma: b.uma });
    const first = await api('GET', '/invitations?limit=2', { auth: a.p.auth });
    expect(first.body.data.map((i: any) => i.code)).toEqual([codes[4], codes[3]]);
    expect(first.body).toMatchObject({ hasMore: true });
    expect(first.body.totalCount).toBeUndefined();
    const second = await api('GET', `/invitations?limit=2&cursor=${first.body.nextCursor}`, { auth: a.p.auth });
    const third = await api('GET', `/invitations?limit=2&cursor=${second.body.nextCursor}`, { auth: a.p.auth });
    expect([...second.body.data, ...third.body.data].map((i: any) => i.code)).toEqual([codes[2], codes[1], codes[0]]);
    expect(third.body.hasMore).toBe(false);
    expect((await api('GET', '/invitations', { auth: b.p.auth })).body.data).toHaveLength(1);
    expect(failingFields(await api('GET', '/invitations?status=PENDING', { auth: a.p.auth }))).toEqual(['status']);
    expect(failingFields(await api('GET', '/invitations?cursor=nope', { auth: a.p.auth }))).toEqual(['cursor']);
  });

  it.each(['DB', 'DB_2'])('sandbox reset deletes the platform’s invitations, not those it claimed from others (it in %s)', async (home) => {
    const a = await platformWithCustomer('alice');
    const b = await platformWithCustomer('bob', { home });
    const mine = (await invite(b.p, { inviterUma: b.uma })).body.code as string;
    // The code names B's home (`.2` in the second).
    expect(mine.endsWith('.2')).toBe(home === 'DB_2');
    const theirs = (await invite(a.p, { inviterUma: a.uma })).body.code as string;
    expect((await claim(b.p, theirs, b.uma)).status).toBe(200);
    expect((await api('POST', '/sandbox/reset', { auth: b.p.auth })).status).toBe(204);
    expectError(await api('GET', `/invitations/${mine}`, { auth: b.p.auth }), 404, 'INVITATION_NOT_FOUND');
    expect((await api('GET', `/invitations/${theirs}`, { auth: a.p.auth })).body.status).toBe('CLAIMED');
  });
});
