import { describe, expect, it } from 'vitest';
import { api, basic, expectError, failingFields, newPlatform, tokenWith } from '../support/api';
import { advance } from '../support/wallets';
import { createCustomer, individualBody, walk } from '../support/customers';
import { newAgent, policy } from '../support/agents';

describe('agents (platform side)', () => {
  it('POST /agents creates an agent for one customer with a device code', async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p, individualBody());
    const res = await api('POST', '/agents', { auth: p.auth, body: { name: 'Bot', customerId: customer.id, policy: policy() } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.agent).toEqual({
      id: expect.stringMatching(/^Agent:[0-9a-f-]{36}$/),
      name: 'Bot',
      customerId: customer.id,
      isPaused: false,
      isConnected: false,
      policy: policy(),
      usage: {
        dailyTransactionCount: 0,
        dailySpend: 0,
        monthlySpend: 0,
        dailyResetDate: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
        monthlyResetMonth: expect.stringMatching(/^\d{4}-\d\d$/),
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body.deviceCode).toEqual({
      code: expect.stringMatching(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/),
      agentId: res.body.agent.id,
      expiresAt: expect.any(String),
      redeemed: false,
    });
  });

  it('validates the policy in full', async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p, individualBody());
    const other = await createCustomer(p, individualBody());
    const bad: [Record<string, unknown>, string[]][] = [
      [policy({ permissions: ['FLY'] }), ['policy.permissions.0']],
      [policy({ defaultExecutionMode: 'SOMETIMES' }), ['policy.defaultExecutionMode']],
      [policy({ spendingLimits: { currency: 'USD', perTransactionLimit: -1 } }), ['policy.spendingLimits.perTransactionLimit']],
      [policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 1.5 } }), ['policy.spendingLimits.perTransactionLimit']],
      [policy({ spendingLimits: { currency: 'XXX', perTransactionLimit: 1 } }), ['policy.spendingLimits.currency']],
      [policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 1, dailyLimit: -5 } }), ['policy.spendingLimits.dailyLimit']],
      [
        policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 1, dailyTransactionLimit: -1 } }),
        ['policy.spendingLimits.dailyTransactionLimit'],
      ],
      [policy({ approvalThresholds: { amount: 100 } }), ['policy.approvalThresholds.currency']],
      [
        policy({ accountRestrictions: { allowedAccountIds: ['InternalAccount:00000000-0000-7000-8000-000000000000'] } }),
        ['policy.accountRestrictions.allowedAccountIds.0'],
      ],
      [policy({ spendingLimits: undefined }), ['policy.spendingLimits']],
    ];
    for (const [pol, fields] of bad) {
      const res = await api('POST', '/agents', { auth: p.auth, body: { name: 'x', customerId: customer.id, policy: pol } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(pol)).toEqual(fields);
    }
    // Accounts of another customer are refused too.
    const theirs = await api('GET', `/customers/internal-accounts?customerId=${other.id}`, { auth: p.auth });
    const res = await api('POST', '/agents', {
      auth: p.auth,
      body: {
        name: 'x',
        customerId: customer.id,
        policy: policy({ accountRestrictions: { allowedAccountIds: [theirs.body.data[0].id] } }),
      },
    });
    expectError(res, 400);
    expectError(
      await api('POST', '/agents', {
        auth: p.auth,
        body: { name: 'x', customerId: 'Customer:00000000-0000-7000-8000-000000000000', policy: policy() },
      }),
      404,
      'USER_NOT_FOUND',
    );
  });

  it('lists, gets, updates, pauses and patches the policy', async () => {
    const a = await newAgent();
    const list = await api('GET', '/agents', { auth: a.p.auth });
    expect(list.body).toMatchObject({ hasMore: false, totalCount: 1 });
    expect(list.body.data[0]).toMatchObject({ id: a.agentId, isConnected: true });
    // Filtered views carry no totalCount (only the unfiltered list has a maintained count).
    const filtered = await api('GET', `/agents?customerId=${a.customerId}&isConnected=true&isPaused=false`, { auth: a.p.auth });
    expect(filtered.body.data.map((x: any) => x.id)).toEqual([a.agentId]);
    expect(filtered.body).not.toHaveProperty('totalCount');
    expect((await api('GET', '/agents?isPaused=true', { auth: a.p.auth })).body).toEqual({ data: [], hasMore: false });

    const renamed = await api('PATCH', `/agents/${a.agentId}`, { auth: a.p.auth, body: { name: 'Renamed', isPaused: true } });
    expect(renamed.body).toMatchObject({ name: 'Renamed', isPaused: true });
    expectError(await api('PATCH', `/agents/${a.agentId}`, { auth: a.p.auth, body: {} }), 400);

    const patched = await api('PATCH', `/agents/${a.agentId}/policy`, {
      auth: a.p.auth,
      body: {
        permissions: ['VIEW_TRANSACTIONS'],
        spendingLimits: { dailyLimit: null },
        approvalThresholds: { currency: 'USD', amount: 5000 },
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.policy).toEqual({
      ...policy(),
      permissions: ['VIEW_TRANSACTIONS'],
      spendingLimits: { ...policy().spendingLimits, dailyLimit: null },
      approvalThresholds: { currency: 'USD', amount: 5000 },
    });
    expectError(
      await api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.p.auth, body: { spendingLimits: { perTransactionLimit: -3 } } }),
      400,
    );
    expect((await api('GET', `/agents/${a.agentId}`, { auth: a.p.auth })).body.policy).toEqual(patched.body.policy);
  });

  it('an update-time range pages in update order, each agent once; a creation range in creation order', async () => {
    const p = await newPlatform();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await newAgent({ p })).agentId);
    const since = (await api('GET', `/agents/${made[0]}`, { auth: p.auth })).body.createdAt;
    for (const id of [...made].reverse()) {
      await advance(p, 1); // distinct update times
      expect((await api('PATCH', `/agents/${id}`, { auth: p.auth, body: { name: `n-${id.slice(-4)}` } })).status).toBe(200);
    }
    const ids = async (path: string) => (await walk(path, p.auth)).map((a: any) => a.id);
    expect(await ids(`/agents?updatedAfter=${encodeURIComponent(since)}&limit=1`)).toEqual([...made].reverse());
    expect(await ids(`/agents?createdAfter=${encodeURIComponent(since)}&limit=1`)).toEqual(made);
  });

  it('another platform’s agent is 404 on every endpoint; permissions apply', async () => {
    const a = await newAgent();
    const b = await newPlatform();
    for (const [m, path, body] of [
      ['GET', `/agents/${a.agentId}`],
      ['PATCH', `/agents/${a.agentId}`, { name: 'x' }],
      ['PATCH', `/agents/${a.agentId}/policy`, { permissions: [] }],
      ['POST', `/agents/${a.agentId}/device-codes`],
      ['DELETE', `/agents/${a.agentId}`],
    ] as const) {
      expectError(await api(m, path, { auth: b.auth, body }), 404);
    }
    expect((await api('GET', '/agents', { auth: b.auth })).body.totalCount).toBe(0);
    const view = await tokenWith(a.p, ['VIEW']);
    expectError(await api('POST', `/agents/${a.agentId}/device-codes`, { auth: view }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', `/agents/${a.agentId}`, { auth: view }), 403, 'FORBIDDEN');
    expect((await api('GET', `/agents/${a.agentId}`, { auth: view })).status).toBe(200);
  });
});

