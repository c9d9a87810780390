import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { api, basic, expectError, failingFields, newPlatform, OPERATOR, type TestPlatform } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { balanceOf, customerWithAccounts, expectLedgerInvariant, externalAccount, fund, transfer } from '../support/payments';
import { fakeEndpoint, hookUrl, runCron } from '../support/webhooks';
import { policy } from '../support/agents';

// Platforms live in data databases ("homes": DB, DB_2), the directory in the first. The suite binds two, as
// `npm start` does; these tests put platforms in each and go through the API as clients would.

const domain = () => `${crypto.randomUUID()}.platform.test`;
const createThroughApi = (body: Record<string, unknown>) =>
  api('POST', '/operator/platforms', { auth: OPERATOR, body: { name: 'Homed', umaDomain: domain(), ...body } });
const rowsIn = async (home: 'DB' | 'DB_2', table: string, platformId: string) =>
  (await env[home]!.prepare(`SELECT count(*) AS n FROM ${table} WHERE platform_id = ?`).bind(platformId).first<{ n: number }>())!.n;
const platformIn = async (home: 'DB' | 'DB_2', id: string) =>
  (await env[home]!.prepare('SELECT count(*) AS n FROM platforms WHERE id = ?').bind(id).first<{ n: number }>())!.n;

describe('a platform in its home', () => {
  it('is created where the operator names, and the directory and the answer say where', async () => {
    const res = await createThroughApi({ home: 'DB_2' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.platform.home).toBe('DB_2');
    const id = res.body.platform.id as string;
    expect(await platformIn('DB_2', id)).toBe(1);
    expect(await platformIn('DB', id)).toBe(0);
    const dir = await env.DB.prepare('SELECT home FROM platform_homes WHERE platform_id = ?').bind(id).first<{ home: string }>();
    expect(dir?.home).toBe('DB_2');
    // Its credentials name their home; the first token works at once.
    expect(res.body.token.clientId).toMatch(/^[0-9a-f]{32}\.2$/);
    const auth = basic(res.body.token.clientId, res.body.token.clientSecret);
    expect((await api('GET', '/config', { auth })).status).toBe(200);
  });

  it('goes, unnamed, to the home with the fewest platforms', async () => {
    const count = async (home: string) =>
      (await env.DB.prepare('SELECT count(*) AS n FROM platform_homes WHERE home = ?').bind(home).first<{ n: number }>())!.n;
    for (let i = 0; i < 2; i++) {
      const [one, two] = [await count('DB'), await count('DB_2')];
      const res = await createThroughApi({});
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.platform.home).toBe(two < one ? 'DB_2' : 'DB');
    }
  });

  it('refuses a home the deployment does not bind, and a malformed one, with nothing created', async () => {
    const before = (await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR })).body.totalCount;
    const unbound = await createThroughApi({ home: 'DB_9' });
    expectError(unbound, 400, 'INVALID_INPUT');
    expect(failingFields(unbound)).toEqual(['home']);
    expect(failingFields(await createThroughApi({ home: 'analytics' }))).toEqual(['home']);
    expect((await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR })).body.totalCount).toBe(before);
  });

  it("the operator's list reads the directory: platforms of both homes, each with its home, and their count", async () => {
    const a = await newPlatform();
    const b = await newPlatform({ home: 'DB_2' });
    const seen = new Map<string, string>();
    let cursor: string | undefined;
    let total = 0;
    do {
      const page = await api('GET', `/operator/platforms?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        auth: OPERATOR,
      });
      expect(page.status).toBe(200);
      total = page.body.totalCount;
      for (const p of page.body.data) seen.set(p.id, p.home);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.get(a.id)).toBe('DB');
    expect(seen.get(b.id)).toBe('DB_2');
    expect(seen.size).toBe(total);
  });

  it('keeps UMA domains unique across homes, on create and on a config change, changing nothing when refused', async () => {
    const a = await newPlatform();
    const b = await newPlatform({ home: 'DB_2' });
    expectError(await createThroughApi({ home: 'DB_2', umaDomain: a.umaDomain.toUpperCase() }), 409, 'CONFLICT', 'UMA_DOMAIN_TAKEN');
    expectError(await api('PATCH', '/config', { auth: b.auth, body: { umaDomain: a.umaDomain } }), 409, 'CONFLICT', 'UMA_DOMAIN_TAKEN');
    expect((await api('GET', '/config', { auth: b.auth })).body.umaDomain).toBe(b.umaDomain);
    // A free domain moves in both places, and the old one is free again.
    const fresh = domain();
    expect((await api('PATCH', '/config', { auth: b.auth, body: { umaDomain: fresh } })).status).toBe(200);
    const dir = await env.DB.prepare('SELECT uma_domain FROM platform_homes WHERE platform_id = ?')
      .bind(b.id)
      .first<{ uma_domain: string }>();
    expect(dir?.uma_domain).toBe(fresh);
    expect((await createThroughApi({ umaDomain: b.umaDomain })).status).toBe(201);
  });

  it('gives the UMA domain of a creation that stopped halfway to the next claim, never one still under way', async () => {
    // What a creation in the second home leaves when its Worker ends between the directory and the home: an
    // entry, no platform. `ms` is the time its id carries (UUIDv7).
    const leftover = async (ms: number) => {
      const hex = ms.toString(16).padStart(12, '0') + crypto.randomUUID().replace(/-/g, '').slice(12);
      const id = `Platform:${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
      const umaDomain = domain();
      const put = await env.DB.prepare("INSERT INTO platform_homes (platform_id, home, uma_domain) VALUES (?, 'DB_2', ?)")
        .bind(id, umaDomain)
        .run();
      expect(put.success).toBe(true);
      return { id, umaDomain };
    };
    const entryOf = (id: string) => env.DB.prepare('SELECT home FROM platform_homes WHERE platform_id = ?').bind(id).first();
    // A minute and more ago: it stopped. The create that asks for its domain gets it, in either home.
    const old = await leftover(Date.now() - 120_000);
    const created = await createThroughApi({ home: 'DB', umaDomain: old.umaDomain });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await entryOf(old.id)).toBeNull();
    // So does a platform's config change.
    const older = await leftover(Date.now() - 120_000);
    const p = await newPlatform({ home: 'DB_2' });
    const patched = await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: older.umaDomain } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.umaDomain).toBe(older.umaDomain);
    expect(await entryOf(older.id)).toBeNull();
    // Seconds old: a creation may be writing its home now; the domain stays taken, the entry stays.
    const recent = await leftover(Date.now() - 5_000);
    expectError(await createThroughApi({ umaDomain: recent.umaDomain }), 409, 'CONFLICT', 'UMA_DOMAIN_TAKEN');
    expect(await entryOf(recent.id)).toEqual({ home: 'DB_2' });
    // A platform that exists keeps its domain however old its entry (the clock two minutes on).
    const held = await newPlatform({ home: 'DB_2' });
    vi.setSystemTime(Date.now() + 120_000);
    try {
      expectError(await createThroughApi({ umaDomain: held.umaDomain }), 409, 'CONFLICT', 'UMA_DOMAIN_TAKEN');
    } finally {
      vi.useRealTimers();
    }
    expect(await entryOf(held.id)).toEqual({ home: 'DB_2' });
  });
});

