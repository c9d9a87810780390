import { env } from 'cloudflare:test';
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { platforms, type PlatformRow } from '../../src/db/schema';
import { logger } from '../../src/http/log';
import {
  awaiting as awaitingRequest,
  awaitingDraft,
  quoteChanged,
  requestLoads,
  type ApprovalRequest,
} from '../../src/payments/approvals-service';
import { changeOf } from '../../src/payments/transaction-change';
import { commitChange } from '../../src/http/change';
import { loadTogether } from '../../src/db/client';
import { sandboxRates } from '../../src/payments/rates-sandbox';
import { sandboxRail } from '../../src/payments/sandbox-rail';
import { transactionView } from '../../src/payments/views';
import { api, expectError, failingFields, newPlatform, type TestPlatform } from '../support/api';
import { measured } from '../perf/counting';
import { newAgent } from '../support/agents';
import { walk } from '../support/customers';
import {
  advance,
  balanceOf,
  createQuote,
  customerWithAccounts,
  db,
  eventsAbout,
  execute,
  expectLedgerInvariant,
  externalAccount,
  fund,
  postings,
  statusPath,
  transfer,
  tx,
} from '../support/payments';

const T0 = Date.parse('2032-04-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const depsOf = () => ({
  db: db(),
  queue: env.JOBS,
  log: logger('error'),
  mode: 'sandbox' as const,
  rates: async (now: number) => sandboxRates(now),
});
const deps = depsOf;
const platformRow = async (p: TestPlatform) => (await db().select().from(platforms).where(eq(platforms.id, p.id)))[0]!;

/**
 * A request recorded awaiting the platform's approval, as an agent's action records it (without the action's
 * own rows): PENDING and marked awaiting approval, announced, nothing moved.
 */
async function requestPlatformApproval(
  deps: ReturnType<typeof depsOf>,
  platform: PlatformRow,
  request: ApprovalRequest & { agentId?: string },
  now: number,
) {
  const loaded = await loadTogether(deps.db, requestLoads(deps.db, sql`${platform.id}`, request));
  const draft = await awaitingDraft(
    deps.db,
    awaitingRequest(platform, request, loaded, now, sandboxRail, request.agentId ?? null),
    now,
    deps.mode,
  );
  await commitChange(deps, changeOf(draft, { status: 201, body: null }, { conflict: quoteChanged() }));
  return draft.row;
}

/** What the agents work calls: an action awaiting the platform's approval. */
async function awaiting(p: TestPlatform, request: ApprovalRequest & { agentId?: string }) {
  return transactionView(await requestPlatformApproval(deps(), await platformRow(p), request, Date.now()));
}

async function setup() {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  const ext = await externalAccount(p, customer.id, 'USD', '321');
  const eur = await externalAccount(p, customer.id, 'EUR', '321');
  return { p, customer, accounts, usd: accounts.USD!, ext, eur };
}

const quoteBody = (from: string, to: string, amount = 10_000) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
});

