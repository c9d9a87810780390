import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { database } from '../../src/db/client';
import { idempotencyKeys } from '../../src/db/schema';
import { requestFingerprint } from '../../src/http/idempotency';
import { api, BASE, expectError, newPlatform, type ApiResult, type TestPlatform } from '../support/api';
import { individualBody } from '../support/customers';
import { newAgent, policy } from '../support/agents';
import { bankInfo, createQuote, customerWithAccounts, externalAccount, fund } from '../support/payments';
import { call, newWallet, otpSession, signed } from '../support/wallets';
import { sandboxOidc } from '../wallet/oidc-fixtures';

// Clients generated from the service's OpenAPI retry a 409 twice unless it carries `x-should-retry: false`.
// A conflict no retry can change says so; the in-flight Idempotency-Key 409 does not (it asks for a retry).
/** A final 409: `CONFLICT` with the finer case in `details.reason`, or a 409 code of its own. */
function expectFinal(res: ApiResult, code: string, reason?: string) {
  expectError(res, 409, code, reason);
  expect(res.headers.get('x-should-retry'), code).toBe('false');
}

async function setup() {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  const bank = await externalAccount(p, customer.id, 'USD', '001');
  const eur = await externalAccount(p, customer.id, 'EUR', '123');
  return { p, customer, usd: accounts.USD!, bank, eur };
}

const quoteOf = (p: TestPlatform, from: string, to: string) =>
  createQuote(p, {
    source: { sourceType: 'ACCOUNT', accountId: from },
    destination: { destinationType: 'ACCOUNT', accountId: to },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
const execute = (p: TestPlatform, quoteId: string, headers: Record<string, string> = {}) =>
  api('POST', `/quotes/${quoteId}/execute`, { auth: p.auth, headers });

describe('final conflicts carry x-should-retry: false', () => {
  afterEach(() => vi.useRealTimers());

  it('a duplicate platformCustomerId', async () => {
    const p = await newPlatform();
    const body = individualBody({ platformCustomerId: 'final-dup' });
    expect((await api('POST', '/customers', { auth: p.auth, body })).status).toBe(201);
    expectFinal(await api('POST', '/customers', { auth: p.auth, body: individualBody({ platformCustomerId: 'final-dup' }) }), 'CONFLICT');
  });

  it('executing an executed quote, with or without a key, and its replay under the key', async () => {
    const { p, usd, eur } = await setup();
    const quote = await quoteOf(p, usd, eur);
    expect((await execute(p, quote.id)).status).toBe(200);
    expectFinal(await execute(p, quote.id), 'CONFLICT', 'QUOTE_NOT_PENDING');
    expectFinal(await execute(p, quote.id, { 'Idempotency-Key': 'again' }), 'CONFLICT', 'QUOTE_NOT_PENDING');
    const replay = await execute(p, quote.id, { 'Idempotency-Key': 'again' });
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expectFinal(replay, 'CONFLICT', 'QUOTE_NOT_PENDING');
  });

  it('approving or rejecting a transaction that is already decided', async () => {
    const { p, usd, bank } = await setup();
    const done = await api('POST', '/transfer-out', {
      auth: p.auth,
      body: { source: { accountId: usd }, destination: { accountId: bank }, amount: 100 },
    });
    expect(done.status).toBe(201);
    for (const decision of ['approve', 'reject']) {
      expectFinal(
        await api('POST', `/transactions/${done.body.id}/${decision}`, { auth: p.auth }),
        'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
      );
    }
  });

  it('approving or rejecting an agent action that is already decided', async () => {
    const a = await newAgent({ policy: policy() });
    const usd = a.accounts.find((x) => x.type !== 'EMBEDDED_WALLET' && x.balance.currency.code === 'USD').id;
    await fund(a.p, usd, 10_000);
    const bank = await externalAccount(a.p, a.customerId, 'USD', '789');
    const action = await api('POST', '/agents/me/transfer-out', {
      auth: a.bearer,
      body: { source: { accountId: usd }, destination: { accountId: bank }, amount: 100 },
    });
    expect(action.body.status, JSON.stringify(action.body)).toBe('APPROVED');
    for (const decision of ['approve', 'reject']) {
      expectFinal(await api('POST', `/agents/${a.agentId}/actions/${action.body.id}/${decision}`, { auth: a.p.auth }), 'CONFLICT');
    }
  });

  it('a umaDomain another platform has', async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    expectFinal(await api('PATCH', '/config', { auth: b.auth, body: { umaDomain: a.umaDomain } }), 'CONFLICT', 'UMA_DOMAIN_TAKEN');
  });

  it('a duplicate external account', async () => {
    const { p, customer } = await setup();
    const body = { customerId: customer.id, currency: 'USD', accountInfo: bankInfo('USD', '002') };
    expect((await api('POST', '/customers/external-accounts', { auth: p.auth, body })).status).toBe(201);
    expectFinal(await api('POST', '/customers/external-accounts', { auth: p.auth, body }), 'CONFLICT');
  });

  it('an expired quote, and deleting a customer whose accounts hold funds', async () => {
    const { p, customer, usd, eur } = await setup();
    const quote = await quoteOf(p, usd, eur);
    vi.setSystemTime(Date.parse(quote.expiresAt) + 1_000);
    expectFinal(await execute(p, quote.id), 'CONFLICT', 'QUOTE_EXPIRED');
    expectFinal(await api('DELETE', `/customers/${customer.id}`, { auth: p.auth }), 'CONFLICT');
  });

  it('an OAUTH credential whose provider identity the account already has', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc({ email: 'ada@gmail.test' }) };
    expect((await signed(w, 'POST', '/auth/credentials', body, s.key)).status).toBe(201);
    expectFinal(
      await call(w.mode, 'POST', '/auth/credentials', {
        auth: w.p.auth,
        body: { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc() },
      }),
      'CONFLICT',
    );
  });
});

describe('conflicts a retry can get past', () => {
  it('the in-flight Idempotency-Key 409 asks for a retry: Retry-After, no x-should-retry', async () => {
    const { p, usd, eur } = await setup();
    const quote = await quoteOf(p, usd, eur);
    const path = `${new URL(BASE).pathname}/quotes/${quote.id}/execute`;
    // The first request with this key is still running (its claim is held).
    await database(env.DB)
      .insert(idempotencyKeys)
      .values({
        platformId: p.id,
        scope: 'platform',
        key: 'running',
        fingerprint: requestFingerprint('POST', path, ''),
        state: 'IN_FLIGHT',
        claimToken: 'held',
        lockedUntil: Date.now() + 60_000,
        createdAt: Date.now(),
        expiresAt: Date.now() + 3_600_000,
      });
    const res = await execute(p, quote.id, { 'Idempotency-Key': 'running' });
    expectError(res, 409, 'CONFLICT', 'IDEMPOTENCY_REQUEST_IN_PROGRESS');
    expect(res.headers.get('Retry-After')).toBe('1');
    expect(res.headers.get('x-should-retry')).toBeNull();
  });
});

describe('/openapi.json', () => {
  it('documents x-should-retry on every 409', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    let conflicts = 0;
    for (const [path, ops] of Object.entries<Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>>(
      doc.paths,
    )) {
      for (const [method, op] of Object.entries(ops)) {
        const conflict = op.responses?.['409'];
        if (!conflict) continue;
        conflicts++;
        expect(conflict.headers?.['x-should-retry'], `${method} ${path}`).toBeDefined();
      }
    }
    expect(conflicts).toBeGreaterThan(10);
  });
});
