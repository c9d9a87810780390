import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { advance, balanceOf, events, expectLedgerInvariant, externalAccount, fund, tx } from '../support/payments';
import { agentQuote, newAgent, policy, usdOf } from '../support/agents';

/** A connected agent whose customer has $1,000.00 in USD and a USD bank account (success suffix). */
async function fundedAgent(pol: Record<string, unknown> = {}, p?: TestPlatform) {
  const a = await newAgent({ p, policy: policy(pol) });
  const usd = usdOf(a);
  await fund(a.p, usd, 100_000);
  const bank = await externalAccount(a.p, a.customerId, 'USD', '789');
  return { ...a, usd, bank };
}

const out = (a: { bearer: string; usd: string; bank: string }, amount: number, headers: Record<string, string> = {}) =>
  api('POST', '/agents/me/transfer-out', {
    auth: a.bearer,
    headers,
    body: { source: { accountId: a.usd }, destination: { accountId: a.bank }, amount },
  });

const limits = (over: Record<string, unknown>) => ({ spendingLimits: { currency: 'USD', perTransactionLimit: 100_000, ...over } });

describe('agent actions under the policy', () => {
  it('AUTO within limits: APPROVED and executed at once, the transaction carries agentId, usage counts it', async () => {
    const a = await fundedAgent();
    const res = await out(a, 2_500);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^AgentAction:/),
      agentId: a.agentId,
      customerId: a.customerId,
      platformCustomerId: expect.any(String),
      status: 'APPROVED',
      type: 'TRANSFER_OUT',
      transferDetails: { amount: 2_500, currency: 'USD', sourceAccountId: a.usd, destinationAccountId: a.bank },
      transaction: { agentId: a.agentId, status: 'COMPLETED' },
    });
    expect(res.body).not.toHaveProperty('rejectionReason');
    expect(res.body).not.toHaveProperty('quote');
    expect(await balanceOf(a.p, a.usd)).toBe(97_500);
    expect((await tx(a.p, res.body.transaction.id)).agentId).toBe(a.agentId);
    const me = await api('GET', '/agents/me', { auth: a.bearer });
    expect(me.body.usage).toMatchObject({ dailyTransactionCount: 1, dailySpend: 2_500, monthlySpend: 2_500 });
    expect((await api('GET', '/agents/me/actions', { auth: a.bearer })).body.data.map((x: any) => x.id)).toEqual([res.body.id]);
    expect((await api('GET', `/agents/me/actions/${res.body.id}`, { auth: a.bearer })).body).toEqual(res.body);
    expect((await api('GET', `/agents/me/transactions/${res.body.transaction.id}`, { auth: a.bearer })).body.id).toBe(
      res.body.transaction.id,
    );
    await expectLedgerInvariant(a.p.id);
  });

  it('perTransactionLimit: at the limit passes, one above is refused with 403 and nothing happens', async () => {
    const a = await fundedAgent(limits({ perTransactionLimit: 1_000 }));
    expect((await out(a, 999)).body.status).toBe('APPROVED');
    expect((await out(a, 1_000)).body.status).toBe('APPROVED');
    const refused = await out(a, 1_001);
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.body.message).toContain('per-transaction limit');
    expect(await balanceOf(a.p, a.usd)).toBe(98_001);
    expect((await api('GET', '/agents/me/actions', { auth: a.bearer })).body.totalCount).toBe(2);
  });

  it('dailyLimit: up to the limit passes, beyond it is refused', async () => {
    const a = await fundedAgent(limits({ dailyLimit: 3_000 }));
    expect((await out(a, 2_000)).body.status).toBe('APPROVED');
    expect((await out(a, 999)).body.status).toBe('APPROVED');
    expect((await out(a, 1)).body.status).toBe('APPROVED'); // exactly at the limit
    expectError(await out(a, 1), 403, 'FORBIDDEN');
    // Tomorrow (UTC) the daily limit starts again.
    await advance(a.p, 86_400);
    expect((await out(a, 3_000)).body.status).toBe('APPROVED');
  });

  it('dailyTransactionLimit and monthlyLimit', async () => {
    const count = await fundedAgent(limits({ dailyTransactionLimit: 2 }));
    expect((await out(count, 10)).status).toBe(201);
    expect((await out(count, 10)).status).toBe(201);
    expectError(await out(count, 10), 403, 'FORBIDDEN');

    const monthly = await fundedAgent(limits({ monthlyLimit: 5_000 }));
    expect((await out(monthly, 4_999)).status).toBe(201); // just below
    expect((await out(monthly, 1)).status).toBe(201); // at
    expectError(await out(monthly, 1), 403, 'FORBIDDEN'); // above
  });

  it('amounts in another currency count in the policy currency', async () => {
    const a = await fundedAgent({ spendingLimits: { currency: 'EUR', perTransactionLimit: 1_000 } });
    // USD 10.00 is about EUR 9.26: allowed; USD 12.00 (about EUR 11.1) is not.
    expect((await out(a, 1_000)).status).toBe(201);
    expectError(await out(a, 1_200), 403);
  });

  it('an approval threshold forces approval above it, not at it; nothing moves while pending; a webhook announces it', async () => {
    const a = await fundedAgent({ approvalThresholds: { currency: 'USD', amount: 5_000 } });
    expect((await out(a, 4_999)).body.status).toBe('APPROVED');
    expect((await out(a, 5_000)).body.status).toBe('APPROVED');
    const pending = await out(a, 5_001);
    expect(pending.status).toBe(201);
    expect(pending.body.status).toBe('PENDING_APPROVAL');
    expect(pending.body).not.toHaveProperty('transaction');
    expect(await balanceOf(a.p, a.usd)).toBe(90_001);
    const announced = (await events(a.p.id)).filter((e) => e.type === 'AGENT_ACTION.PENDING_APPROVAL');
    expect(announced).toHaveLength(1);
    expect(announced[0]!.data).toMatchObject({ id: pending.body.id, status: 'PENDING_APPROVAL' });
    // Pending actions do not count against limits.
    expect((await api('GET', '/agents/me', { auth: a.bearer })).body.usage.dailySpend).toBe(9_999);
  });

  it('APPROVAL_REQUIRED: the platform approves, the action executes', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const pending = (await out(a, 4_000)).body;
    expect(pending.status).toBe('PENDING_APPROVAL');
    const approvals = await api('GET', '/agents/approvals', { auth: a.p.auth });
    expect(approvals.body.data.map((x: any) => x.id)).toEqual([pending.id]);
    expect(approvals.body.totalCount).toBe(1);
    // Filtered views carry no totalCount (only the unfiltered list has a maintained count).
    const filtered = (await api('GET', `/agents/approvals?agentId=${a.agentId}&customerId=${a.customerId}`, { auth: a.p.auth })).body;
    expect(filtered.data.map((x: any) => x.id)).toEqual([pending.id]);
    expect(filtered).not.toHaveProperty('totalCount');

    const approved = await api('POST', `/agents/${a.agentId}/actions/${pending.id}/approve`, { auth: a.p.auth });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ id: pending.id, status: 'APPROVED', transaction: { status: 'COMPLETED', agentId: a.agentId } });
    expect(await balanceOf(a.p, a.usd)).toBe(96_000);
    expectError(await api('POST', `/agents/${a.agentId}/actions/${pending.id}/approve`, { auth: a.p.auth }), 409);
    expectError(await api('POST', `/agents/${a.agentId}/actions/${pending.id}/reject`, { auth: a.p.auth }), 409);
    expect((await api('GET', '/agents/approvals', { auth: a.p.auth })).body.totalCount).toBe(0);
    await expectLedgerInvariant(a.p.id);
  });

  it('approval through POST /transactions/{id}/approve decides the action too', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const pending = (await out(a, 4_000)).body;
    const txId = (await api('GET', `/transactions?customerId=${a.customerId}`, { auth: a.p.auth })).body.data[0].id;
    const approved = await api('POST', `/transactions/${txId}/approve`, { auth: a.p.auth });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ id: txId, status: 'COMPLETED', agentId: a.agentId });
    expect((await api('GET', `/agents/me/actions/${pending.id}`, { auth: a.bearer })).body).toMatchObject({
      status: 'APPROVED',
      transaction: { id: txId },
    });
  });

  it('approval re-checks the limits at that moment', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED', ...limits({ dailyLimit: 5_000 }) });
    const first = (await out(a, 4_000)).body;
    const second = (await out(a, 4_000)).body;
    expect((await api('POST', `/agents/${a.agentId}/actions/${first.id}/approve`, { auth: a.p.auth })).body.status).toBe('APPROVED');
    const refused = await api('POST', `/agents/${a.agentId}/actions/${second.id}/approve`, { auth: a.p.auth });
    expectError(refused, 403, 'FORBIDDEN');
    expect((await api('GET', `/agents/me/actions/${second.id}`, { auth: a.bearer })).body.status).toBe('PENDING_APPROVAL');
    expect(await balanceOf(a.p, a.usd)).toBe(96_000);
  });

  it('reject with and without a reason: REJECTED, no transaction on the action, nothing moves', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const one = (await out(a, 1_000)).body;
    const two = (await out(a, 2_000)).body;
    const r1 = await api('POST', `/agents/${a.agentId}/actions/${one.id}/reject`, { auth: a.p.auth, body: { reason: 'Not this month' } });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ status: 'REJECTED', rejectionReason: 'Not this month' });
    expect(r1.body).not.toHaveProperty('transaction');
    const r2 = await api('POST', `/agents/${a.agentId}/actions/${two.id}/reject`, { auth: a.p.auth });
    expect(r2.body.status).toBe('REJECTED');
    expect(r2.body).not.toHaveProperty('rejectionReason');
    expect(await balanceOf(a.p, a.usd)).toBe(100_000);
    expectError(await api('POST', `/agents/${a.agentId}/actions/${one.id}/approve`, { auth: a.p.auth }), 409);
    const txs = (await api('GET', `/transactions?customerId=${a.customerId}`, { auth: a.p.auth })).body.data;
    expect(txs.map((t: any) => t.status)).toEqual(['REJECTED', 'REJECTED']);
  });

  it('an approved quote that expired meanwhile ends FAILED', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const quote = await agentQuote(a, 1_000);
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    const pending = await api('POST', `/agents/me/quotes/${quote.body.id}/execute`, { auth: a.bearer });
    expect(pending.status, JSON.stringify(pending.body)).toBe(200); // reference: 200, not 201
    expect(Object.keys((await api('GET', '/openapi.json')).body.paths['/agents/me/quotes/{quoteId}/execute'].post.responses)).toContain(
      '200',
    );
    expect(pending.body).toMatchObject({ type: 'EXECUTE_QUOTE', status: 'PENDING_APPROVAL', quote: { id: quote.body.id } });
    expect(pending.body).not.toHaveProperty('transferDetails');
    await advance(a.p, 301);
    const approved = await api('POST', `/agents/${a.agentId}/actions/${pending.body.id}/approve`, { auth: a.p.auth });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: 'FAILED', transaction: { status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' } });
    expect(await balanceOf(a.p, a.usd)).toBe(100_000);
    expect((await api('GET', '/agents/me', { auth: a.bearer })).body.usage.dailySpend).toBe(0);
  });

  it('an approved transfer short of funds ends FAILED and does not count', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const pending = (await out(a, 90_000)).body;
    // The customer spends most of the money meanwhile (through the platform).
    await api('POST', '/transfer-out', {
      auth: a.p.auth,
      headers: { 'Idempotency-Key': 'drain' },
      body: { source: { accountId: a.usd }, destination: { accountId: a.bank }, amount: 50_000 },
    });
    const approved = await api('POST', `/agents/${a.agentId}/actions/${pending.id}/approve`, { auth: a.p.auth });
    expect(approved.body).toMatchObject({ status: 'FAILED', transaction: { status: 'FAILED' } });
    expect(await balanceOf(a.p, a.usd)).toBe(50_000);
    await expectLedgerInvariant(a.p.id);
  });

  it('twenty parallel transfers cannot together pass the daily limit', async () => {
    const a = await fundedAgent(limits({ dailyLimit: 1_000 }));
    const results = await Promise.all(Array.from({ length: 20 }, () => out(a, 100)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 403, 'FORBIDDEN');
    expect(await balanceOf(a.p, a.usd)).toBe(99_000);
    expect((await api('GET', '/agents/me', { auth: a.bearer })).body.usage).toMatchObject({ dailySpend: 1_000, dailyTransactionCount: 10 });
    await expectLedgerInvariant(a.p.id);
  });
});

