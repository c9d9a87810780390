import { createScheduledController, env } from 'cloudflare:test';
import worker from '../../src/index';
import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform, productionApi, tokenWith, type TestPlatform } from '../support/api';
import { businessBody, createCustomer, individualBody, personalInfo, postForm } from '../support/customers';
import { advance, customerWithAccounts, db, externalAccount, fund, idemKey, transfer, tx } from '../support/payments';
import { credentialsOf, newWallet, otpSession, sessionsOf, signed, type TestWallet } from '../support/wallets';
import { fakeEndpoint, hookUrl } from '../support/webhooks';
import { newAgent, policy } from '../support/agents';
import { sandboxOidc } from '../wallet/oidc-fixtures';
import { deleteSnapshot, MAX_SNAPSHOTS, restoreSnapshot, ROLLBACK_POINT_TTL_MS, takeSnapshot } from '../../src/sandbox/snapshots-service';
import { database } from '../../src/db/client';
import { sandboxSnapshotRows, sandboxSnapshots } from '../../src/db/schema';
import { eq } from 'drizzle-orm';

const ok = <T extends { status: number; body: unknown }>(res: T, status = 200): T => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res;
};

async function take(p: TestPlatform, name = 'after-setup') {
  return ok(await api('POST', '/sandbox/snapshots', { auth: p.auth, body: { name } }), 201).body;
}

const restore = (p: TestPlatform, id: string) => api('POST', `/sandbox/snapshots/${id}/restore`, { auth: p.auth });

