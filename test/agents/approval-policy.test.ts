import { describe, expect, it } from 'vitest';
import { api, expectError } from '../support/api';
import { balanceOf, events, expectLedgerInvariant, externalAccount, fund, tx } from '../support/payments';
import { agentQuote, ALL_PERMISSIONS, newAgent, policy, usdOf } from '../support/agents';

// Approving an agent's pending action checks the agent's policy as it is at that moment: a paused agent, a
// permission taken away, an account no longer allowed or a deleted agent refuse the approval with 403 (the
// same refusal the agent itself would get now), nothing moves, and the action stays PENDING_APPROVAL.

/** A connected agent whose every action waits for the platform; its customer has $1,000.00 and a US bank account. */
async function approvalAgent() {
  const a = await newAgent({ policy: policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }) });
  const usd = usdOf(a);
  await fund(a.p, usd, 100_000);
  const bank = await externalAccount(a.p, a.customerId, 'USD', '789');
  return { ...a, usd, bank };
}
type Agent = Awaited<ReturnType<typeof approvalAgent>>;

async function pendingTransfer(a: Agent, amount: number) {
  const res = await api('POST', '/agents/me/transfer-out', {
    auth: a.bearer,
    body: { source: { accountId: a.usd }, destination: { accountId: a.bank }, amount },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.status).toBe('PENDING_APPROVAL');
  const txId = (await api('GET', `/transactions?customerId=${a.customerId}`, { auth: a.p.auth })).body.data.find(
    (t: any) => t.pendingPlatformApproval,
  ).id as string;
  return { actionId: res.body.id as string, txId };
}

async function pendingQuote(a: Agent, amount: number) {
  const quote = await agentQuote(a, amount);
  expect(quote.status, JSON.stringify(quote.body)).toBe(201);
  const res = await api('POST', `/agents/me/quotes/${quote.body.id}/execute`, { auth: a.bearer });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('PENDING_APPROVAL');
  return { actionId: res.body.id as string, txId: quote.body.transactionId as string };
}

const paths = {
  action: (a: Agent, p: { actionId: string }) => `/agents/${a.agentId}/actions/${p.actionId}/approve`,
  transaction: (_a: Agent, p: { txId: string }) => `/transactions/${p.txId}/approve`,
};

/** The approval is refused with 403, and nothing about the action, its transaction or the money changed. */
async function expectRefused(a: Agent, p: { actionId: string; txId: string }, path: string, message: RegExp) {
  const before = await balanceOf(a.p, a.usd);
  const eventCount = (await events(a.p.id)).length;
  const res = await api('POST', path, { auth: a.p.auth });
  expectError(res, 403, 'FORBIDDEN');
  expect(res.body.message).toMatch(message);
  expect((await api('GET', `/agents/me/actions/${p.actionId}`, { auth: a.bearer })).body).toMatchObject({ status: 'PENDING_APPROVAL' });
  const t = await tx(a.p, p.txId);
  expect(t).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
  expect(await balanceOf(a.p, a.usd)).toBe(before);
  expect((await events(a.p.id)).length).toBe(eventCount);
  expect((await api('GET', '/agents/approvals', { auth: a.p.auth })).body.data.map((x: any) => x.id)).toContain(p.actionId);
}

const pause = (a: Agent, isPaused: boolean) => api('PATCH', `/agents/${a.agentId}`, { auth: a.p.auth, body: { isPaused } });
const setPolicy = (a: Agent, body: Record<string, unknown>) => api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.p.auth, body });