describe('GET /transactions', () => {
  it('filters by customer, account, status, type, reference and dates; pages by keyset', async () => {
    const { p, customer, usd, ext, eur } = await setup();
    const second = await customerWithAccounts(p);
    await fund(p, second.accounts.USD!, 10_000);
    const secondExt = await externalAccount(p, second.customer.id, 'USD', '002');

    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      vi.setSystemTime(T0 + i * 1000);
      ids.push((await transfer(p, 'out', usd, ext, 100 + i)).body.id);
    }
    vi.setSystemTime(T0 + 10_000);
    const incoming = (await transfer(p, 'in', ext, usd, 500)).body.id;
    const failed = (await transfer(p, 'out', second.accounts.USD!, secondExt, 100)).body.id;
    const quote = await createQuote(p, quoteBody(usd, eur));
    const list = (q: string) => api('GET', `/transactions${q}`, { auth: p.auth });

    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ hasMore: false, totalCount: 8 });
    expect(all.body.data.map((t: any) => t.id)).toEqual([quote.transactionId, failed, incoming, ...ids.slice().reverse()]);
    expect(all.body.data[0]).toEqual(await tx(p, quote.transactionId));

    expect((await list(`?customerId=${second.customer.id}`)).body.data.map((t: any) => t.id)).toEqual([failed]);
    // No maintained count for this filter: the total is left out (docs/conventions.md: totalCount), the rows are all there.
    const ofCustomer = await list(`?platformCustomerId=${customer.platformCustomerId}`);
    expect(ofCustomer.body.data).toHaveLength(7);
    expect(ofCustomer.body).not.toHaveProperty('totalCount');
    expect((await list(`?accountIdentifier=${secondExt}`)).body.data.map((t: any) => t.id)).toEqual([failed]);
    expect((await list(`?accountIdentifier=${eur}`)).body.data.map((t: any) => t.id)).toEqual([quote.transactionId]);
    expect((await list('?status=FAILED')).body.data.map((t: any) => t.id)).toEqual([failed]);
    expect((await list('?status=PENDING')).body.data.map((t: any) => t.id)).toEqual([quote.transactionId]);
    expect((await list('?type=INCOMING')).body.data.map((t: any) => t.id)).toEqual([incoming]);
    const reference = (await tx(p, incoming)).reconciliationInstructions.reference;
    expect((await list(`?reference=${reference}`)).body.data.map((t: any) => t.id)).toEqual([incoming]);
    const from = encodeURIComponent(new Date(T0 + 1000).toISOString());
    const to = encodeURIComponent(new Date(T0 + 3000).toISOString());
    expect((await list(`?startDate=${from}&endDate=${to}`)).body.data.map((t: any) => t.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect((await list(`?customerId=${p.id}`)).body.data).toEqual([]);

    // Keyset pages, both orders, with a transaction created while walking.
    const desc = await walk('/transactions?limit=3', p.auth);
    expect(desc.map((t) => t.id)).toEqual(all.body.data.map((t: any) => t.id));
    let added = false;
    const asc = await walk('/transactions?limit=2&sortOrder=asc', p.auth, async () => {
      if (!added) {
        added = true;
        vi.setSystemTime(T0 + 20_000);
        await transfer(p, 'out', usd, ext, 1);
      }
    });
    expect(asc.map((t) => t.id).slice(0, 8)).toEqual(all.body.data.map((t: any) => t.id).reverse());
    expect(asc).toHaveLength(9);

    for (const q of [
      '?limit=0',
      '?limit=101',
      '?status=DONE',
      '?type=BOTH',
      '?startDate=yesterday',
      '?cursor=%%%',
      '?sortOrder=up',
      '?accountIdentifier=',
    ]) {
      expectError(await list(q), 400, 'INVALID_INPUT');
    }
    await expectLedgerInvariant(p.id);
  });

  it('account identifiers: an account id or a UMA address, as sender, receiver or either; combined with other filters and kept across pages', async () => {
    const { p, customer, usd, ext, eur } = await setup();
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((t) => t.id);
    const list = (q: string) => api('GET', `/transactions?${q}`, { auth: p.auth });
    const outs: string[] = [];
    for (let i = 0; i < 3; i++) {
      vi.setSystemTime(T0 + i * 1000);
      outs.push((await transfer(p, 'out', usd, ext, 100 + i)).body.id);
    }
    vi.setSystemTime(T0 + 5000);
    const back = (await transfer(p, 'in', ext, usd, 50)).body.id;
    const toEur = (await createQuote(p, quoteBody(usd, eur))).transactionId;
    const umaReceiver = '$success.eur@sandbox.uma.test';
    const toUma = (
      await createQuote(p, {
        source: { sourceType: 'ACCOUNT', accountId: usd },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: umaReceiver },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1000,
      })
    ).transactionId;
    const received = await api('POST', '/sandbox/uma/receive', {
      auth: p.auth,
      body: {
        senderUmaAddress: '$alice@sender.example',
        receiverUmaAddress: customer.umaAddress,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: 700,
      },
    });
    expect(received.status, JSON.stringify(received.body)).toBe(200);
    const fromAlice = received.body.id as string;

    expect(ids(await list(`senderAccountIdentifier=${ext}`))).toEqual([back]);
    expect(ids(await list(`receiverAccountIdentifier=${ext}`))).toEqual(outs.slice().reverse());
    expect(ids(await list(`accountIdentifier=${ext}`))).toEqual([back, ...outs.slice().reverse()]);
    expect(ids(await list(`senderAccountIdentifier=${usd}`))).toEqual([toUma, toEur, ...outs.slice().reverse()]);
    expect(ids(await list(`receiverAccountIdentifier=${usd}`))).toEqual([fromAlice, back]);
    // UMA addresses name the ends of UMA payments, in any case.
    expect(ids(await list(`receiverAccountIdentifier=${encodeURIComponent(umaReceiver.toUpperCase())}`))).toEqual([toUma]);
    expect(ids(await list(`senderAccountIdentifier=${encodeURIComponent('$alice@sender.example')}`))).toEqual([fromAlice]);
    expect(ids(await list(`accountIdentifier=${encodeURIComponent(customer.umaAddress)}`))).toEqual([fromAlice, toUma]);
    expect(ids(await list(`senderAccountIdentifier=${eur}`))).toEqual([]);
    // Combined: AND of every filter given.
    expect(ids(await list(`senderAccountIdentifier=${usd}&receiverAccountIdentifier=${ext}&status=COMPLETED`))).toEqual(
      outs.slice().reverse(),
    );
    expect(ids(await list(`accountIdentifier=${usd}&type=INCOMING`))).toEqual([fromAlice, back]);
    expect(ids(await list(`senderAccountIdentifier=${usd}&status=PENDING`))).toEqual([toUma, toEur]);
    const to = encodeURIComponent(new Date(T0 + 1000).toISOString());
    expect(ids(await list(`accountIdentifier=${ext}&endDate=${to}`))).toEqual([outs[1], outs[0]]);
    // Pages of a filtered list keep the filter.
    const first = await list(`receiverAccountIdentifier=${ext}&limit=2`);
    expect(first.body).toMatchObject({ hasMore: true });
    expect(first.body).not.toHaveProperty('totalCount');
    expect((await walk(`/transactions?receiverAccountIdentifier=${ext}&limit=1&sortOrder=asc`, p.auth)).map((t) => t.id)).toEqual(outs);
  });

  it('totalCount: exact from maintained counts for the whole list, one status, one type or one customer, and the agent’s list; left out otherwise; kept through status moves and sandbox reset', async () => {
    const { p, customer, usd, ext } = await setup();
    const late = await externalAccount(p, customer.id, 'USD', '005'); // pending 30 s, then FAILED
    const agent = await newAgent({ p });
    await transfer(p, 'out', usd, ext, 100);
    await transfer(p, 'out', usd, ext, 200);
    await transfer(p, 'out', usd, late, 300);
    await transfer(p, 'in', ext, usd, 400);
    await createQuote(p, quoteBody(usd, ext));
    const agentUsd = agent.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'USD').id as string;
    await transfer(p, 'in', await externalAccount(p, agent.customerId, 'USD', '321'), agentUsd, 500);
    const counted = [
      '',
      'status=COMPLETED',
      'status=PENDING',
      'status=FAILED',
      'type=INCOMING',
      'type=OUTGOING',
      `customerId=${customer.id}`,
      `customerId=${agent.customerId}`,
      `customerId=${p.id}`,
    ];
    /** Each counted view's totalCount, checked against its rows (all on one page). */
    const totals = async (withAgent = true) => {
      const out: Record<string, number> = {};
      for (const q of counted) {
        const res = await api('GET', `/transactions?limit=100&${q}`, { auth: p.auth });
        expect(res.status).toBe(200);
        expect(res.body.totalCount, q).toBe(res.body.data.length);
        out[q] = res.body.totalCount;
      }
      if (withAgent) {
        const mine = await api('GET', '/agents/me/transactions?limit=100', { auth: agent.bearer });
        expect(mine.body.totalCount).toBe(out[`customerId=${agent.customerId}`]);
      }
      return out;
    };
    const before = await totals();
    expect(before).toMatchObject({
      '': 6,
      'status=FAILED': 0,
      'type=INCOMING': 2,
      [`customerId=${customer.id}`]: 5,
      [`customerId=${agent.customerId}`]: 1,
    });
    // A filter without a count, or two filters, leave it out; a page further on keeps it.
    for (const q of [
      `platformCustomerId=${customer.platformCustomerId}`,
      'status=COMPLETED&type=OUTGOING',
      `accountIdentifier=${ext}`,
      'reference=x',
    ]) {
      const res = await api('GET', `/transactions?${q}`, { auth: p.auth });
      expect(res.body, q).not.toHaveProperty('totalCount');
    }
    // Read from the counter, never by counting the platform's rows (lists of every size cost the same).
    for (const path of ['/transactions', '/transactions?status=COMPLETED', `/transactions?customerId=${customer.id}`, '/quotes']) {
      const { cost } = await measured('GET', path, { auth: p.auth });
      expect(
        cost.sql.filter((s) => /\bcount\(/i.test(s.query)).map((s) => s.query),
        path,
      ).toEqual([]);
    }
    const mine = await measured('GET', '/agents/me/transactions', { auth: agent.bearer });
    expect(mine.cost.sql.filter((s) => /\bcount\(/i.test(s.query))).toEqual([]);
    const paged = await api('GET', '/transactions?limit=2', { auth: p.auth });
    const next = await api('GET', `/transactions?limit=2&cursor=${paged.body.nextCursor}`, { auth: p.auth });
    expect(next.body.totalCount).toBe(6);
    // A status move moves the count between statuses (the 005 transfer fails 30 s later).
    await advance(p, 60);
    expect(await totals()).toMatchObject({ '': 6, 'status=FAILED': 1 });
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    expect(Object.values(await totals(false)).every((n) => n === 0)).toBe(true);
  });

  it('lists only the calling platform’s transactions; another platform’s id is 404', async () => {
    const a = await setup();
    const b = await setup();
    const mine = (await transfer(a.p, 'out', a.usd, a.ext, 100)).body.id;
    const theirs = (await transfer(b.p, 'out', b.usd, b.ext, 100)).body.id;
    expect((await api('GET', '/transactions', { auth: a.p.auth })).body.data.map((t: any) => t.id)).toEqual([mine]);
    expectError(await api('GET', `/transactions/${theirs}`, { auth: a.p.auth }), 404, 'TRANSACTION_NOT_FOUND');
    expectError(
      await api('GET', '/transactions/Transaction:019542f5-b3e7-1d02-0000-000000000005', { auth: a.p.auth }),
      404,
      'TRANSACTION_NOT_FOUND',
    );
    expect((await api('GET', `/transactions?customerId=${b.customer.id}`, { auth: a.p.auth })).body.data).toEqual([]);
  });
});

