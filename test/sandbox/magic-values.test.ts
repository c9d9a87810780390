// GET /sandbox/magic-values: its shape, each listed trigger doing what the document says, 404 in production, and the tables of docs/sandbox.md rendered from it.
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settings, type Env } from '../../src/env';
import { magicValues, magicValueTables } from '../../src/sandbox/magic-values';
import { SandboxMagicValues, type MagicValues, type PaymentOutcome } from '../../src/sandbox/magic-values-schema';
import page from '../../docs/sandbox.md?raw';
import { api, expectError, newPlatform, productionApi, type TestPlatform } from '../support/api';
import { ADDRESS, businessBody, createCustomer, individualBody } from '../support/customers';
import { consume, fakeEndpoint, hookUrl } from '../support/webhooks';
import {
  advance,
  balanceOf,
  bankInfo,
  createQuote,
  customerWithAccounts,
  eventsAbout,
  execute,
  externalAccount,
  fund,
  transfer,
  tx,
} from '../support/payments';
import { SoftPasskey } from '../support/passkey';
import { newWalletClient } from '../support/wallet-client';
import { call, challengeOf, emailCredential, newWallet, otpSession, signed } from '../support/wallets';

const T0 = Date.parse('2032-06-01T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

async function document(p: TestPlatform): Promise<MagicValues> {
  const res = await api('GET', '/sandbox/magic-values', { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The status a payment shows when its request answers, as the outcome says. */
const firstStatus = (o: PaymentOutcome) => (o.failsAtOnce ? 'FAILED' : o.steps[0]?.afterMs === 0 ? o.steps[0].status : o.inFlight);

/**
 * Walks a transaction along its outcome on the sandbox clock: each delayed step not yet applied a second
 * before it is due, applied when due; returns the final transaction.
 */
async function follow(p: TestPlatform, id: string, o: PaymentOutcome) {
  expect((await tx(p, id)).status, `${o.scenario} at once`).toBe(firstStatus(o));
  let previous = firstStatus(o);
  for (const step of o.steps.filter((s) => s.afterMs > 0)) {
    await advance(p, step.afterMs / 1000 - 1);
    expect((await tx(p, id)).status, `${o.scenario}: 1 s before ${step.status}`).toBe(previous);
    await advance(p, 1);
    expect((await tx(p, id)).status, `${o.scenario}: ${step.status} after ${step.afterMs} ms`).toBe(step.status);
    previous = step.status;
  }
  const final = await tx(p, id);
  const last = o.steps.at(-1);
  const reason = o.failsAtOnce ?? last?.failureReason;
  if (reason) expect(final.failureReason, o.scenario).toBe(reason);
  if (last?.refund) expect(final.refund, o.scenario).toMatchObject(last.refund);
  return final;
}

describe('GET /sandbox/magic-values', () => {
  it('answers the document its schema declares, with every kind of trigger, read from the live settings', async () => {
    const p = await newPlatform();
    const doc = await document(p);
    expect(SandboxMagicValues.safeParse(doc).success).toBe(true);
    expect(doc).toEqual(JSON.parse(JSON.stringify(magicValues(settings(env as unknown as Env)))));
    expect(doc.accountSuffixes.values.map((v) => v.suffix)).toEqual(['002', '003', '004', '005', '006', '007']);
    expect(doc.accountSuffixes.values.find((v) => v.suffix === '005')!.transferOut).toMatchObject({
      scenario: 'TRANSFER_OUT_FAILED_LATER',
      inFlight: 'PROCESSING',
      steps: [
        {
          afterMs: 30_000,
          status: 'FAILED',
          failureReason: 'OFFRAMP_FAILED',
          refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' },
        },
      ],
    });
    expect(doc.beneficiaryVerification.values).toContainEqual({ suffix: '105', error: { status: 400, code: 'INVALID_BANK_ACCOUNT' } });
    const config = await api('GET', '/config', { auth: p.auth });
    expect(doc.umaReceivers.domain).toBe(config.body.sandboxUmaDomain);
    expect(doc.umaReceivers.receivers.map((r) => r.address)).toContain(`$success.eur@${config.body.sandboxUmaDomain}`);
    expect(doc.verifications.map((v) => v.kind)).toEqual(['KYB', 'KYC', 'KYC']);
    expect(doc.wallet.otp.value).toBe('000000');
    expect(doc.wallet.passkey.rpId).toBe('localhost');
    expect(doc.wallet.oauth.issuers).toContain('https://accounts.google.com');
    expect(doc.timings.map((t) => t.name)).toContain('quoteTtl');
  });

  it('is listed in /openapi.json with its schema', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.paths['/sandbox/magic-values'].get.operationId).toBe('getSandboxMagicValues');
    expect(res.body.components.schemas.SandboxMagicValues).toBeDefined();
  });

  it('is 404 in production, and 401 without credentials', async () => {
    const p = await newPlatform();
    expectError(await productionApi('GET', '/sandbox/magic-values', { auth: p.auth }), 404);
    expectError(await api('GET', '/sandbox/magic-values'), 401);
  });
});

describe('each trigger does what the document says', () => {
  it('transfer out and transfer in: every suffix, on time (not before), with its reason and its money', async () => {
    const p = await newPlatform();
    const doc = await document(p);
    const { customer, accounts } = await customerWithAccounts(p);
    const usd = accounts.USD!;
    await fund(p, usd, 1_000_000);
    for (const row of [...doc.accountSuffixes.values, { suffix: '123', ...doc.accountSuffixes.otherwise }]) {
      const ext = await externalAccount(p, customer.id, 'USD', row.suffix);
      const before = await balanceOf(p, usd);
      const out = await transfer(p, 'out', usd, ext, 1_000);
      expect(out.status, JSON.stringify(out.body)).toBe(201);
      expect(out.body.status, `${row.suffix} out`).toBe(firstStatus(row.transferOut));
      await follow(p, out.body.id, row.transferOut);
      const moved = row.transferOut.failsAtOnce || row.transferOut.steps.at(-1)?.refund?.status === 'COMPLETED' ? 0 : 1_000;
      expect(await balanceOf(p, usd), `${row.suffix} out: balance`).toBe(before - moved);

      const inBefore = await balanceOf(p, usd);
      const inbound = await transfer(p, 'in', ext, usd, 700);
      expect(inbound.status, JSON.stringify(inbound.body)).toBe(201);
      expect(inbound.body.status, `${row.suffix} in`).toBe(firstStatus(row.transferIn));
      const final = await follow(p, inbound.body.id, row.transferIn);
      expect(await balanceOf(p, usd), `${row.suffix} in: balance`).toBe(inBefore + (final.status === 'COMPLETED' ? 700 : 0));
    }
  });

  it('quotes to an external account (every suffix) and to each UMA receiver end as their outcomes say', async () => {
    const p = await newPlatform();
    const doc = await document(p);
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 1_000_000);
    const runs: [string, Record<string, unknown>, PaymentOutcome][] = [];
    for (const row of [...doc.accountSuffixes.values, { suffix: '123', ...doc.accountSuffixes.otherwise }]) {
      const ext = await externalAccount(p, customer.id, 'EUR', row.suffix);
      runs.push([row.suffix, { destinationType: 'ACCOUNT', accountId: ext }, row.quote]);
    }
    for (const r of doc.umaReceivers.receivers)
      runs.push([r.address, { destinationType: 'UMA_ADDRESS', umaAddress: r.address }, r.outcome]);
    for (const [name, destination, outcome] of runs) {
      const quote = await createQuote(p, {
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination,
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      });
      const res = await execute(p, quote.id);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      await follow(p, quote.transactionId, outcome);
    }
  });

  it('beneficiary verification: each suffix gives its status, 105 refuses the account', async () => {
    const p = await newPlatform();
    const doc = await document(p);
    const { customer } = await customerWithAccounts(p);
    const create = (suffix: string) =>
      api('POST', '/customers/external-accounts', {
        auth: p.auth,
        body: { customerId: customer.id, currency: 'USD', accountInfo: bankInfo('USD', suffix) },
      });
    for (const v of doc.beneficiaryVerification.values) {
      const res = await create(v.suffix);
      if ('error' in v) expectError(res, v.error.status, v.error.code);
      else expect(res.body.beneficiaryVerificationStatus, v.suffix).toBe(v.status);
    }
    expect((await create('199')).body.beneficiaryVerificationStatus).toBe(doc.beneficiaryVerification.otherwise);
  });

  it('KYB, beneficial-owner KYC and individual KYC reach the statuses their values give', async () => {
    // A regulated platform: its individuals are verified by POST /verifications (others' by the hosted KYC link).
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const doc = await document(p);
    const [kyb, owner, individual] = doc.verifications;
    for (const { suffix, status } of [...kyb!.values, { suffix: '123', status: kyb!.otherwise }]) {
      const b = await createCustomer(p, businessBody({}, { registrationNumber: `REG-${suffix}` }));
      expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } })).status).toBe(200);
      expect((await api('GET', `/customers/${b.id}`, { auth: p.auth })).body.kybStatus, suffix).toBe(status);
    }
    const b = await createCustomer(p, businessBody());
    for (const { suffix, status } of [...owner!.values, { suffix: '123', status: owner!.otherwise }]) {
      const res = await api('POST', '/beneficial-owners', {
        auth: p.auth,
        body: {
          customerId: b.id,
          roles: ['UBO'],
          ownershipPercentage: 30,
          personalInfo: {
            firstName: 'Jane',
            lastName: `Doe${suffix}`,
            birthDate: '1978-06-15',
            nationality: 'US',
            address: ADDRESS,
            idType: 'SSN',
            identifier: '123-45-6789',
          },
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.kycStatus, suffix).toBe(status);
    }
    const person = await createCustomer(p);
    expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } })).status).toBe(200);
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe(individual!.otherwise);
  });

  it('the UMA sender asking for receiver information: its approval request carries the listed fields', async () => {
    const url = hookUrl();
    const hook = fakeEndpoint(url, () => 200);
    const p = await newPlatform({ webhookEndpoint: url });
    const doc = await document(p);
    await customerWithAccounts(p, individualBody({ umaAddress: `$ann@${p.umaDomain}` }));
    const res = await api('POST', '/sandbox/uma/receive', {
      auth: p.auth,
      body: {
        senderUmaAddress: `$${doc.umaReceivers.infoRequestingSender.localPart}@sender.example`,
        receiverUmaAddress: `$ann@${p.umaDomain}`,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: 1_000,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [pending] = await eventsAbout(p.id, res.body.id);
    await consume({ type: 'webhook.deliver', eventId: pending!.id });
    await vi.waitFor(() => expect(hook.calls).toHaveLength(1));
    expect(JSON.parse(hook.calls[0]!.body).data.requestedReceiverCustomerInfoFields).toEqual(
      doc.umaReceivers.infoRequestingSender.requestedFields,
    );
  });

  it('wallet: the OTP code opens a session, the signature authorises a signed retry, the passkey signature verifies; wrong values get the listed refusals', async () => {
    const w = await newWallet();
    const doc = await document(w.p);
    const credential = await emailCredential(w);
    const wrongOtp = await call(w.mode, 'POST', `/auth/credentials/${credential.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: '999999', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(wrongOtp, 401, 'UNAUTHORIZED');
    expect(JSON.stringify(wrongOtp.body)).toContain(doc.wallet.otp.refusal);
    const s = await otpSession(w, { otp: doc.wallet.otp.value });
    expect(s.session.id).toMatch(/^Session:/);

    const path = `/internal-accounts/${w.accountId}`;
    const body = { privateEnabled: true };
    const wrong = await call(w.mode, 'PATCH', path, {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': 'not-the-value', 'Request-Id': (await challengeOf(w, 'PATCH', path, body)).requestId },
    });
    expectError(wrong, 401, 'UNAUTHORIZED');
    expect(JSON.stringify(wrong.body)).toContain(doc.wallet.walletSignature.refusal);
    const ok = await call(w.mode, 'PATCH', path, {
      auth: w.p.auth,
      body,
      headers: {
        'Service-Wallet-Signature': doc.wallet.walletSignature.value,
        'Request-Id': (await challengeOf(w, 'PATCH', path, body)).requestId,
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    const passkey = new SoftPasskey();
    const added = await signed(
      w,
      'POST',
      '/auth/credentials',
      { type: 'PASSKEY', accountId: w.accountId, nickname: 'key', challenge: 'cmVn', attestation: passkey.register('cmVn') },
      s.key,
    );
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const verify = async (signature: string) => {
      const ch = await call(w.mode, 'POST', `/auth/credentials/${added.body.id}/challenge`, {
        auth: w.p.auth,
        body: { clientPublicKey: newWalletClient().clientPublicKey },
      });
      return call(w.mode, 'POST', `/auth/credentials/${added.body.id}/verify`, {
        auth: w.p.auth,
        body: { type: 'PASSKEY', assertion: { ...passkey.assert(ch.body.challenge), signature } },
        headers: { 'Request-Id': ch.body.requestId },
      });
    };
    const refused = await verify('bm90LXRoZS12YWx1ZQ');
    expectError(refused, 401, 'UNAUTHORIZED');
    expect(JSON.stringify(refused.body)).toContain(doc.wallet.passkey.refusal);
    expect((await verify(doc.wallet.passkey.value)).status).toBe(200);
  });
});

describe('docs/sandbox.md magic-value tables', () => {
  it('are the tables the document renders (npm run magic-values rewrites them)', () => {
    const tables = magicValueTables(magicValues(settings({ SERVICE_ENV: 'sandbox' } as Env)));
    expect(Object.keys(tables)).toEqual(['areas', 'wallet', 'outcomes', 'uma', 'timings']);
    for (const [name, table] of Object.entries(tables)) {
      expect(page, name).toContain(
        `<!-- magic values: ${name} (npm run magic-values) -->\n${table}\n<!-- end of magic values: ${name} -->`,
      );
    }
  });
});
