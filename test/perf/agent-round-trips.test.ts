import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, newAgent, policy } from '../support/agents';
import { api } from '../support/api';
import { balanceOf, externalAccount, fund, idemKey } from '../support/payments';
import { measured } from './counting';

/** An agent with a funded USD account and an external USD account of its customer; `approvalAbove` forces approval above it. */
async function fundedAgent(approvalAbove?: number) {
  const a = await newAgent({
    policy: approvalAbove === undefined ? policy() : policy({ approvalThresholds: { amount: approvalAbove, currency: 'USD' } }),
  });
  const usd = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'USD').id as string;
  await fund(a.p, usd, 100_000);
  const external = await externalAccount(a.p, a.customerId, 'USD', '001');
  const body = { source: { accountId: usd }, destination: { accountId: external }, amount: 1_000 };
  return { ...a, usd, external, body };
}

// An agent's money moves on the platforms' road: its reads (with an Idempotency-Key's claim) ride on the bearer
// lookup, then one batch with the action, the money, the events and the answer.
describe('round trips of agent money requests', () => {
  it('AUTO transfer-out: authentication with the reads, then one money batch', async () => {
    const a = await fundedAgent();
    const res = await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, body: a.body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'APPROVED', transaction: { status: 'COMPLETED' } });
    expect(res.cost.d1, JSON.stringify(res.cost)).toBe(2);
    expect(res.cost).toMatchObject({ account: [], queue: 1 });
    expect(await balanceOf(a.p, a.usd)).toBe(99_000);
  });

  it('AUTO transfer-out under an Idempotency-Key: still 2 (the claim rides with the reads), a replay 1 with no money moved', async () => {
    const a = await fundedAgent();
    const key = idemKey();
    const first = await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, headers: { 'Idempotency-Key': key }, body: a.body });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.cost.d1, JSON.stringify(first.cost)).toBe(2);
    const again = await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, headers: { 'Idempotency-Key': key }, body: a.body });
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.cost.d1).toBe(1);
    expect(await balanceOf(a.p, a.usd)).toBe(99_000);
  });

  it('a transfer-out above the approval threshold waits: 2 round trips, nothing moves', async () => {
    const a = await fundedAgent(500);
    const res = await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, body: a.body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('PENDING_APPROVAL');
    expect(res.cost.d1, JSON.stringify(res.cost)).toBe(2);
    expect(await balanceOf(a.p, a.usd)).toBe(100_000);
  });

  for (const via of ['action', 'transaction'] as const) {
    it(`approving the pending action through its ${via}: the action rides on authentication, then its accounts, then one batch`, async () => {
      const a = await fundedAgent(500);
      const pending = await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, body: a.body });
      expect(pending.status).toBe(201);
      const path =
        via === 'action'
          ? `/agents/${a.agentId}/actions/${pending.body.id}/approve`
          : `/transactions/${pending.body.transactionId ?? (await txOf(a, pending.body.id))}/approve`;
      const res = await measured('POST', path, { auth: a.p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.cost.d1, JSON.stringify(res.cost)).toBe(3);
      expect(await balanceOf(a.p, a.usd)).toBe(99_000);
    });
  }
});

/** The transaction of a pending action, as the platform sees it in its approvals list. */
async function txOf(a: Awaited<ReturnType<typeof fundedAgent>>, actionId: string): Promise<string> {
  const list = await measured('GET', '/agents/approvals', { auth: a.p.auth });
  const action = list.body.data.find((x: { id: string }) => x.id === actionId);
  const tx = await measured('GET', `/transactions?customerId=${a.customerId}`, { auth: a.p.auth });
  const pending = tx.body.data.find((t: { status: string; agentId?: string }) => t.status === 'PENDING');
  expect(action).toBeDefined();
  return pending.id as string;
}

describe('an Idempotency-Key claimed with the bearer lookup', () => {
  it('is given back when the policy refuses the operation, so the same key works once it is granted', async () => {
    const a = await fundedAgent();
    await expectStatus(api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.p.auth, body: { permissions: ['VIEW_TRANSACTIONS'] } }), 200);
    const send = () =>
      api('POST', '/agents/me/transfer-out', { auth: a.bearer, headers: { 'Idempotency-Key': 'granted-later' }, body: a.body });
    expect((await send()).status).toBe(403);
    // Not the key's answer: no in-flight 409, no replayed 403.
    expect((await send()).status).toBe(403);
    await expectStatus(api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.p.auth, body: { permissions: ALL_PERMISSIONS } }), 200);
    const done = await send();
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await balanceOf(a.p, a.usd)).toBe(99_000);
  });
});

describe('a paused agent’s refused request', () => {
  it('does not record its Idempotency-Key: the same key acts once the agent is resumed', async () => {
    const a = await fundedAgent();
    await expectStatus(api('PATCH', `/agents/${a.agentId}`, { auth: a.p.auth, body: { isPaused: true } }), 200);
    const send = () =>
      api('POST', '/agents/me/transfer-out', { auth: a.bearer, headers: { 'Idempotency-Key': 'resumed-later' }, body: a.body });
    const paused = await send();
    expect(paused.status, JSON.stringify(paused.body)).toBe(403);
    expect(paused.body.message).toBe('The agent is paused');
    // Not the key's answer: no in-flight 409, no replayed 403.
    const again = await send();
    expect(again.status).toBe(403);
    expect(again.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await balanceOf(a.p, a.usd)).toBe(100_000);
    await expectStatus(api('PATCH', `/agents/${a.agentId}`, { auth: a.p.auth, body: { isPaused: false } }), 200);
    const done = await send();
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.headers.get('Idempotent-Replayed')).toBeNull();
    expect(done.body.status).toBe('APPROVED');
    expect(await balanceOf(a.p, a.usd)).toBe(99_000);
  });
});

async function expectStatus(res: Promise<{ status: number; body: unknown }>, status: number) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
}