describe('agent binding and permissions', () => {
  it('accounts outside allowedAccountIds are 403; another customer’s accounts are 404', async () => {
    const a = await fundedAgent();
    await api('PATCH', `/agents/${a.agentId}/policy`, {
      auth: a.p.auth,
      body: { accountRestrictions: { allowedAccountIds: [a.accounts.find((x) => x.balance.currency.code === 'EUR').id] } },
    });
    expectError(await out(a, 100), 403, 'FORBIDDEN');
    const other = await fundedAgent({}, a.p);
    expectError(
      await api('POST', '/agents/me/transfer-out', {
        auth: other.bearer,
        body: { source: { accountId: other.usd }, destination: { accountId: a.bank }, amount: 100 },
      }),
      404,
    );
    expectError(
      await api('POST', '/agents/me/transfer-out', {
        auth: other.bearer,
        body: { source: { accountId: a.usd }, destination: { accountId: other.bank }, amount: 100 },
      }),
      404,
    );
    expectError(await api('GET', `/agents/me/actions/${(await out(other, 100)).body.id}`, { auth: a.bearer }), 404);
  });

  it("another customer's quote is 404 to the agent, to read or to execute, and stays as it was", async () => {
    const a = await fundedAgent();
    const other = await fundedAgent({}, a.p);
    const theirs = await agentQuote(other, 2_500);
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(201);
    const mine = await agentQuote(a, 2_500);
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    expect((await api('GET', `/agents/me/quotes/${mine.body.id}`, { auth: a.bearer })).status).toBe(200);
    expectError(await api('GET', `/agents/me/quotes/${theirs.body.id}`, { auth: a.bearer }), 404, 'QUOTE_NOT_FOUND');
    expectError(await api('POST', `/agents/me/quotes/${theirs.body.id}/execute`, { auth: a.bearer }), 404, 'QUOTE_NOT_FOUND');
    const after = await api('GET', `/quotes/${theirs.body.id}`, { auth: a.p.auth });
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('PENDING');
    expect(await balanceOf(a.p, other.usd)).toBe(100_000);
  });

  it('each permission gates its operations', async () => {
    const a = await fundedAgent({ permissions: ['VIEW_TRANSACTIONS'] });
    expectError(await out(a, 100), 403, 'FORBIDDEN');
    expectError(
      await api('POST', '/agents/me/quotes', {
        auth: a.bearer,
        body: {
          source: { sourceType: 'ACCOUNT', accountId: a.usd },
          destination: { destinationType: 'ACCOUNT', accountId: a.bank },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 100,
        },
      }),
      403,
    );
    expectError(await api('POST', '/agents/me/quotes/Quote:00000000-0000-7000-8000-000000000000/execute', { auth: a.bearer }), 403);
    expectError(
      await api('POST', '/agents/me/transfer-in', {
        auth: a.bearer,
        body: { source: { accountId: a.bank }, destination: { accountId: a.usd }, amount: 100 },
      }),
      403,
    );
    expect((await api('GET', '/agents/me/transactions', { auth: a.bearer })).status).toBe(200);
    const mover = await fundedAgent({ permissions: ['CREATE_TRANSFERS'] }, a.p);
    expectError(await api('GET', '/agents/me/transactions', { auth: mover.bearer }), 403);
    const inbound = await api('POST', '/agents/me/transfer-in', {
      auth: mover.bearer,
      body: { source: { accountId: mover.bank }, destination: { accountId: mover.usd }, amount: 100 },
    });
    expect(inbound.body).toMatchObject({ type: 'TRANSFER_IN', status: 'APPROVED' });
  });

  it('agent transactions: the reference’s filters narrow the customer’s list; customer filters and unknown parameters are 400', async () => {
    const a = await fundedAgent();
    const other = await fundedAgent({}, a.p);
    const second = await externalAccount(a.p, a.customerId, 'USD', '790');
    const toBank = (await out(a, 100)).body.transaction.id;
    const toSecond = (
      await api('POST', '/agents/me/transfer-out', {
        auth: a.bearer,
        body: { source: { accountId: a.usd }, destination: { accountId: second }, amount: 200 },
      })
    ).body.transaction.id;
    const fromBank = (
      await api('POST', '/agents/me/transfer-in', {
        auth: a.bearer,
        body: { source: { accountId: a.bank }, destination: { accountId: a.usd }, amount: 300 },
      })
    ).body.transaction.id;
    await out(other, 100);
    const ids = async (q: string) => {
      const res = await api('GET', `/agents/me/transactions?${q}`, { auth: a.bearer });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((t: any) => t.id);
    };
    expect(await ids(`receiverAccountIdentifier=${second}`)).toEqual([toSecond]);
    expect(await ids(`senderAccountIdentifier=${a.bank}`)).toEqual([fromBank]);
    expect(await ids(`accountIdentifier=${a.bank}`)).toEqual([fromBank, toBank]);
    expect(await ids(`accountIdentifier=${a.bank}&type=OUTGOING&sortOrder=asc`)).toEqual([toBank]);
    expect(await ids(`accountIdentifier=${other.bank}`)).toEqual([]);
    for (const q of ['customerId=' + a.customerId, 'platformCustomerId=x', 'accountId=' + a.bank]) {
      const res = await api('GET', `/agents/me/transactions?${q}`, { auth: a.bearer });
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.body.details.fields).toEqual([{ field: q.split('=')[0], message: 'Unknown field' }]);
    }
  });

  it('agent transactions list only the customer’s; platform approve/reject need TRANSACT and the same platform', async () => {
    const a = await fundedAgent({ defaultExecutionMode: 'APPROVAL_REQUIRED' });
    const other = await fundedAgent({}, a.p);
    await out(other, 100);
    const pending = (await out(a, 100)).body;
    const list = await api('GET', '/agents/me/transactions', { auth: a.bearer });
    expect(list.body.data.every((t: any) => t.customerId === a.customerId)).toBe(true);
    const theirTx = (await api('GET', '/agents/me/transactions', { auth: other.bearer })).body.data[0].id;
    expectError(await api('GET', `/agents/me/transactions/${theirTx}`, { auth: a.bearer }), 404, 'TRANSACTION_NOT_FOUND');

    const view = await tokenWith(a.p, ['VIEW', 'MANAGE']);
    expectError(await api('POST', `/agents/${a.agentId}/actions/${pending.id}/approve`, { auth: view }), 403, 'FORBIDDEN');
    const stranger = await newPlatform();
    expectError(await api('POST', `/agents/${a.agentId}/actions/${pending.id}/approve`, { auth: stranger.auth }), 404);
    expectError(await api('POST', `/agents/${a.agentId}/actions/${pending.id}/reject`, { auth: stranger.auth }), 404);
    expect((await api('GET', '/agents/approvals', { auth: stranger.auth })).body.totalCount).toBe(0);
    expectError(await api('POST', `/agents/${other.agentId}/actions/${pending.id}/approve`, { auth: a.p.auth }), 404);
  });

  it('an Idempotency-Key replays the first answer without acting again', async () => {
    const a = await fundedAgent();
    const first = await out(a, 700, { 'Idempotency-Key': 'agent-key-1' });
    const again = await out(a, 700, { 'Idempotency-Key': 'agent-key-1' });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await balanceOf(a.p, a.usd)).toBe(99_300);
  });
});
