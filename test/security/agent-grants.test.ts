import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { policy } from '../support/agents';
import { balanceOf, expectLedgerInvariant, externalAccount, fund } from '../support/payments';

// An agent never gets a power the API token that set it up lacks: money permissions, AUTO, wider limits and
// device codes for such agents need TRANSACT (the reviewer's finding: MANAGE moved money through an agent).

/** A platform with a funded customer ($1,000.00 USD), a bank account of it, and a MANAGE-only token. */
async function setting() {
  const p = await newPlatform();
  const customer = await createCustomer(p, individualBody());
  const accounts = (await api('GET', `/customers/internal-accounts?customerId=${customer.id}`, { auth: p.auth })).body.data;
  const usd = accounts.find((a: any) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD').id as string;
  await fund(p, usd, 100_000);
  const manage = await tokenWith(p, ['MANAGE']);
  return { p, customerId: customer.id as string, usd, manage };
}

const createAgent = (auth: string, customerId: string, pol: Record<string, unknown>) =>
  api('POST', '/agents', { auth, body: { name: 'Bot', customerId, policy: pol } });

const agentCount = async (p: TestPlatform) => (await api('GET', '/agents', { auth: p.auth })).body.totalCount as number;

function expectMissing(res: Awaited<ReturnType<typeof api<any>>>, missing: string[]) {
  expectError(res, 403, 'FORBIDDEN');
  expect(res.body.details).toEqual({ missingPermissions: missing });
}

describe('an agent never gets a power its creator lacks (finding 1)', () => {
  it('a MANAGE-only token cannot create an AUTO agent with CREATE_TRANSFERS and move money through it', async () => {
    const s = await setting();
    // The reviewer's path: add a bank account, create the agent, redeem (no login), transfer out.
    const bank = (
      await api('POST', '/customers/external-accounts', {
        auth: s.manage,
        body: {
          customerId: s.customerId,
          currency: 'USD',
          accountInfo: {
            accountType: 'USD_ACCOUNT',
            accountNumber: '123456789789',
            routingNumber: '021000021',
            beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Mallory' },
          },
        },
      })
    ).body.id;
    const created = await createAgent(
      s.manage,
      s.customerId,
      policy({ permissions: ['CREATE_TRANSFERS'], spendingLimits: { currency: 'USD', perTransactionLimit: 100_000 } }),
    );
    expectMissing(created, ['TRANSACT']);
    expect(await agentCount(s.p)).toBe(0);
    // Had it been created, this is what the agent would have done.
    if (created.status === 201) {
      const redeemed = await api('POST', `/agents/device-codes/${created.body.deviceCode.code}/redeem`);
      await api('POST', '/agents/me/transfer-out', {
        auth: `Bearer ${redeemed.body.accessToken}`,
        body: { source: { accountId: s.usd }, destination: { accountId: bank }, amount: 60_000 },
      });
    }
    expect(await balanceOf(s.p, s.usd)).toBe(100_000);
  });

  it('a MANAGE-only token cannot raise an existing agent to money powers and re-connect it', async () => {
    const s = await setting();
    const bank = await externalAccount(s.p, s.customerId, 'USD', '789');
    // A money agent the platform made with its full token, waiting for approval on every transfer.
    const agent = (
      await createAgent(
        s.p.auth,
        s.customerId,
        policy({ defaultExecutionMode: 'APPROVAL_REQUIRED', spendingLimits: { currency: 'USD', perTransactionLimit: 100_000 } }),
      )
    ).body.agent;
    const raised = await api('PATCH', `/agents/${agent.id}/policy`, { auth: s.manage, body: { defaultExecutionMode: 'AUTO' } });
    expectMissing(raised, ['TRANSACT']);
    expect((await api('GET', `/agents/${agent.id}`, { auth: s.p.auth })).body.policy.defaultExecutionMode).toBe('APPROVAL_REQUIRED');
    // A new code would hand out a token of a money agent (and one that reads the customer's transactions).
    const code = await api('POST', `/agents/${agent.id}/device-codes`, { auth: s.manage });
    expectMissing(code, ['VIEW', 'TRANSACT']);
    if (code.status === 201) {
      const redeemed = await api('POST', `/agents/device-codes/${code.body.code}/redeem`);
      await api('POST', '/agents/me/transfer-out', {
        auth: `Bearer ${redeemed.body.accessToken}`,
        body: { source: { accountId: s.usd }, destination: { accountId: bank }, amount: 30_000 },
      });
    }
    expect(await balanceOf(s.p, s.usd)).toBe(100_000);
    await expectLedgerInvariant(s.p.id);
  });
});

describe('the rule in detail', () => {
  const limits = { currency: 'USD', perTransactionLimit: 50_000, dailyLimit: 100_000, dailyTransactionLimit: 5, monthlyLimit: 500_000 };

  /** A money agent made with the full token, strict everywhere, and the accounts its policy names. */
  async function strictAgent() {
    const s = await setting();
    const accounts = (await api('GET', `/customers/internal-accounts?customerId=${s.customerId}`, { auth: s.p.auth })).body.data;
    const eur = accounts.find((a: any) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'EUR').id as string;
    const rule = { accountId: s.usd, executionMode: 'APPROVAL_REQUIRED', perTransactionLimit: 20_000 };
    const strict = {
      permissions: ['CREATE_TRANSFERS'],
      defaultExecutionMode: 'APPROVAL_REQUIRED',
      spendingLimits: limits,
      approvalThresholds: { currency: 'USD', amount: 10_000 },
      accountRestrictions: { allowedAccountIds: [s.usd], accountRules: [rule] },
    };
    const created = await createAgent(s.p.auth, s.customerId, strict);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { ...s, eur, rule, strict, agentId: created.body.agent.id as string };
  }

  it('every widening of a money policy needs TRANSACT (VIEW for VIEW_TRANSACTIONS); the policy stays as it was', async () => {
    const a = await strictAgent();
    const restrictions = (over: Record<string, unknown>) => ({
      accountRestrictions: { allowedAccountIds: [a.usd], accountRules: [a.rule], ...over },
    });
    const widening: [string, Record<string, unknown>, string[]][] = [
      ['a money permission', { permissions: ['CREATE_TRANSFERS', 'EXECUTE_QUOTES'] }, ['TRANSACT']],
      ['a read permission', { permissions: ['CREATE_TRANSFERS', 'VIEW_TRANSACTIONS'] }, ['VIEW']],
      ['AUTO', { defaultExecutionMode: 'AUTO' }, ['TRANSACT']],
      ['a higher per-transaction limit', { spendingLimits: { perTransactionLimit: 50_001 } }, ['TRANSACT']],
      ['no daily limit', { spendingLimits: { dailyLimit: null } }, ['TRANSACT']],
      ['a higher daily limit', { spendingLimits: { dailyLimit: 100_001 } }, ['TRANSACT']],
      ['no monthly limit', { spendingLimits: { monthlyLimit: null } }, ['TRANSACT']],
      ['more transactions a day', { spendingLimits: { dailyTransactionLimit: 6 } }, ['TRANSACT']],
      ['another limit currency', { spendingLimits: { currency: 'EUR' } }, ['TRANSACT']],
      ['no approval threshold', { approvalThresholds: {} }, ['TRANSACT']],
      ['a higher approval threshold', { approvalThresholds: { currency: 'USD', amount: 10_001 } }, ['TRANSACT']],
      ['any account', restrictions({ allowedAccountIds: null }), ['TRANSACT']],
      ['one more account', restrictions({ allowedAccountIds: [a.usd, a.eur] }), ['TRANSACT']],
      ['a stricter account rule dropped', restrictions({ accountRules: [] }), ['TRANSACT']],
      ['an account rule to AUTO', restrictions({ accountRules: [{ ...a.rule, executionMode: 'AUTO' }] }), ['TRANSACT']],
      ['a higher account rule limit', restrictions({ accountRules: [{ ...a.rule, perTransactionLimit: 20_001 }] }), ['TRANSACT']],
      [
        'a rule as loose as the defaults put first (a request naming both accounts)',
        restrictions({ accountRules: [{ accountId: a.eur, perTransactionLimit: 50_000 }, a.rule] }),
        ['TRANSACT'],
      ],
    ];
    for (const [what, patch, missing] of widening) {
      const res = await api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.manage, body: patch });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(403);
      expectMissing(res, missing);
    }
    expect((await api('GET', `/agents/${a.agentId}`, { auth: a.p.auth })).body.policy).toEqual(a.strict);
    // The same changes with the permissions they need.
    const transact = await tokenWith(a.p, ['VIEW', 'TRANSACT', 'MANAGE']);
    for (const [what, patch] of widening) {
      const res = await api('PATCH', `/agents/${a.agentId}/policy`, { auth: transact, body: patch });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it('narrowing stays open to MANAGE, and so do powers of a policy that moves no money', async () => {
    const a = await strictAgent();
    const narrowing: [string, Record<string, unknown>][] = [
      ['the same policy', a.strict],
      ['lower limits', { spendingLimits: { perTransactionLimit: 40_000, dailyLimit: 90_000, dailyTransactionLimit: 4, monthlyLimit: 1 } }],
      ['a lower threshold', { approvalThresholds: { currency: 'USD', amount: 5_000 } }],
      [
        'a rule that changes nothing',
        { accountRestrictions: { allowedAccountIds: [a.usd], accountRules: [a.rule, { accountId: a.eur }] } },
      ],
      ['no account', { accountRestrictions: { allowedAccountIds: [], accountRules: [a.rule] } }],
      ['no permission', { permissions: [] }],
      // Without a money permission the money controls decide nothing: they need no TRANSACT.
      [
        'AUTO and no limits, moving no money',
        { defaultExecutionMode: 'AUTO', spendingLimits: { dailyLimit: null }, approvalThresholds: {} },
      ],
      ['managing external accounts', { permissions: ['MANAGE_EXTERNAL_ACCOUNTS'] }],
    ];
    for (const [what, patch] of narrowing) {
      const res = await api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.manage, body: patch });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    // The agent now moves no money: MANAGE may connect it, but not give the money back.
    const code = await api('POST', `/agents/${a.agentId}/device-codes`, { auth: a.manage });
    expect(code.status, JSON.stringify(code.body)).toBe(201);
    expect((await api('POST', `/agents/device-codes/${code.body.code}/redeem`)).status).toBe(200);
    expectMissing(await api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.manage, body: { permissions: ['CREATE_QUOTES'] } }), [
      'TRANSACT',
    ]);
  });

  it('MANAGE creates agents that move no money; money powers at creation need TRANSACT and nothing is created', async () => {
    const s = await setting();
    const inert = policy({ permissions: ['MANAGE_EXTERNAL_ACCOUNTS'], defaultExecutionMode: 'AUTO' });
    expect((await createAgent(s.manage, s.customerId, inert)).status).toBe(201);
    for (const [permissions, missing] of [
      [['CREATE_QUOTES'], ['TRANSACT']],
      [['EXECUTE_QUOTES'], ['TRANSACT']],
      [
        ['CREATE_TRANSFERS', 'VIEW_TRANSACTIONS'],
        ['TRANSACT', 'VIEW'],
      ],
      [['VIEW_TRANSACTIONS'], ['VIEW']],
    ] as const) {
      const res = await createAgent(s.manage, s.customerId, policy({ permissions, defaultExecutionMode: 'APPROVAL_REQUIRED' }));
      expectMissing(res, [...missing]);
    }
    expect(await agentCount(s.p)).toBe(1);
    // A TRANSACT token without VIEW can make a money agent that does not read.
    const noView = await tokenWith(s.p, ['TRANSACT', 'MANAGE']);
    expect((await createAgent(noView, s.customerId, policy({ permissions: ['CREATE_TRANSFERS'] }))).status).toBe(201);
  });

  it("a device code is redeemed only while its issuer holds what the agent's policy needs", async () => {
    const s = await setting();
    // MANAGE makes an agent that moves no money; its code is issued under MANAGE alone.
    const created = (await createAgent(s.manage, s.customerId, policy({ permissions: ['MANAGE_EXTERNAL_ACCOUNTS'] }))).body;
    // The full token then gives it money powers, before the code is redeemed.
    const raised = await api('PATCH', `/agents/${created.agent.id}/policy`, {
      auth: s.p.auth,
      body: { permissions: ['CREATE_TRANSFERS'] },
    });
    expect(raised.status).toBe(200);
    const refused = await api('POST', `/agents/device-codes/${created.deviceCode.code}/redeem`);
    expectMissing(refused, ['TRANSACT']);
    // Not spent, and no token: the agent is not connected.
    expect((await api('GET', `/agents/device-codes/${created.deviceCode.code}/status`, { auth: s.p.auth })).body.redeemed).toBe(false);
    expect((await api('GET', `/agents/${created.agent.id}`, { auth: s.p.auth })).body.isConnected).toBe(false);
    // A code from a token holding TRANSACT connects it.
    const code = (await api('POST', `/agents/${created.agent.id}/device-codes`, { auth: s.p.auth })).body.code;
    expect((await api('POST', `/agents/device-codes/${code}/redeem`)).status).toBe(200);
  });
});

