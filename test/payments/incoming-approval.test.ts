import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { transactions } from '../../src/db/schema';
import { api, expectError, newPlatform, type TestPlatform } from '../support/api';
import { individualBody } from '../support/customers';
import { consume, deliveryOf, fakeEndpoint, hookUrl } from '../support/webhooks';
import { advance, balanceOf, customerWithAccounts, db, eventsAbout, expectLedgerInvariant, postings, tx } from '../support/payments';

const T0 = Date.parse('2032-07-01T09:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

type Answer = (n: number) => number | Response | Promise<number | Response>;
const answerJson = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** A platform whose webhookEndpoint answers `answer`, a receiving customer, and an incoming UMA payment to it. */
async function incoming(answer: Answer, currency = 'USD', amount = 2_500, sender = '$sam.sender@sender.example') {
  const url = hookUrl();
  const hook = fakeEndpoint(url, answer);
  const p = await newPlatform({ webhookEndpoint: url });
  const { customer, accounts } = await customerWithAccounts(p, individualBody({ umaAddress: `$rita@${p.umaDomain}` }));
  const res = await api('POST', '/sandbox/uma/receive', {
    auth: p.auth,
    body: {
      senderUmaAddress: sender,
      receiverUmaAddress: `$rita@${p.umaDomain}`,
      receivingCurrencyCode: currency,
      receivingCurrencyAmount: amount,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
  const [pending] = await eventsAbout(p.id, res.body.id);
  expect(pending!.type).toBe('INCOMING_PAYMENT.PENDING');
  return { p, hook, customer, account: accounts[currency]!, txId: res.body.id as string, eventId: pending!.id };
}

/** Runs the real queue consumer on the approval request and waits until its attempt is recorded. */
async function deliver(eventId: string) {
  await consume({ type: 'webhook.deliver', eventId });
  await vi.waitFor(async () => expect((await deliveryOf(eventId)).lastAttemptAt).not.toBeNull());
  return deliveryOf(eventId);
}

async function approvalOf(txId: string) {
  return (await db().select().from(transactions).where(eq(transactions.id, txId)))[0]!.approval;
}

async function expectNotCredited(p: TestPlatform, txId: string, account: string) {
  expect(await balanceOf(p, account)).toBe(0);
  expect(await postings(txId)).toEqual([]);
  await expectLedgerInvariant(p.id);
}

describe('incoming payments wait for the platform’s answer to INCOMING_PAYMENT.PENDING', () => {
  it('200 approves: credited, COMPLETED; the request carried the reference payload', async () => {
    const { p, hook, account, txId, eventId } = await incoming(() => 200);
    // Nothing moves before the decision, however long it takes the sandbox plan.
    await advance(p, 10);
    expect(await balanceOf(p, account)).toBe(0);
    expect(await deliver(eventId)).toMatchObject({ status: 'DELIVERED', lastResponseStatus: 200 });
    const body = JSON.parse(hook.calls[0]!.body);
    expect(body).toMatchObject({
      id: eventId,
      type: 'INCOMING_PAYMENT.PENDING',
      data: {
        id: txId,
        status: 'PENDING',
        type: 'INCOMING',
        senderUmaAddress: '$sam.sender@sender.example',
        counterpartyInformation: { FULL_NAME: 'Sam Sender' },
      },
    });
    // USD asks nothing of the receiver beyond what registration gave.
    expect(body.data).not.toHaveProperty('requestedReceiverCustomerInfoFields');
    expect(await tx(p, txId)).toMatchObject({ status: 'COMPLETED', settledAt: new Date(T0 + 10_000).toISOString() });
    expect((await tx(p, txId)).pendingPlatformApproval).toBeUndefined();
    expect(await balanceOf(p, account)).toBe(2_500);
    expect(await postings(txId)).toEqual(['CREDIT']);
    expect((await eventsAbout(p.id, txId)).map((e) => e.type)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
    // A redelivered approval request applies nothing twice.
    await consume({ type: 'webhook.deliver', eventId });
    expect(await balanceOf(p, account)).toBe(2_500);
    await expectLedgerInvariant(p.id);
  });

  it('asks for requestedReceiverCustomerInfoFields; 200 with receiverCustomerInfo approves, 200 without fails the payment', async () => {
    const info = { TAX_ID: 'GODE561231GR8' };
    const given = await incoming(() => answerJson(200, { receiverCustomerInfo: info }), 'MXN');
    await deliver(given.eventId);
    expect(JSON.parse(given.hook.calls[0]!.body).data.requestedReceiverCustomerInfoFields).toEqual([{ name: 'TAX_ID', mandatory: true }]);
    expect(await tx(given.p, given.txId)).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(given.p, given.account)).toBe(2_500);
    expect(await approvalOf(given.txId)).toMatchObject({ state: 'APPROVED', receiverCustomerInfo: info });

    const missing = await incoming(() => 200, 'MXN');
    await deliver(missing.eventId);
    expect(await tx(missing.p, missing.txId)).toMatchObject({ status: 'FAILED', failureReason: 'MISSING_MANDATORY_PAYEE_DATA' });
    await expectNotCredited(missing.p, missing.txId, missing.account);
  });

  it('the sandbox sender $requires.info asks for NATIONALITY (mandatory) and POSTAL_ADDRESS (optional)', async () => {
    const sender = '$requires.info@sender.example';
    const info = { NATIONALITY: 'MX' };
    const given = await incoming(() => answerJson(200, { receiverCustomerInfo: info }), 'USD', 2_500, sender);
    await deliver(given.eventId);
    expect(JSON.parse(given.hook.calls[0]!.body).data).toMatchObject({
      senderUmaAddress: sender,
      requestedReceiverCustomerInfoFields: [
        { name: 'NATIONALITY', mandatory: true },
        { name: 'POSTAL_ADDRESS', mandatory: false },
      ],
    });
    // The optional field may be left out.
    expect(await tx(given.p, given.txId)).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(given.p, given.account)).toBe(2_500);
    expect(await approvalOf(given.txId)).toMatchObject({ state: 'APPROVED', receiverCustomerInfo: info });

    // Only the optional field: the payment fails, nothing is credited.
    const missing = await incoming(
      () => answerJson(200, { receiverCustomerInfo: { POSTAL_ADDRESS: { country: 'MX' } } }),
      'USD',
      2_500,
      sender,
    );
    await deliver(missing.eventId);
    expect(await tx(missing.p, missing.txId)).toMatchObject({ status: 'FAILED', failureReason: 'MISSING_MANDATORY_PAYEE_DATA' });
    await expectNotCredited(missing.p, missing.txId, missing.account);
    expect((await eventsAbout(missing.p.id, missing.txId)).map((e) => e.type)).toEqual([
      'INCOMING_PAYMENT.PENDING',
      'INCOMING_PAYMENT.FAILED',
    ]);

    // After a 202, POST /transactions/{id}/approve without NATIONALITY is 400 naming it, and changes nothing.
    const later = await incoming(() => 202, 'USD', 2_500, sender);
    await deliver(later.eventId);
    const refused = await api('POST', `/transactions/${later.txId}/approve`, {
      auth: later.p.auth,
      body: { receiverCustomerInfo: { POSTAL_ADDRESS: { country: 'MX' } } },
    });
    expectError(refused, 400, 'INVALID_INPUT');
    expect(JSON.stringify(refused.body.details)).toContain('receiverCustomerInfo.NATIONALITY');
    expect(await tx(later.p, later.txId)).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
    const approved = await api('POST', `/transactions/${later.txId}/approve`, { auth: later.p.auth, body: { receiverCustomerInfo: info } });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(await balanceOf(later.p, later.account)).toBe(2_500);

    // On top of the currency's own: MXN asks TAX_ID as well.
    const both = await incoming(() => 200, 'MXN', 2_500, sender);
    await deliver(both.eventId);
    expect(JSON.parse(both.hook.calls[0]!.body).data.requestedReceiverCustomerInfoFields).toEqual([
      { name: 'TAX_ID', mandatory: true },
      { name: 'NATIONALITY', mandatory: true },
      { name: 'POSTAL_ADDRESS', mandatory: false },
    ]);
  });

  it('202 then POST /transactions/{id}/approve: credited', async () => {
    const { p, account, txId, eventId } = await incoming(() => 202);
    expect(await deliver(eventId)).toMatchObject({ status: 'DELIVERED', lastResponseStatus: 202 });
    expect(await tx(p, txId)).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
    await advance(p, 4);
    const res = await api('POST', `/transactions/${txId}/approve`, { auth: p.auth, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(p, account)).toBe(2_500);
    // The deadline finds it decided and changes nothing; deciding again is 409.
    await advance(p, 60);
    expect((await tx(p, txId)).status).toBe('COMPLETED');
    expectError(
      await api('POST', `/transactions/${txId}/reject`, { auth: p.auth, body: {} }),
      409,
      'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    );
    await expectLedgerInvariant(p.id);
  });

  it('an approve and a reject at once: one decides, the other is 409, and the history holds one decision', async () => {
    const { p, account, txId, eventId } = await incoming(() => 202);
    await deliver(eventId);
    const [approve, reject] = await Promise.all([
      api('POST', `/transactions/${txId}/approve`, { auth: p.auth, body: {} }),
      api('POST', `/transactions/${txId}/reject`, { auth: p.auth, body: { reason: 'RESTRICTED_JURISDICTION' } }),
    ]);
    const statuses = [approve.status, reject.status].sort();
    expect(statuses, JSON.stringify([approve.body, reject.body])).toEqual([200, 409]);
    const winner = approve.status === 200 ? 'COMPLETED' : 'REJECTED';
    expect((await tx(p, txId)).status).toBe(winner);
    const history = await api('GET', `/transactions/${txId}/history`, { auth: p.auth });
    expect(history.body.data.map((c: { status: string }) => c.status)).toEqual(['PENDING', winner]);
    expect(await balanceOf(p, account)).toBe(winner === 'COMPLETED' ? 2_500 : 0);
    await expectLedgerInvariant(p.id);
  });

  it('202 then POST /transactions/{id}/reject: REJECTED with its reason, not credited', async () => {
    const { p, account, txId, eventId } = await incoming(() => 202);
    await deliver(eventId);
    const res = await api('POST', `/transactions/${txId}/reject`, { auth: p.auth, body: { reason: 'RESTRICTED_JURISDICTION' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'REJECTED' });
    expect(await approvalOf(txId)).toMatchObject({ state: 'REJECTED', reason: 'RESTRICTED_JURISDICTION' });
    expect((await eventsAbout(p.id, txId)).map((e) => e.type)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
    await expectNotCredited(p, txId, account);
  });

  it('202 and no decision within 5 s: FAILED with PAYMENT_APPROVAL_TIMED_OUT, not credited; a late approve is 409', async () => {
    const { p, account, txId, eventId } = await incoming(() => 202);
    await deliver(eventId);
    await advance(p, 4);
    expect((await tx(p, txId)).status).toBe('PENDING');
    await advance(p, 1);
    expect(await tx(p, txId)).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' });
    expectError(await api('POST', `/transactions/${txId}/approve`, { auth: p.auth, body: {} }), 409);
    await expectNotCredited(p, txId, account);
  });

  it('403 rejects: REJECTED, the reason kept, not credited, never retried', async () => {
    const { p, hook, account, txId, eventId } = await incoming(() =>
      answerJson(403, { status: 403, code: 'FORBIDDEN', message: 'No', reason: 'RESTRICTED_JURISDICTION' }),
    );
    expect(await deliver(eventId)).toMatchObject({ status: 'DELIVERED', lastResponseStatus: 403 });
    expect(await tx(p, txId)).toMatchObject({ status: 'REJECTED' });
    expect(await approvalOf(txId)).toMatchObject({ state: 'REJECTED', reason: 'RESTRICTED_JURISDICTION' });
    await advance(p, 120);
    expect(hook.calls).toHaveLength(1);
    expect((await tx(p, txId)).status).toBe('REJECTED');
    await expectNotCredited(p, txId, account);
  });

  it('422 names the missing counterparty fields: REJECTED, the fields kept, not credited', async () => {
    const { p, account, txId, eventId } = await incoming(() =>
      answerJson(422, { status: 422, code: 'MISSING_FIELDS', message: 'More needed', requiredFields: ['TAX_ID', 'REGISTRATION_NUMBER'] }),
    );
    expect(await deliver(eventId)).toMatchObject({ status: 'DELIVERED', lastResponseStatus: 422 });
    expect(await tx(p, txId)).toMatchObject({ status: 'REJECTED' });
    expect(await approvalOf(txId)).toMatchObject({
      requiredFields: ['TAX_ID', 'REGISTRATION_NUMBER'],
      reason: expect.stringContaining('TAX_ID'),
    });
    await expectNotCredited(p, txId, account);
  });

  it('a receiver that is down: retried, then FAILED with PAYMENT_APPROVAL_WEBHOOK_ERROR at the deadline, not credited', async () => {
    const { p, hook, account, txId, eventId } = await incoming((n) => {
      if (n === 1) throw new TypeError('connection refused');
      return 503;
    });
    expect(await deliver(eventId)).toMatchObject({ status: 'PENDING', lastError: 'Connection failed' });
    expect((await tx(p, txId)).status).toBe('PENDING');
    await advance(p, 59);
    expect((await tx(p, txId)).status).toBe('PENDING');
    await advance(p, 1);
    expect(await tx(p, txId)).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' });
    // The approval request is not retried after its deadline (the payment's FAILED event may still be on its way).
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'FAILED' });
    const requests = () => hook.calls.filter((c) => JSON.parse(c.body).id === eventId).length;
    const calls = requests();
    expect(calls).toBeGreaterThan(0);
    await advance(p, 3_600);
    expect(requests()).toBe(calls);
    await expectNotCredited(p, txId, account);
  });

  it('a resend is an attempt like any other: after a 503, the resent request’s 200 approves, once', async () => {
    const { p, hook, account, txId, eventId } = await incoming((n) => (n === 1 ? 503 : 200));
    const first = await deliver(eventId);
    expect(first).toMatchObject({ status: 'PENDING', lastResponseStatus: 503 });
    const resent = await api('POST', `/webhooks/deliveries/${encodeURIComponent(first.id)}/resend`, { auth: p.auth });
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ status: 'DELIVERED', attempts: 2, lastResponseStatus: 200 });
    expect(await tx(p, txId)).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(p, account)).toBe(2_500);
    // A second resend's approval applies nothing twice.
    expect((await api('POST', `/webhooks/deliveries/${encodeURIComponent(first.id)}/resend`, { auth: p.auth })).body).toMatchObject({
      attempts: 3,
    });
    expect(hook.calls).toHaveLength(3);
    expect(await balanceOf(p, account)).toBe(2_500);
    expect(await postings(txId)).toEqual(['CREDIT']);
    await expectLedgerInvariant(p.id);
  });

  it('409 (already handled) applies nothing', async () => {
    const { p, account, txId, eventId } = await incoming(() => 409);
    expect(await deliver(eventId)).toMatchObject({ status: 'DELIVERED', lastResponseStatus: 409 });
    expect(await tx(p, txId)).toMatchObject({ status: 'PENDING', pendingPlatformApproval: true });
    expect(await balanceOf(p, account)).toBe(0);
  });

  it('POST /transactions/{id}/approve asks for the requested receiver fields (400 naming them)', async () => {
    const { p, account, txId } = await incoming(() => 202, 'MXN');
    const res = await api('POST', `/transactions/${txId}/approve`, { auth: p.auth, body: {} });
    expectError(res, 400, 'INVALID_INPUT');
    expect(JSON.stringify(res.body)).toContain('receiverCustomerInfo.TAX_ID');
    const ok = await api('POST', `/transactions/${txId}/approve`, {
      auth: p.auth,
      body: { receiverCustomerInfo: { TAX_ID: 'GODE561231GR8' } },
    });
    expect(ok.body).toMatchObject({ status: 'COMPLETED' });
    expect(await balanceOf(p, account)).toBe(2_500);
  });

  it('without a webhookEndpoint the sandbox approves on its own: COMPLETED 5 s later', async () => {
    const p = await newPlatform();
    const { accounts } = await customerWithAccounts(p, individualBody({ umaAddress: `$nora@${p.umaDomain}` }));
    const res = await api('POST', '/sandbox/uma/receive', {
      auth: p.auth,
      body: {
        senderUmaAddress: '$s@sender.example',
        receiverUmaAddress: `$nora@${p.umaDomain}`,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: 700,
      },
    });
    expect(res.body.pendingPlatformApproval).toBeUndefined();
    await advance(p, 5);
    expect((await tx(p, res.body.id)).status).toBe('COMPLETED');
    expect(await balanceOf(p, accounts.USD!)).toBe(700);
  });
});
