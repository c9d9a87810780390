// Which transaction statuses are a failed end: REJECTED, FAILED, REFUNDED and EXPIRED, with REFUNDED
// ("could not complete; refunded") among them, as src/db/enums.ts declares once.
import { describe, expect, it } from 'vitest';
import { api } from '../support/api';
import { advance, balanceOf, expectLedgerInvariant, externalAccount, fund } from '../support/payments';
import { agentQuote, newAgent, policy } from '../support/agents';

describe('a payment that ends REFUNDED has failed', () => {
  it('an agent AUTO quote execution cancelled by the user (006): its quote shows FAILED; the action stays APPROVED and counted', async () => {
    const a = await newAgent({ policy: policy() });
    const usd = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'USD').id as string;
    await fund(a.p, usd, 100_000);
    const bank = await externalAccount(a.p, a.customerId, 'USD', '006');
    const quote = await agentQuote({ bearer: a.bearer, usd, bank }, 2_500);
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);

    const executed = await api('POST', `/agents/me/quotes/${quote.body.id}/execute`, { auth: a.bearer });
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(executed.body).toMatchObject({
      type: 'EXECUTE_QUOTE',
      status: 'APPROVED',
      quote: { id: quote.body.id, status: 'PROCESSING' },
      transaction: { status: 'PROCESSING' },
    });
    const actionId = executed.body.id as string;
    expect(await balanceOf(a.p, usd)).toBe(100_000 - quote.body.totalSendingAmount);

    // The user cancels the payout: the transaction ends REFUNDED and the money comes back.
    await advance(a.p, 6);
    const action = await api('GET', `/agents/me/actions/${actionId}`, { auth: a.bearer });
    expect(action.status).toBe(200);
    expect(action.body).toMatchObject({
      status: 'APPROVED',
      quote: { id: quote.body.id, status: 'FAILED' },
      transaction: { status: 'REFUNDED', refund: { status: 'COMPLETED', reason: 'USER_CANCELLATION' } },
    });
    expect(await balanceOf(a.p, usd)).toBe(100_000);

    // The quote reads FAILED wherever it is shown or filtered.
    expect((await api('GET', `/quotes/${quote.body.id}`, { auth: a.p.auth })).body.status).toBe('FAILED');
    expect((await api('GET', `/agents/me/quotes/${quote.body.id}`, { auth: a.bearer })).body.status).toBe('FAILED');
    const failedQuotes = await api('GET', `/quotes?customerId=${a.customerId}&status=FAILED`, { auth: a.p.auth });
    expect(failedQuotes.body.data.map((q: any) => q.id)).toEqual([quote.body.id]);
    const processingQuotes = await api('GET', `/quotes?customerId=${a.customerId}&status=PROCESSING`, { auth: a.p.auth });
    expect(processingQuotes.body.data).toEqual([]);

    // The action's status is its execution's outcome, kept: APPROVED (it ran), counted against the limits.
    const approved = await api('GET', '/agents/me/actions?status=APPROVED', { auth: a.bearer });
    expect(approved.body.data.map((x: any) => x.id)).toEqual([actionId]);
    expect((await api('GET', '/agents/me/actions?status=FAILED', { auth: a.bearer })).body.data).toEqual([]);
    expect((await api('GET', '/agents/me', { auth: a.bearer })).body.usage).toMatchObject({ dailyTransactionCount: 1 });
    await expectLedgerInvariant(a.p.id);
  });
});