describe('a policy update applies over the policy it checked', () => {
  it('a MANAGE narrowing racing a revocation never writes back the revoked money permission', async () => {
    const s = await setting();
    const money = policy({ permissions: ['CREATE_TRANSFERS'], defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const agent = (await createAgent(s.p.auth, s.customerId, money)).body.agent;
    for (let round = 0; round < 6; round++) {
      expect((await api('PATCH', `/agents/${agent.id}/policy`, { auth: s.p.auth, body: money })).status).toBe(200);
      // The full token revokes the money permission while a MANAGE token lowers a limit (checked against the old policy).
      const [revoke, narrow] = await Promise.all([
        api('PATCH', `/agents/${agent.id}/policy`, { auth: s.p.auth, body: { permissions: [] } }),
        api('PATCH', `/agents/${agent.id}/policy`, { auth: s.manage, body: { spendingLimits: { perTransactionLimit: 40_000 - round } } }),
      ]);
      for (const res of [revoke, narrow]) {
        expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
        if (res.status === 409) expect(res.headers.get('x-should-retry')).toBeNull();
      }
      const stored = (await api('GET', `/agents/${agent.id}`, { auth: s.p.auth })).body.policy;
      if (revoke.status === 200) expect(stored.permissions, `round ${round}`).toEqual([]);
    }
  });
});