describe('approving a pending agent action checks the current policy (both approve paths)', () => {
  for (const [name, path] of Object.entries(paths)) {
    it(`${name} path: a paused agent's action is not approved (403, stays pending); once resumed it is`, async () => {
      const a = await approvalAgent();
      const p = await pendingTransfer(a, 4_001);
      expect((await pause(a, true)).status).toBe(200);
      await expectRefused(a, p, path(a, p), /paused/);
      expect((await pause(a, false)).status).toBe(200);
      const approved = await api('POST', path(a, p), { auth: a.p.auth });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(await balanceOf(a.p, a.usd)).toBe(100_000 - 4_001);
      await expectLedgerInvariant(a.p.id);
    });

    it(`${name} path: CREATE_TRANSFERS taken away refuses a pending transfer (403, stays pending)`, async () => {
      const a = await approvalAgent();
      const p = await pendingTransfer(a, 4_002);
      const kept = ALL_PERMISSIONS.filter((x) => x !== 'CREATE_TRANSFERS');
      expect((await setPolicy(a, { permissions: kept })).status).toBe(200);
      await expectRefused(a, p, path(a, p), /CREATE_TRANSFERS/);
      // The platform can still reject it: REJECTED, nothing moved.
      const rejected = await api('POST', `/agents/${a.agentId}/actions/${p.actionId}/reject`, { auth: a.p.auth });
      expect(rejected.body.status).toBe('REJECTED');
      expect((await tx(a.p, p.txId)).status).toBe('REJECTED');
      expect(await balanceOf(a.p, a.usd)).toBe(100_000);
      await expectLedgerInvariant(a.p.id);
    });

    it(`${name} path: EXECUTE_QUOTES taken away refuses a pending quote execution`, async () => {
      const a = await approvalAgent();
      const p = await pendingQuote(a, 1_000);
      const kept = ALL_PERMISSIONS.filter((x) => x !== 'EXECUTE_QUOTES');
      expect((await setPolicy(a, { permissions: kept })).status).toBe(200);
      await expectRefused(a, p, path(a, p), /EXECUTE_QUOTES/);
    });

    it(`${name} path: an account no longer in allowedAccountIds refuses the approval`, async () => {
      const a = await approvalAgent();
      const p = await pendingTransfer(a, 4_003);
      const eur = a.accounts.find((x) => x.balance.currency.code === 'EUR').id;
      expect((await setPolicy(a, { accountRestrictions: { allowedAccountIds: [eur] } })).status).toBe(200);
      await expectRefused(a, p, path(a, p), /does not allow account/);
    });
  }

  it('a deleted agent’s pending action is not approved on either path (403); the platform can reject it', async () => {
    const a = await approvalAgent();
    const p = await pendingTransfer(a, 4_004);
    expect((await api('DELETE', `/agents/${a.agentId}`, { auth: a.p.auth })).status).toBe(204);
    for (const path of [paths.transaction(a, p), paths.action(a, p)]) {
      const res = await api('POST', path, { auth: a.p.auth });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.message).toMatch(/deleted/);
    }
    expect(await tx(a.p, p.txId)).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
    expect(await balanceOf(a.p, a.usd)).toBe(100_000);
    expect((await api('POST', `/transactions/${p.txId}/reject`, { auth: a.p.auth })).body.status).toBe('REJECTED');
    expect(await balanceOf(a.p, a.usd)).toBe(100_000);
    await expectLedgerInvariant(a.p.id);
  });
});

describe('approving while the agent is paused concurrently', () => {
  it('each approval either executes or is refused; actions, transactions and balances agree', async () => {
    const a = await approvalAgent();
    const pending = [];
    for (const amount of [1_001, 1_002, 1_003, 1_004, 1_005, 1_006]) pending.push(await pendingTransfer(a, amount));
    const results = await Promise.all([...pending.map((p) => api('POST', paths.action(a, p), { auth: a.p.auth })), pause(a, true)]);
    const approvals = results.slice(0, pending.length);
    let moved = 0;
    for (const [i, res] of approvals.entries()) {
      expect([200, 403, 409], JSON.stringify(res.body)).toContain(res.status);
      const action = (await api('GET', `/agents/me/actions/${pending[i]!.actionId}`, { auth: a.bearer })).body;
      const t = await tx(a.p, pending[i]!.txId);
      if (res.status === 200) {
        expect(action.status).toBe('APPROVED');
        expect(t.status).toBe('COMPLETED');
        moved += 1_001 + i;
      } else {
        expect(action.status).toBe('PENDING_APPROVAL');
        expect(t).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
      }
    }
    expect(await balanceOf(a.p, a.usd)).toBe(100_000 - moved);
    await expectLedgerInvariant(a.p.id);
  });
});