describe('two platforms in two homes', () => {
  it('each sees only its own data, and money moves in each as in one database', async () => {
    const a = await newPlatform();
    const b = await newPlatform({ home: 'DB_2' });
    const ca = await customerWithAccounts(a);
    const cb = await customerWithAccounts(b);
    await fund(b, cb.accounts.USD!, 1_000);
    const ext = await externalAccount(b, cb.customer.id, 'USD', '321');
    expect((await transfer(b, 'out', cb.accounts.USD!, ext, 400, 'homes-1')).status).toBe(201);
    expect(await balanceOf(b, cb.accounts.USD!)).toBe(600);
    await expectLedgerInvariant(b.id);
    // B's rows are in its home only.
    expect(await rowsIn('DB_2', 'customers', b.id)).toBeGreaterThan(0);
    expect(await rowsIn('DB', 'customers', b.id)).toBe(0);
    expect(await rowsIn('DB', 'transactions', b.id)).toBe(0);
    // Neither reaches the other's resources.
    expectError(await api('GET', `/customers/${cb.customer.id}`, { auth: a.auth }), 404);
    expectError(await api('GET', `/customers/${ca.customer.id}`, { auth: b.auth }), 404);
    const listed = (await api('GET', '/customers', { auth: b.auth })).body.data.map((c: { id: string }) => c.id);
    expect(listed).toEqual([cb.customer.id]);
  });

  it("a token made in the second home names it; a token of one home with another's mark is refused", async () => {
    const b = await newPlatform({ home: 'DB_2' });
    const made = await api('POST', '/tokens', { auth: b.auth, body: { name: 'ci', permissions: ['VIEW'] } });
    expect(made.status).toBe(201);
    expect(made.body.clientId).toMatch(/\.2$/);
    expect((await api('GET', '/customers', { auth: basic(made.body.clientId, made.body.clientSecret) })).status).toBe(200);
    // The mark decides the database: the same secret under the first home's spelling is not found there.
    const unmarked = made.body.clientId.replace(/\.2$/, '');
    expectError(await api('GET', '/customers', { auth: basic(unmarked, made.body.clientSecret) }), 401);
    expectError(await api('GET', '/customers', { auth: basic(`${unmarked}.7`, made.body.clientSecret) }), 401);
  });

  it('an agent of the second home connects by its device code and acts with its token', async () => {
    const b = await newPlatform({ home: 'DB_2' });
    const customer = await createCustomer(b, individualBody());
    const created = await api('POST', '/agents', { auth: b.auth, body: { name: 'Bot', customerId: customer.id, policy: policy() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.deviceCode.code).toMatch(/\.2$/);
    const redeemed = await api('POST', `/agents/device-codes/${created.body.deviceCode.code.toLowerCase()}/redeem`);
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    expect(redeemed.body.accessToken).toMatch(/^agt_[A-Za-z0-9_-]+\.2$/);
    const me = await api('GET', '/agents/me', { auth: `Bearer ${redeemed.body.accessToken}` });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.id).toBe(created.body.agent.id);
  });

  it('a hosted KYC link of the second home opens and completes from its secret alone', async () => {
    const b = await newPlatform({ home: 'DB_2' });
    const c = await createCustomer(b);
    const link = await api('POST', `/customers/${c.id}/kyc-link`, { auth: b.auth });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const secret = new URL(link.body.kycUrl).hash.slice(1);
    expect(secret).toMatch(/\.2$/);
    expect((await api('POST', '/sandbox/kyc-links/open', { body: { secret } })).body.state).toBe('OPEN');
    expect((await api('POST', '/sandbox/kyc-links/complete', { body: { secret, outcome: 'APPROVED' } })).status).toBe(200);
    expect((await api('GET', `/customers/${c.id}`, { auth: b.auth })).body.kycStatus).toBe('APPROVED');
  });

  it("a platform of one home reads and claims another home's invitation; the inviter hears of it", async () => {
    const inviter = await platformWithCustomer('Ann', {});
    const invitee = await platformWithCustomer('Ben', { home: 'DB_2' });
    const made = await api('POST', '/invitations', { auth: inviter.p.auth, body: { inviterUma: inviter.uma } });
    expect(made.status).toBe(201);
    const code = made.body.code as string;
    expect((await api('GET', `/invitations/${code}`, { auth: invitee.p.auth })).body).toEqual(made.body);
    const claimed = await api('POST', `/invitations/${code}/claim`, { auth: invitee.p.auth, body: { inviteeUma: invitee.uma } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body).toMatchObject({ status: 'CLAIMED', inviteeUma: invitee.uma });
    // The inviter sees the claim, and got its event; the invitee cannot cancel what is not its own.
    expect((await api('GET', `/invitations/${code}`, { auth: inviter.p.auth })).body.status).toBe('CLAIMED');
    expectError(await api('POST', `/invitations/${code}/cancel`, { auth: invitee.p.auth }), 403);
    const hooks = await api('GET', '/webhooks/deliveries', { auth: inviter.p.auth });
    expect(hooks.body.data.some((d: { eventType: string }) => d.eventType === 'INVITATION.CLAIMED')).toBe(true);
  });
});

describe('background work follows the platform', () => {
  /** A second-home platform with a webhook endpoint, and a transfer that writes its events. */
  async function paying(answer: () => number) {
    const url = hookUrl();
    const endpoint = fakeEndpoint(url, answer);
    const b = await newPlatform({ home: 'DB_2', webhookEndpoint: url });
    const { customer, accounts } = await customerWithAccounts(b);
    await fund(b, accounts.USD!, 1_000);
    const ext = await externalAccount(b, customer.id, 'USD', '321');
    const sent = await transfer(b, 'out', accounts.USD!, ext, 100, crypto.randomUUID());
    expect(sent.status).toBe(201);
    return { b, endpoint, transactionId: sent.body.id as string };
  }

  it("the queue consumer delivers a second-home platform's webhooks from its database", async () => {
    const { b, endpoint, transactionId } = await paying(() => 200);
    await vi.waitFor(() => expect(endpoint.calls.some((c) => c.body.includes(transactionId))).toBe(true), { timeout: 10_000 });
    await vi.waitFor(
      async () => {
        const list = await api('GET', '/webhooks/deliveries', { auth: b.auth });
        expect(list.body.data.some((d: { status: string }) => d.status === 'DELIVERED')).toBe(true);
      },
      { timeout: 10_000 },
    );
    expect(await rowsIn('DB', 'webhook_deliveries', b.id)).toBe(0);
  });

  it('the cron sweep visits every home: a webhook due for retry in the second home goes out again', async () => {
    let down = true;
    const { endpoint } = await paying(() => (down ? 500 : 200));
    await vi.waitFor(() => expect(endpoint.calls.length).toBeGreaterThan(0), { timeout: 10_000 });
    down = false;
    const before = endpoint.calls.length;
    // Far enough ahead that every retry is due.
    await runCron(Date.now() + 7 * 86_400_000);
    await vi.waitFor(() => expect(endpoint.calls.length).toBeGreaterThan(before), { timeout: 10_000 });
  });
});

/** A platform with a customer holding `$<local>@<its domain>`. */
async function platformWithCustomer(local: string, overrides: Record<string, unknown>): Promise<{ p: TestPlatform; uma: string }> {
  const p = await newPlatform(overrides);
  const customer = await createCustomer(p, individualBody({ umaAddress: `$${local}@${p.umaDomain}` }));
  return { p, uma: customer.umaAddress as string };
}