describe('device codes and agent tokens', () => {
  it('a code is single use; its status follows; the token authenticates /agents/me', async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p, individualBody());
    const created = (await api('POST', '/agents', { auth: p.auth, body: { name: 'Bot', customerId: customer.id, policy: policy() } })).body;
    const code = created.deviceCode.code;
    expect((await api('GET', `/agents/device-codes/${code}/status`, { auth: p.auth })).body).toEqual({ code, redeemed: false });
    const redeemed = await api('POST', `/agents/device-codes/${code}/redeem`);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toEqual({
      agentId: created.agent.id,
      agentName: 'Bot',
      accessToken: expect.stringMatching(/^agt_[A-Za-z0-9_-]{43}$/),
      policy: policy(),
    });
    expect(redeemed.headers.get('Cache-Control')).toBe('no-store');
    expect((await api('GET', `/agents/device-codes/${code}/status`, { auth: p.auth })).body).toEqual({ code, redeemed: true });
    expectError(await api('POST', `/agents/device-codes/${code}/redeem`), 400, 'INVALID_INPUT');
    expectError(await api('POST', '/agents/device-codes/AAAAA-AAAAA/redeem'), 404);
    const me = await api('GET', '/agents/me', { auth: `Bearer ${redeemed.body.accessToken}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: created.agent.id, customerId: customer.id, isConnected: true });
    // Another platform cannot see the code's status.
    expectError(await api('GET', `/agents/device-codes/${code}/status`, { auth: (await newPlatform()).auth }), 404);
  });

  it('an expired code cannot be redeemed; a new code replaces the old and the old token', async () => {
    const a = await newAgent();
    const code = (await api('POST', `/agents/${a.agentId}/device-codes`, { auth: a.p.auth })).body;
    expect(code).toMatchObject({ agentId: a.agentId, redeemed: false });
    await advance(a.p, 601);
    expectError(await api('POST', `/agents/device-codes/${code.code}/redeem`), 400);
    const fresh = (await api('POST', `/agents/${a.agentId}/device-codes`, { auth: a.p.auth })).body;
    const older = (await api('POST', `/agents/${a.agentId}/device-codes`, { auth: a.p.auth })).body;
    expectError(await api('POST', `/agents/device-codes/${fresh.code}/redeem`), 400); // replaced by the newer code
    const redeemed = await api('POST', `/agents/device-codes/${older.code}/redeem`);
    expect(redeemed.status).toBe(200);
    expectError(await api('GET', '/agents/me', { auth: a.bearer }), 401, 'UNAUTHORIZED');
    expect((await api('GET', '/agents/me', { auth: `Bearer ${redeemed.body.accessToken}` })).status).toBe(200);
  });

  it('deleting the agent stops its token at once', async () => {
    const a = await newAgent();
    expect((await api('GET', '/agents/me', { auth: a.bearer })).status).toBe(200);
    expect((await api('DELETE', `/agents/${a.agentId}`, { auth: a.p.auth })).status).toBe(204);
    expectError(await api('GET', '/agents/me', { auth: a.bearer }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', `/agents/${a.agentId}`, { auth: a.p.auth }), 404);
  });

  it('bearer isolation both ways: Basic is refused on /agents/me, a bearer token on platform endpoints', async () => {
    const a = await newAgent();
    expectError(await api('GET', '/agents/me', { auth: a.p.auth }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/agents/me/internal-accounts', { auth: a.p.auth }), 401);
    expectError(await api('GET', '/config', { auth: a.bearer }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/agents', { auth: a.bearer }), 401);
    expectError(await api('GET', '/agents/me', { auth: 'Bearer agt_not-a-real-token-at-all-123' }), 401);
    expectError(await api('GET', '/agents/me'), 401);
    expectError(await api('GET', '/agents/me', { auth: basic('x', 'y') }), 401);
  });
});

describe('agent-scoped reads, bound to the customer', () => {
  it('internal accounts are the customer’s own; VIEW_TRANSACTIONS is required', async () => {
    const a = await newAgent();
    const res = await api('GET', '/agents/me/internal-accounts', { auth: a.bearer });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: any) => x.id).sort()).toEqual(a.accounts.map((x) => x.id).sort());
    expect(res.body.data.every((x: any) => x.customerId === a.customerId)).toBe(true);
    const limited = await newAgent({ p: a.p, policy: policy({ permissions: ['CREATE_TRANSFERS'] }) });
    expectError(await api('GET', '/agents/me/internal-accounts', { auth: limited.bearer }), 403, 'FORBIDDEN');
  });

  it('external accounts: create, list, get and delete for the customer; another customer’s ids are 404', async () => {
    const a = await newAgent();
    const other = await newAgent({ p: a.p });
    const body = {
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '123456789',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith' },
      },
    };
    const created = await api('POST', '/agents/me/external-accounts', { auth: a.bearer, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.customerId).toBe(a.customerId);
    expect((await api('GET', '/agents/me/external-accounts', { auth: a.bearer })).body.data.map((x: any) => x.id)).toEqual([
      created.body.id,
    ]);
    expect((await api('GET', `/agents/me/external-accounts/${created.body.id}`, { auth: a.bearer })).body.id).toBe(created.body.id);
    expectError(await api('GET', `/agents/me/external-accounts/${created.body.id}`, { auth: other.bearer }), 404);
    expectError(await api('DELETE', `/agents/me/external-accounts/${created.body.id}`, { auth: other.bearer }), 404);
    expect((await api('GET', '/agents/me/external-accounts', { auth: other.bearer })).body.data).toEqual([]);
    // The reference body may name the customer: the agent's own is accepted, any other is unknown to it.
    const named = { ...body, customerId: a.customerId, accountInfo: { ...body.accountInfo, accountNumber: '987654321' } };
    const withId = await api('POST', '/agents/me/external-accounts', { auth: a.bearer, body: named });
    expect(withId.status, JSON.stringify(withId.body)).toBe(201);
    expect(withId.body.customerId).toBe(a.customerId);
    expect((await api('DELETE', `/agents/me/external-accounts/${withId.body.id}`, { auth: a.bearer })).status).toBe(204);
    expectError(
      await api('POST', '/agents/me/external-accounts', { auth: a.bearer, body: { ...body, customerId: other.customerId } }),
      404,
      'USER_NOT_FOUND',
    );
    expectError(
      await api('POST', '/agents/me/external-accounts', {
        auth: a.bearer,
        body: { ...body, customerId: 'Customer:00000000-0000-7000-8000-000000000000' },
      }),
      404,
      'USER_NOT_FOUND',
    );
    expect((await api('GET', '/agents/me/external-accounts', { auth: other.bearer })).body.data).toEqual([]);
    expect((await api('DELETE', `/agents/me/external-accounts/${created.body.id}`, { auth: a.bearer })).status).toBe(204);

    const viewer = await newAgent({ p: a.p, policy: policy({ permissions: ['VIEW_TRANSACTIONS'] }) });
    expect((await api('GET', '/agents/me/external-accounts', { auth: viewer.bearer })).status).toBe(200);
    expectError(await api('POST', '/agents/me/external-accounts', { auth: viewer.bearer, body }), 403, 'FORBIDDEN');
    const none = await newAgent({ p: a.p, policy: policy({ permissions: ['CREATE_QUOTES'] }) });
    expectError(await api('GET', '/agents/me/external-accounts', { auth: none.bearer }), 403);
  });

  it('a paused agent cannot act', async () => {
    const a = await newAgent();
    await api('PATCH', `/agents/${a.agentId}`, { auth: a.p.auth, body: { isPaused: true } });
    const body = {
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '123456789',
        routingNumber: '021000021',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith' },
      },
    };
    const paused = await api('POST', '/agents/me/external-accounts', { auth: a.bearer, body });
    expectError(paused, 403, 'FORBIDDEN');
    expect(paused.body.message).toBe('The agent is paused');
    // Every route where the agent acts refuses it, before its input is looked at; its reads still answer.
    const id = 'ExternalAccount:00000000-0000-7000-8000-000000000000';
    for (const [method, path] of [
      ['DELETE', `/agents/me/external-accounts/${id}`],
      ['POST', '/agents/me/quotes'],
      ['POST', '/agents/me/quotes/Quote:00000000-0000-7000-8000-000000000000/execute'],
      ['POST', '/agents/me/transfer-out'],
      ['POST', '/agents/me/transfer-in'],
    ]) {
      const res = await api(method!, path!, { auth: a.bearer, body: method === 'POST' && !path!.endsWith('/execute') ? {} : undefined });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.message, path).toBe('The agent is paused');
    }
    expect((await api('GET', '/agents/me/external-accounts', { auth: a.bearer })).status).toBe(200);
    expect((await api('GET', '/agents/me', { auth: a.bearer })).body.isPaused).toBe(true);
  });
});
