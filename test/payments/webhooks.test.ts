import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { iso } from '../../src/common/time';
import { api, newPlatform } from '../support/api';
import { ADDRESS, businessBody, individualBody, postForm } from '../support/customers';
import { consume, deliveryOf, fakeEndpoint, hookUrl, verifySignature } from '../support/webhooks';
import {
  advance,
  createQuote,
  customerWithAccounts,
  events,
  eventsAbout,
  execute,
  expectLedgerInvariant,
  externalAccount,
  fund,
  tx,
} from '../support/payments';

const T0 = Date.parse('2032-06-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const byType = async (platformId: string, type: string) => (await events(platformId)).filter((e) => e.type === type);

describe('payment webhooks', () => {
  it('every transaction state change is an event whose data is the transaction at that state', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 50_000);
    const ext = await externalAccount(p, customer.id, 'EUR', '005');
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    await execute(p, quote.id);
    const processing = await tx(p, quote.transactionId);
    await advance(p, 5);
    const completed = await tx(p, quote.transactionId);
    await advance(p, 60);
    const failed = await tx(p, quote.transactionId);
    const list = await eventsAbout(p.id, quote.transactionId);
    expect(list.map((e) => [e.type, e.data])).toEqual([
      ['OUTGOING_PAYMENT.PROCESSING', processing],
      ['OUTGOING_PAYMENT.COMPLETED', completed],
      ['OUTGOING_PAYMENT.FAILED', failed],
      // The refund as it started (reference OutgoingPaymentWebhook), then as it ended.
      [
        'OUTGOING_PAYMENT.REFUND_PENDING',
        {
          ...failed,
          refund: {
            reference: failed.refund.reference,
            initiatedAt: failed.refund.initiatedAt,
            status: 'PENDING',
            reason: 'TRANSACTION_FAILED',
          },
        },
      ],
      ['OUTGOING_PAYMENT.REFUND_COMPLETED', failed],
    ]);
    expect(list.map((e) => e.timestamp)).toEqual([T0, T0 + 5_000, T0 + 65_000, T0 + 65_000, T0 + 65_000]);
    expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'OFFRAMP_FAILED', refund: { status: 'COMPLETED' } });
  });

  it('INTERNAL_ACCOUNT.STATUS_UPDATED: deleting a customer closes its accounts, each announced once with the account as it is', async () => {
    const url = hookUrl();
    const hook = fakeEndpoint(url, () => 200);
    const p = await newPlatform({ webhookEndpoint: url });
    const { customer, accounts } = await customerWithAccounts(p);
    const before = await api('GET', `/customers/internal-accounts?customerId=${customer.id}`, { auth: p.auth });
    expect(before.status).toBe(200);
    vi.setSystemTime(T0 + 1_000);
    expect((await api('DELETE', `/customers/${customer.id}`, { auth: p.auth })).status).toBe(200);
    // A second deletion (410) closes nothing more.
    await api('DELETE', `/customers/${customer.id}`, { auth: p.auth });
    const updates = await byType(p.id, 'INTERNAL_ACCOUNT.STATUS_UPDATED');
    expect(updates.map((e) => (e.data as any).id).sort()).toEqual(before.body.data.map((a: any) => a.id).sort());
    const usd = before.body.data.find((a: any) => a.id === accounts.USD);
    const event = updates.find((e) => (e.data as any).id === accounts.USD)!;
    expect(event.data).toEqual({ ...usd, status: 'CLOSED', updatedAt: iso(T0 + 1_000) });
    await consume({ type: 'webhook.deliver', eventId: event.id });
    await vi.waitFor(async () => expect((await deliveryOf(event.id)).status).toBe('DELIVERED'));
    const sent = JSON.parse(hook.calls.find((c) => c.body.includes(event.id))!.body);
    expect(sent).toEqual({ id: event.id, type: 'INTERNAL_ACCOUNT.STATUS_UPDATED', timestamp: iso(T0 + 1_000), data: event.data });
  });

  it('INTERNAL_ACCOUNT.BALANCE_UPDATED carries the balance after each movement, also under concurrency', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await Promise.all([1_000, 2_000, 3_000, 4_000].map((amount) => fund(p, accounts.USD!, amount)));
    const ext = await externalAccount(p, customer.id, 'USD', '004');
    await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'b1' },
      body: { source: { accountId: accounts.USD }, destination: { accountId: ext }, amount: 2_500 },
    });
    await advance(p, 5); // 004: rejected, refunded
    const balances = (await byType(p.id, 'INTERNAL_ACCOUNT.BALANCE_UPDATED')).map((e) => e.data as any);
    expect(balances.map((d) => d.id)).toEqual(Array(6).fill(accounts.USD));
    const amounts = balances.map((d) => d.balance.amount);
    // The four concurrent deposits commit one after another: each reports the balance right after it.
    const sorted = amounts.slice(0, 4).sort((a, b) => a - b);
    expect(sorted.map((x, i) => x - (sorted[i - 1] ?? 0)).sort((a, b) => a - b)).toEqual([1_000, 2_000, 3_000, 4_000]);
    expect(sorted[3]).toBe(10_000);
    expect(amounts.slice(4)).toEqual([7_500, 10_000]);
    expect(balances[5]).toMatchObject({
      customerId: customer.id,
      type: 'INTERNAL_FIAT',
      status: 'ACTIVE',
      balance: { currency: { code: 'USD' } },
      updatedAt: iso(T0 + 5_000),
    });
    await expectLedgerInvariant(p.id);
  });

  it('is signed (verified with webhookPublicKey from GET /config), retried after a failing endpoint, and delivered once', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, (n) => (n === 1 ? 500 : 200));
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 5_000);
    const ext = await externalAccount(p, customer.id, 'USD', '321');
    const out = await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'w1' },
      body: { source: { accountId: accounts.USD }, destination: { accountId: ext }, amount: 1_000 },
    });
    const [completed] = (await eventsAbout(p.id, out.body.id)).filter((e) => e.type === 'OUTGOING_PAYMENT.COMPLETED');
    const deliver = { type: 'webhook.deliver', eventId: completed!.id };

    // The real queue may already be delivering it; either way exactly one attempt happens now.
    await consume(deliver);
    await vi.waitFor(async () => expect((await deliveryOf(completed!.id)).lastResponseStatus).toBe(500));
    const calls = () => hook.calls.filter((c) => JSON.parse(c.body).id === completed!.id);
    expect(calls()).toHaveLength(1);
    const call = calls()[0]!;
    const envelope = JSON.parse(call.body);
    expect(envelope).toEqual({ id: completed!.id, type: 'OUTGOING_PAYMENT.COMPLETED', timestamp: iso(T0), data: await tx(p, out.body.id) });
    const pem = (await api('GET', '/config', { auth: p.auth })).body.webhookPublicKey;
    expect(await verifySignature(pem, call.body, call.headers.get('X-Service-Signature')!)).toBe(true);
    expect(await verifySignature(pem, call.body.replace('COMPLETED', 'FAILED'), call.headers.get('X-Service-Signature')!)).toBe(false);
    expect(await deliveryOf(completed!.id)).toMatchObject({ status: 'PENDING', attempts: 1, nextAttemptAt: T0 + 30_000 });

    // The retry is due 30 s later; a redelivered message before then sends nothing.
    vi.setSystemTime(T0 + 29_000);
    await consume(deliver);
    expect(calls()).toHaveLength(1);
    vi.setSystemTime(T0 + 30_000);
    await consume(deliver, deliver);
    await vi.waitFor(async () => expect((await deliveryOf(completed!.id)).status).toBe('DELIVERED'));
    expect(calls()).toHaveLength(2);
    expect(calls()[1]!.body).toBe(call.body);
    // Delivered: more redeliveries change nothing.
    vi.setSystemTime(T0 + 3_600_000);
    await consume(deliver, deliver);
    expect(calls()).toHaveLength(2);
    expect(await deliveryOf(completed!.id)).toMatchObject({ status: 'DELIVERED', attempts: 2, lastResponseStatus: 200 });
    hook.restore();
  });
});