async function uploadDocument(p: TestPlatform, holder: string, text: string) {
  const res = await postForm('/documents', p.auth, [
    { name: 'documentHolder', value: holder },
    { name: 'documentType', value: 'PASSPORT' },
    { name: 'country', value: 'US' },
    { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: new TextEncoder().encode(text) },
  ]);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A platform with data of every captured kind. */
async function world() {
  const url = hookUrl();
  const p = await newPlatform({ webhookEndpoint: url });
  fakeEndpoint(url, () => 200);
  const w: TestWallet = await newWallet('sandbox', p);
  const alice = { customer: { id: w.customerId } };
  const { customer: bob, accounts } = await customerWithAccounts(p);
  // A deleted customer is captured too.
  const gone = await createCustomer(p, individualBody());
  ok(await api('DELETE', `/customers/${gone.id}`, { auth: p.auth }));
  const biz = await createCustomer(p, businessBody({}, { registrationNumber: '5523041' }));
  ok(
    await api('POST', '/beneficial-owners', {
      auth: p.auth,
      body: { customerId: biz.id, roles: ['UBO'], ownershipPercentage: 51, personalInfo: personalInfo() },
    }),
    201,
  );
  ok(await api('POST', '/verifications', { auth: p.auth, body: { customerId: bob.id } }));
  const doc = await uploadDocument(p, bob.id, '%PDF-1.4 before');
  await fund(p, accounts.USD!, 50_000);
  const bank = await externalAccount(p, bob.id, 'USD', '005');
  const plainBank = await externalAccount(p, bob.id, 'USD', '001');
  // A transfer in from a 005 account: PENDING, FAILED 30 s later.
  const key = idemKey();
  const pending = ok(await transfer(p, 'in', bank, accounts.USD!, 1_000, key), 201).body;
  expect(pending.status).toBe('PENDING');
  ok(await transfer(p, 'out', accounts.USD!, plainBank, 2_000), 201);
  const quote = ok(
    await api('POST', '/quotes', {
      auth: p.auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    }),
    201,
  ).body;
  const agent = ok(
    await api('POST', '/agents', {
      auth: p.auth,
      body: {
        name: 'Payroll bot',
        customerId: bob.id,
        policy: policy(),
      },
    }),
    201,
  ).body;
  const redeemed = ok(await api('POST', `/agents/device-codes/${agent.deviceCode.code}/redeem`)).body;
  const bearer = `Bearer ${redeemed.accessToken}`;
  ok(
    await api('POST', '/agents/me/transfer-out', {
      auth: bearer,
      headers: { 'Idempotency-Key': idemKey() },
      body: { source: { accountId: accounts.USD }, destination: { accountId: plainBank }, amount: 300 },
    }),
    201,
  );
  const session = await otpSession(w);
  await advance(p, 10);
  return { p, w, alice, bob, gone, biz, doc, accounts, bank, plainBank, pending, key, quote, agentId: agent.agent.id, bearer, session };
}

type World = Awaited<ReturnType<typeof world>>;

/** Everything a user reads back through the API, per kind. */
async function read(s: World) {
  const { p } = s;
  const get = async (path: string, auth = p.auth) => {
    const res = await api('GET', path, { auth });
    return { status: res.status, body: res.body };
  };
  const documents = await get('/documents');
  // The stored files (no route serves their bytes): each key with its content.
  const listed = await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` });
  const files = await Promise.all(listed.objects.map(async (o) => [o.key, await (await env.DOCUMENTS.get(o.key))!.text()]));
  const transactions = await get('/transactions?limit=100');
  const history = await Promise.all(transactions.body.data.map((t: any) => get(`/transactions/${t.id}/history`)));
  const clock = (await get('/sandbox/clock')).body;
  return {
    customers: await get('/customers?limit=100'),
    deletedCustomer: await get(`/customers/${s.gone.id}`),
    search: await get('/customers?search=Smith'),
    business: await get(`/customers/${s.biz.id}`),
    owners: await get(`/beneficial-owners?customerId=${encodeURIComponent(s.biz.id)}`),
    verifications: await get('/verifications'),
    documents,
    files,
    internal: await get('/customers/internal-accounts?limit=100'),
    external: await get('/customers/external-accounts?limit=100'),
    quotes: await get('/quotes'),
    transactions,
    history,
    agents: await get('/agents'),
    agent: await get(`/agents/${s.agentId}`),
    agentActions: await get('/agents/me/actions', s.bearer),
    credentials: await credentialsOf(s.w),
    sessions: await sessionsOf(s.w),
    deliveries: await get('/webhooks/deliveries?limit=100'),
    emails: await get('/sandbox/emails'),
    clock: clock.clockOffsetSeconds,
  };
}

describe('sandbox snapshots', () => {
  it('restores every captured kind exactly, as read through the API', async () => {
    const s = await world();
    const { p } = s;
    const before = await read(s);
    expect(before.deliveries.body.data.length).toBeGreaterThan(0);
    expect(before.sessions).toHaveLength(1);
    expect(before.agentActions.body.data.length).toBeGreaterThan(0);

    const snap = await take(p);
    expect(snap).toEqual({
      id: expect.stringMatching(/^SandboxSnapshot:[0-9a-f-]{36}$/),
      name: 'after-setup',
      createdAt: expect.any(String),
      counts: expect.any(Object),
    });
    expect(snap.counts).toMatchObject({
      customers: 4,
      transactions: 4,
      walletCredentials: 1,
      walletSessions: 1,
      documentFiles: 1,
      beneficialOwners: 1,
    });
    expect(ok(await api('GET', `/sandbox/snapshots/${snap.id}`, { auth: p.auth })).body).toEqual(snap);

    // Change every kind.
    ok(await api('PATCH', `/customers/${s.bob.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', fullName: 'Robert Changed' } }));
    ok(
      await api('POST', '/beneficial-owners', {
        auth: p.auth,
        body: { customerId: s.biz.id, roles: ['DIRECTOR'], ownershipPercentage: 10, personalInfo: personalInfo() },
      }),
      201,
    );
    ok(await api('DELETE', `/customers/${s.biz.id}`, { auth: p.auth }));
    ok(await api('POST', '/verifications', { auth: p.auth, body: { customerId: s.alice.customer.id } }));
    await uploadDocument(p, s.alice.customer.id, '%PDF-1.4 after');
    await api('DELETE', `/documents/${s.doc.id}`, { auth: p.auth });
    await externalAccount(p, s.alice.customer.id, 'USD', '001');
    await api('DELETE', `/customers/external-accounts/${s.plainBank}`, { auth: p.auth });
    await fund(p, s.accounts.USD!, 7_000);
    ok(await api('POST', `/quotes/${s.quote.id}/execute`, { auth: p.auth, headers: { 'Idempotency-Key': idemKey() } }));
    ok(await transfer(p, 'in', s.bank, s.accounts.USD!, 500), 201);
    ok(
      await api('POST', '/agents/me/transfer-out', {
        auth: s.bearer,
        headers: { 'Idempotency-Key': idemKey() },
        body: { source: { accountId: s.accounts.USD }, destination: { accountId: s.bank }, amount: 100 },
      }),
      201,
    );
    ok(await api('POST', '/agents', { auth: p.auth, body: { name: 'Second', customerId: s.alice.customer.id, policy: policy() } }), 201);
    ok(await api('PATCH', `/agents/${s.agentId}`, { auth: p.auth, body: { isPaused: true } }));
    const oauth = await signed(
      s.w,
      'POST',
      '/auth/credentials',
      { type: 'OAUTH', accountId: s.w.accountId, oidcToken: sandboxOidc({ email: 'ada@gmail.test' }) },
      s.session.key,
    );
    expect(oauth.status, JSON.stringify(oauth.body)).toBe(201);
    // Past the OTP re-issue interval (and the 005 failure's due time).
    await advance(p, 40);
    const second = await otpSession(s.w);
    ok(await signed(s.w, 'DELETE', `/auth/sessions/${s.session.session.id}`, undefined, second.key), 204);
    const late = await newWallet('sandbox', p);
    await otpSession(late);
    expect((await tx(p, s.pending.id)).status).toBe('FAILED');
    const changed = await read(s);
    for (const kind of Object.keys(before) as (keyof typeof before)[]) {
      if (kind === 'deletedCustomer') continue;
      expect(changed[kind], kind).not.toEqual(before[kind]);
    }

    const restored = await restore(p, snap.id);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual(snap);
    const after = await read(s);
    for (const kind of Object.keys(before) as (keyof typeof before)[]) expect(after[kind], kind).toEqual(before[kind]);
    // The wallet created after the snapshot is gone with its customer; its Durable Object was emptied.
    expect((await api('GET', `/customers/${late.customerId}`, { auth: p.auth })).status).toBe(404);
    const lateState = await env.ACCOUNT.get(env.ACCOUNT.idFromName(late.accountId)).exportState();
    expect(lateState).toEqual({});
    // The idempotency record of before the snapshot replays its answer.
    const replay = await transfer(p, 'in', s.bank, s.accounts.USD!, 1_000, s.key);
    expect(replay.body.id).toBe(s.pending.id);
    // The restored session still signs.
    const again = await signed(
      s.w,
      'POST',
      '/auth/credentials',
      { type: 'OAUTH', accountId: s.w.accountId, oidcToken: sandboxOidc({ email: 'ada@gmail.test' }) },
      s.session.key,
    );
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });

  it('a pending 005 transfer is PENDING again after the restore and fails on time, not before', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const bank = await externalAccount(p, customer.id, 'USD', '005');
    const pending = ok(await transfer(p, 'in', bank, accounts.USD!, 1_000), 201).body;
    await advance(p, 10);
    const snap = await take(p);
    await advance(p, 25);
    expect((await tx(p, pending.id)).status).toBe('FAILED');
    ok(await restore(p, snap.id));
    expect((await tx(p, pending.id)).status).toBe('PENDING');
    // 20 s were left at the snapshot: not due after 15 s, due after 21.
    await advance(p, 15);
    expect((await tx(p, pending.id)).status).toBe('PENDING');
    await advance(p, 6);
    expect((await tx(p, pending.id)).status).toBe('FAILED');
  });

  it('a transition created after the snapshot is cancelled by the restore', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const bank = await externalAccount(p, customer.id, 'USD', '005');
    const snap = await take(p);
    const pending = ok(await transfer(p, 'in', bank, accounts.USD!, 1_000), 201).body;
    ok(await restore(p, snap.id));
    await advance(p, 60);
    expect((await api('GET', `/transactions/${pending.id}`, { auth: p.auth })).status).toBe(404);
    expect(ok(await api('GET', '/transactions', { auth: p.auth })).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
  });

  it('a request concurrent with a restore sees all of the before or all of the after', async () => {
    const p = await newPlatform();
    for (let i = 0; i < 3; i++) await createCustomer(p, individualBody());
    const snap = await take(p);
    for (let i = 0; i < 4; i++) await createCustomer(p, individualBody());
    const reads = Array.from({ length: 8 }, () => api('GET', '/customers?limit=100', { auth: p.auth }));
    const [restored, ...pages] = await Promise.all([restore(p, snap.id), ...reads]);
    expect(restored.status).toBe(200);
    for (const page of pages) {
      expect(page.status).toBe(200);
      // Rows and the maintained total from the same state: 7 (before) or 3 (after), never a mix.
      expect([3, 7]).toContain(page.body.data.length);
      expect(page.body.totalCount).toBe(page.body.data.length);
    }
    expect(ok(await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(3);
  });

  it('lists, reads and deletes; another platform sees 404', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    await createCustomer(p, individualBody());
    const a = await take(p, 'a');
    const b = await take(p, 'b');
    expect(ok(await api('GET', '/sandbox/snapshots', { auth: p.auth })).body).toEqual({ data: [b, a], hasMore: false, totalCount: 2 });
    const page = ok(await api('GET', '/sandbox/snapshots?limit=1', { auth: p.auth })).body;
    expect(page).toMatchObject({ data: [b], hasMore: true, totalCount: 2 });
    expect(ok(await api('GET', `/sandbox/snapshots?limit=1&cursor=${page.nextCursor}`, { auth: p.auth })).body.data).toEqual([a]);
    for (const [method, path] of [
      ['GET', `/sandbox/snapshots/${a.id}`],
      ['POST', `/sandbox/snapshots/${a.id}/restore`],
      ['DELETE', `/sandbox/snapshots/${a.id}`],
    ] as const) {
      expectError(await api(method, path, { auth: other.auth }), 404, 'REFERENCE_NOT_FOUND', 'SANDBOX_SNAPSHOT_NOT_FOUND');
    }
    expect(ok(await api('GET', '/sandbox/snapshots', { auth: other.auth })).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
    ok(await api('DELETE', `/sandbox/snapshots/${a.id}`, { auth: p.auth }), 204);
    expectError(await api('GET', `/sandbox/snapshots/${a.id}`, { auth: p.auth }), 404, 'REFERENCE_NOT_FOUND', 'SANDBOX_SNAPSHOT_NOT_FOUND');
    expectError(await restore(p, a.id), 404, 'REFERENCE_NOT_FOUND', 'SANDBOX_SNAPSHOT_NOT_FOUND');
    expect(ok(await api('GET', '/sandbox/snapshots', { auth: p.auth })).body.data).toEqual([b]);
    // A VIEW token reads but does not take, restore or delete.
    const viewer = await tokenWith(p, ['VIEW']);
    ok(await api('GET', '/sandbox/snapshots', { auth: viewer }));
    expectError(await api('POST', '/sandbox/snapshots', { auth: viewer, body: { name: 'x' } }), 403);
  });

  it('holds at most MAX_SNAPSHOTS per platform (hidden ones aside); reset keeps them', async () => {
    const p = await newPlatform();
    for (let i = 0; i < MAX_SNAPSHOTS; i++) await take(p, `s${i}`);
    const refused = await api('POST', '/sandbox/snapshots', { auth: p.auth, body: { name: 'one too many' } });
    expectError(refused, 400, 'INVALID_INPUT');
    expect(refused.body.message).toContain(`at most ${MAX_SNAPSHOTS} snapshots`);
    ok(await api('POST', '/sandbox/reset', { auth: p.auth }), 204);
    expect(ok(await api('GET', '/sandbox/snapshots?limit=100', { auth: p.auth })).body.totalCount).toBe(MAX_SNAPSHOTS);
    expectError(await api('POST', '/sandbox/snapshots', { auth: p.auth, body: { name: '' } }), 400, 'INVALID_INPUT');
    // A hidden snapshot (a fixtures load's rollback point) is taken past the limit, not listed, and works.
    const deps = { db: database(env.DB), env, now: Date.now() };
    await createCustomer(p, individualBody());
    const hidden = await takeSnapshot(deps, p.id, 'rollback', { hidden: true });
    expect(ok(await api('GET', '/sandbox/snapshots?limit=100', { auth: p.auth })).body.data.map((x: any) => x.id)).not.toContain(hidden.id);
    await createCustomer(p, individualBody());
    expect(ok(await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(2);
    await restoreSnapshot(deps, p.id, hidden.id);
    expect(ok(await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(1);
    await deleteSnapshot(deps, p.id, hidden.id);
    expect(await db().select().from(sandboxSnapshotRows).where(eq(sandboxSnapshotRows.snapshotId, hidden.id))).toEqual([]);
  });

  it('the cron deletes a rollback point a stopped fixtures load left behind, once it is an hour old', async () => {
    const p = await newPlatform();
    const deps = { db: database(env.DB), env, now: Date.now() };
    const left = await takeSnapshot(deps, p.id, 'rollback', { hidden: true });
    const visible = await take(p, 'kept');
    const tick = (at: number) => worker.scheduled(createScheduledController({ scheduledTime: at, cron: '* * * * *' }), env);
    await tick(Date.now() + ROLLBACK_POINT_TTL_MS - 60_000);
    expect(await db().select().from(sandboxSnapshots).where(eq(sandboxSnapshots.id, left.id))).toHaveLength(1);
    await tick(Date.now() + ROLLBACK_POINT_TTL_MS + 60_000);
    expect(await db().select().from(sandboxSnapshots).where(eq(sandboxSnapshots.id, left.id))).toEqual([]);
    expect(await db().select().from(sandboxSnapshotRows).where(eq(sandboxSnapshotRows.snapshotId, left.id))).toEqual([]);
    // A snapshot the platform took is its to delete, however old.
    ok(await api('GET', `/sandbox/snapshots/${visible.id}`, { auth: p.auth }));
  });

  it.each([
    ['POST', '/sandbox/snapshots'],
    ['GET', '/sandbox/snapshots'],
    ['GET', '/sandbox/snapshots/SandboxSnapshot:x'],
    ['POST', '/sandbox/snapshots/SandboxSnapshot:x/restore'],
    ['DELETE', '/sandbox/snapshots/SandboxSnapshot:x'],
  ])('%s %s is 404 in production', async (method, path) => {
    const p = await newPlatform();
    expectError(
      await productionApi(method, path, { auth: p.auth, body: method === 'POST' ? { name: 'x' } : undefined }),
      404,
      'REFERENCE_NOT_FOUND',
      'ROUTE_NOT_FOUND',
    );
  });
});

describe('a restore never revives a credential', () => {
  it("a deleted agent's token stays refused and a redeemed device code does not redeem again", async () => {
    const p = await newPlatform();
    const gone = await newAgent({ p });
    const customer = await createCustomer(p, individualBody());
    const waiting = ok(
      await api('POST', '/agents', { auth: p.auth, body: { name: 'Waiting bot', customerId: customer.id, policy: policy() } }),
      201,
    ).body;
    const code = waiting.deviceCode.code;
    ok(await api('GET', '/agents/me', { auth: gone.bearer }));
    const snapshot = await take(p);
    ok(await api('DELETE', `/agents/${gone.agentId}`, { auth: p.auth }), 204);
    expectError(await api('GET', '/agents/me', { auth: gone.bearer }), 401);
    ok(await api('POST', `/agents/device-codes/${code}/redeem`));
    ok(await restore(p, snapshot.id));
    // The deletion and the redemption outlive the restore: the token is refused, the code spent, the agent deleted.
    expectError(await api('GET', '/agents/me', { auth: gone.bearer }), 401);
    const again = await api('POST', `/agents/device-codes/${code}/redeem`);
    expect(again.status, JSON.stringify(again.body)).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
    expectError(await api('GET', `/agents/${gone.agentId}`, { auth: p.auth }), 404);
    // Everything else is back as it was: the waiting agent is still there, not connected.
    const restored = ok(await api('GET', `/agents/${waiting.agent.id}`, { auth: p.auth })).body;
    expect(restored.isConnected).toBe(false);
    // No helper rows are left in the snapshot, which restores the same way again.
    ok(await restore(p, snapshot.id));
    expectError(await api('GET', '/agents/me', { auth: gone.bearer }), 401);
  });
});