describe('transactions awaiting platform approval', () => {
  it('EXECUTE_QUOTE: pending with the agent id, approve executes it', async () => {
    const { p, usd, eur } = await setup();
    const quote = await createQuote(p, quoteBody(usd, eur));
    const pending = await awaiting(p, { type: 'EXECUTE_QUOTE', quoteId: quote.id, agentId: 'Agent:019542f5-b3e7-1d02-0000-000000000042' });
    expect(pending).toMatchObject({
      id: quote.transactionId,
      status: 'PENDING',
      pendingPlatformApproval: true,
      agentId: 'Agent:019542f5-b3e7-1d02-0000-000000000042',
    });
    expect(await tx(p, quote.transactionId)).toEqual(pending);
    // The quote cannot be executed around the approval.
    expectError(await execute(p, quote.id), 409, 'CONFLICT');
    const res = await api('POST', `/transactions/${quote.transactionId}/approve`, { auth: p.auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'PROCESSING', agentId: 'Agent:019542f5-b3e7-1d02-0000-000000000042' });
    expect(res.body).not.toHaveProperty('pendingPlatformApproval');
    expect(await balanceOf(p, usd)).toBe(90_000);
    await advance(p, 5);
    expect((await tx(p, quote.transactionId)).status).toBe('COMPLETED');
    expect(await statusPath(quote.transactionId)).toEqual(['PENDING', 'PENDING', 'PROCESSING', 'COMPLETED']);
    expect((await eventsAbout(p.id, quote.transactionId)).map((e) => e.type)).toEqual([
      'OUTGOING_PAYMENT.PENDING',
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
    ]);
    // Decided once.
    expectError(
      await api('POST', `/transactions/${quote.transactionId}/approve`, { auth: p.auth }),
      409,
      'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    );
    expectError(
      await api('POST', `/transactions/${quote.transactionId}/reject`, { auth: p.auth }),
      409,
      'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    );
    await expectLedgerInvariant(p.id);
  });

  it('reject cancels it without moving money', async () => {
    const { p, usd, ext } = await setup();
    const pending = await awaiting(p, { type: 'TRANSFER_OUT', sourceAccountId: usd, destinationAccountId: ext, amount: 5_000 });
    expect(pending).toMatchObject({ status: 'PENDING', type: 'OUTGOING', pendingPlatformApproval: true, sentAmount: { amount: 5_000 } });
    expect(pending).not.toHaveProperty('agentId');
    const res = await api('POST', `/transactions/${pending.id}/reject`, { auth: p.auth, body: { reason: 'Not today' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pending.id, status: 'REJECTED' });
    expect(res.body).not.toHaveProperty('pendingPlatformApproval');
    expect(await postings(pending.id)).toEqual([]);
    expect(await balanceOf(p, usd)).toBe(100_000);
    expect((await eventsAbout(p.id, pending.id)).map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED']);
    expectError(
      await api('POST', `/transactions/${pending.id}/approve`, { auth: p.auth }),
      409,
      'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    );
    const bad = await api('POST', `/transactions/${pending.id}/reject`, { auth: p.auth, body: { reason: 7 } });
    expectError(bad, 400, 'INVALID_INPUT');
    await expectLedgerInvariant(p.id);
  });

  it('TRANSFER_IN and TRANSFER_OUT approvals run the transfer with its suffix outcome', async () => {
    const { p, customer, usd, ext } = await setup();
    const incoming = await awaiting(p, { type: 'TRANSFER_IN', sourceAccountId: ext, destinationAccountId: usd, amount: 2_000 });
    expect(incoming).toMatchObject({ type: 'INCOMING', status: 'PENDING', pendingPlatformApproval: true });
    expect((await api('POST', `/transactions/${incoming.id}/approve`, { auth: p.auth, body: {} })).body.status).toBe('COMPLETED');
    expect(await balanceOf(p, usd)).toBe(102_000);
    const slow = await externalAccount(p, customer.id, 'USD', '005');
    const out = await awaiting(p, { type: 'TRANSFER_OUT', sourceAccountId: usd, destinationAccountId: slow, amount: 2_000 });
    expect((await api('POST', `/transactions/${out.id}/approve`, { auth: p.auth })).body.status).toBe('PROCESSING');
    expect(await balanceOf(p, usd)).toBe(100_000);
    await advance(p, 30);
    expect(await tx(p, out.id)).toMatchObject({ status: 'FAILED', failureReason: 'OFFRAMP_FAILED' });
    expect(await balanceOf(p, usd)).toBe(102_000);
    await expectLedgerInvariant(p.id);
  });

  it('approve re-checks the quote expiry and the funds', async () => {
    const { p, usd, eur, ext } = await setup();
    const late = await createQuote(p, quoteBody(usd, eur));
    await awaiting(p, { type: 'EXECUTE_QUOTE', quoteId: late.id });
    const poor = await createQuote(p, quoteBody(usd, eur, 60_000));
    await awaiting(p, { type: 'EXECUTE_QUOTE', quoteId: poor.id });
    const transferTooBig = await awaiting(p, { type: 'TRANSFER_OUT', sourceAccountId: usd, destinationAccountId: ext, amount: 60_000 });
    await transfer(p, 'out', usd, ext, 50_000); // spends half while they wait

    expect((await api('POST', `/transactions/${poor.transactionId}/approve`, { auth: p.auth })).body).toMatchObject({
      status: 'FAILED',
      failureReason: 'QUOTE_EXECUTION_FAILED',
    });
    expect((await api('POST', `/transactions/${transferTooBig.id}/approve`, { auth: p.auth })).body).toMatchObject({
      status: 'FAILED',
      failureReason: 'OFFRAMP_FAILED',
    });
    vi.setSystemTime(T0 + 5 * 60_000);
    expect((await api('POST', `/transactions/${late.transactionId}/approve`, { auth: p.auth })).body).toMatchObject({
      status: 'EXPIRED',
      failureReason: 'QUOTE_EXPIRED',
    });
    expect(await balanceOf(p, usd)).toBe(50_000);
    await expectLedgerInvariant(p.id);
  });

  it('refuses what cannot await approval', async () => {
    const { p, accounts, usd, eur, ext } = await setup();
    const plat = await platformRow(p);
    const quote = await createQuote(p, quoteBody(usd, eur));
    await execute(p, quote.id);
    await expect(requestPlatformApproval(deps(), plat, { type: 'EXECUTE_QUOTE', quoteId: quote.id }, Date.now())).rejects.toMatchObject({
      status: 409,
    });
    await fund(p, accounts.wallet!, 10_000);
    const fromWallet = await createQuote(p, quoteBody(accounts.wallet!, eur, 1_000));
    await expect(
      requestPlatformApproval(deps(), plat, { type: 'EXECUTE_QUOTE', quoteId: fromWallet.id }, Date.now()),
    ).rejects.toMatchObject({ status: 400 });
    await expect(requestPlatformApproval(deps(), plat, { type: 'EXECUTE_QUOTE', quoteId: 'Quote:nope' }, Date.now())).rejects.toMatchObject(
      { status: 404, code: 'QUOTE_NOT_FOUND' },
    );
    // An ordinary transaction is not awaiting approval.
    const normal = (await transfer(p, 'in', ext, usd, 100)).body.id;
    expectError(await api('POST', `/transactions/${normal}/approve`, { auth: p.auth }), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    expectError(await api('POST', `/transactions/${normal}/reject`, { auth: p.auth }), 409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
    expectError(await api('POST', '/transactions/Transaction:nope/approve', { auth: p.auth }), 404, 'TRANSACTION_NOT_FOUND');
    const res = await api('POST', `/transactions/${normal}/approve`, { auth: p.auth, body: { unknown: 1 } });
    expect(failingFields(res)).toEqual(['unknown']);
  });

  it('a quote awaiting approval expires on time', async () => {
    const { p, usd, eur } = await setup();
    const quote = await createQuote(p, quoteBody(usd, eur));
    await awaiting(p, { type: 'EXECUTE_QUOTE', quoteId: quote.id });
    await advance(p, 300);
    expect(await tx(p, quote.transactionId)).toMatchObject({ status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' });
    expectError(
      await api('POST', `/transactions/${quote.transactionId}/approve`, { auth: p.auth }),
      409,
      'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    );
  });
});