describe('customer webhooks', () => {
  it('POST /verifications announces the verification and the KYC/KYB result', async () => {
    // A regulated platform: it verifies its individuals with POST /verifications (others through the KYC link).
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const person = (await api('POST', '/customers', { auth: p.auth, body: individualBody() })).body;
    const v = (await api('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } })).body;
    expect((await byType(p.id, 'VERIFICATION.APPROVED')).map((e) => e.data)).toEqual([v]);
    const approved = await byType(p.id, 'CUSTOMER.KYC_APPROVED');
    expect(approved.map((e) => e.data)).toEqual([(await api('GET', `/customers/${person.id}`, { auth: p.auth })).body]);

    for (const [suffix, kyb, verification] of [
      ['001', 'PENDING', 'IN_PROGRESS'],
      ['002', 'REJECTED', 'REJECTED'],
      ['003', 'APPROVED', 'APPROVED'],
    ]) {
      const biz = (await api('POST', '/customers', { auth: p.auth, body: businessBody({}, { registrationNumber: `55230${suffix}` }) }))
        .body;
      await api('POST', '/verifications', { auth: p.auth, body: { customerId: biz.id } });
      const about = (await events(p.id)).filter((e) => (e.data as any).id === biz.id || (e.data as any).customerId === biz.id);
      expect(about.map((e) => e.type)).toEqual([`VERIFICATION.${verification}`, `CUSTOMER.KYB_${kyb}`]);
      expect((about[1]!.data as any).kybStatus).toBe(kyb);
    }
    // Missing information: only the verification, asking to resolve errors; a repeat of the same status says nothing new.
    const bare = (
      await api('POST', '/customers', { auth: p.auth, body: { customerType: 'INDIVIDUAL', platformCustomerId: `bare-${Date.now()}` } })
    ).body;
    await api('POST', '/verifications', { auth: p.auth, body: { customerId: bare.id } });
    const bareEvents = (await events(p.id)).filter((e) => (e.data as any).customerId === bare.id || (e.data as any).id === bare.id);
    expect(bareEvents.map((e) => e.type)).toEqual(['VERIFICATION.RESOLVE_ERRORS']);
    await api('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } });
    expect(await byType(p.id, 'CUSTOMER.KYC_APPROVED')).toHaveLength(1);
  });

  it('a regulated platform setting kycStatus announces it once', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const c = (await api('POST', '/customers', { auth: p.auth, body: individualBody() })).body;
    const patch = (body: Record<string, unknown>) =>
      api('PATCH', `/customers/${c.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', ...body } });
    const approved = await patch({ kycStatus: 'APPROVED' });
    expect(approved.status).toBe(200);
    await patch({ kycStatus: 'APPROVED', fullName: 'Jane Q. Smith' });
    await patch({ kycStatus: 'REJECTED' });
    await patch({ address: ADDRESS });
    const types = (await events(p.id)).filter((e) => (e.data as any).id === c.id).map((e) => e.type);
    expect(types).toEqual(['CUSTOMER.KYC_APPROVED', 'CUSTOMER.KYC_REJECTED']);
    expect((await byType(p.id, 'CUSTOMER.KYC_APPROVED'))[0]!.data).toEqual(approved.body);
  });

  it('bulk import completion is announced once with the job', async () => {
    const p = await newPlatform();
    const header = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country';
    const row = (id: string) => `$${id}@${p.umaDomain},${id},INDIVIDUAL,Ann Lee,1990-01-01,1 Main St,Springfield,IL,62701,US`;
    const csv = [header, row('bulk-a'), row('bulk-b'), `$bad@${p.umaDomain},bulk-c,INDIVIDUAL,,,,,,,`].join('\n');
    const upload = await postForm('/customers/bulk/csv', p.auth, [
      { name: 'file', filename: 'c.csv', contentType: 'text/csv', data: new TextEncoder().encode(csv) },
    ]);
    expect(upload.status, JSON.stringify(upload.body)).toBe(202);
    const jobId = upload.body.jobId;
    await consume({ type: 'bulk.import', jobId, offset: 0 }, { type: 'bulk.import', jobId, offset: 0 });
    await vi.waitFor(async () =>
      expect((await api('GET', `/customers/bulk/jobs/${jobId}`, { auth: p.auth })).body.status).toBe('COMPLETED'),
    );
    const job = (await api('GET', `/customers/bulk/jobs/${jobId}`, { auth: p.auth })).body;
    expect(job.progress).toEqual({ total: 3, processed: 3, successful: 2, failed: 1 });
    const done = await byType(p.id, 'BULK_UPLOAD.COMPLETED');
    expect(done.map((e) => e.data)).toEqual([job]);

    const bad = await postForm('/customers/bulk/csv', p.auth, [
      { name: 'file', filename: 'x.csv', contentType: 'text/csv', data: new TextEncoder().encode('nothing,useful\n') },
    ]);
    await consume({ type: 'bulk.import', jobId: bad.body.jobId, offset: 0 }, { type: 'bulk.import', jobId: bad.body.jobId, offset: 0 });
    await vi.waitFor(async () =>
      expect((await api('GET', `/customers/bulk/jobs/${bad.body.jobId}`, { auth: p.auth })).body.status).toBe('FAILED'),
    );
    const failedJob = (await api('GET', `/customers/bulk/jobs/${bad.body.jobId}`, { auth: p.auth })).body;
    expect((await byType(p.id, 'BULK_UPLOAD.FAILED')).map((e) => e.data)).toEqual([failedJob]);
  });
});
