import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { homesOf } from '../../src/db/homes';
import { newPlatform, OPERATOR } from '../support/api';
import { individualBody } from '../support/customers';
import { balanceOf, customerWithAccounts, externalAccount, fund, idemKey } from '../support/payments';
import { emailCredential, newWallet, otpSession } from '../support/wallets';
import { newWalletClient, stamp } from '../support/wallet-client';
import { measured } from './counting';

/** Rows written by a transfer-out's money batch (the one-writer database's cost per payment): the budget. */
// A platform's second transfer-out writes 45 (its first 49: it also creates the platform's list counters). First
// transfers wrote 97 before migration 0031 (the index diet), 85 before 0032 (a movement one ledger row, not two
// entries of four), 71 before 0033 (the status history a column of the transaction, not two rows of two), 67 before
// 0034 (the deliveries' list and replay share one index set: three entries fewer per delivery), 58 before 0035 (an
// event carried by its delivery, not a row and a key entry of its own), 52 before 0036 (the deliveries' total the
// sum of their status counters, not a counter of its own). Each row a write inserts costs its table's row and one
// entry per index (the primary key's too), and each counter a trigger keeps.
const TRANSFER_OUT_BATCH_ROWS_WRITTEN = 45;

// Every D1 round trip costs a millisecond or more; the benchmarked requests keep to a budget.
describe('round trips per request (the requests of npm run bench)', () => {
  it('GET /config: one query (authentication brings the platform)', async () => {
    const p = await newPlatform();
    const res = await measured('GET', '/config', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.cost).toMatchObject({ d1: 1, account: [], queue: 0 });
  });

  it('GET /uma-providers, first page and by cursor: authentication, the page and its total in one batch', async () => {
    const p = await newPlatform();
    const first = await measured('GET', '/uma-providers?limit=1', { auth: p.auth });
    expect(first.status).toBe(200);
    expect(first.cost).toMatchObject({ d1: 1, statements: [4] });
    const next = await measured('GET', `/uma-providers?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, { auth: p.auth });
    expect(next.status).toBe(200);
    expect(next.body.data[0].domain).not.toBe(first.body.data[0].domain);
    expect(next.body.totalCount).toBe(first.body.totalCount);
    expect(next.cost).toMatchObject({ d1: 1, statements: [4] });
  });

  it('GET /tokens/{id}, /customers/{id} and a page of /customers with its total and owners: one round trip each', async () => {
    const p = await newPlatform();
    const customer = await measured('POST', '/customers', { auth: p.auth, body: individualBody() });
    expect(customer.status).toBe(201);
    const tokens = await measured('GET', '/tokens', { auth: p.auth });
    for (const path of [`/tokens/${tokens.body.data[0].id}`, `/customers/${customer.body.id}`, '/customers?limit=1']) {
      const res = await measured('GET', path, { auth: p.auth });
      expect(res.status, path).toBe(200);
      expect(res.cost, path).toMatchObject({ d1: 1, account: [], queue: 0 });
    }
  });

  it('a read refused by authentication reads nothing and answers 401 before a bad cursor', async () => {
    const res = await measured('GET', '/uma-providers?cursor=not-a-cursor', { auth: `Basic ${btoa('nobody:wrong')}` });
    expect(res.status).toBe(401);
    // The lookup, then the forward of the home the credentials name (for a platform moved away): none here.
    expect(res.cost.d1).toBe(2);
  });

  it('POST /customers: authentication and one batch', async () => {
    const p = await newPlatform();
    const res = await measured('POST', '/customers', { auth: p.auth, body: individualBody() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.cost.d1).toBeLessThanOrEqual(3);
  });

  it('EMAIL_OTP verify: authentication carrying the wallet lookup and the session id reservation, one call to the account', async () => {
    const w = await newWallet();
    const credential = await emailCredential(w);
    const res = await measured('POST', `/auth/credentials/${credential.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // One batch: the token, its platform, the wallet of the credential, the reserved session id.
    expect(res.cost).toMatchObject({ d1: 1, statements: [4], account: ['verifyOtp'], queue: 0 });
  });

  it('a refused verify gives the reserved id back: one more round trip, on the refusal only', async () => {
    const w = await newWallet();
    const credential = await emailCredential(w);
    const res = await measured('POST', `/auth/credentials/${credential.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: '123456', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expect(res.status).toBe(401);
    expect(res.cost).toMatchObject({ d1: 2, account: ['verifyOtp'] });
  });

  it('wallet privacy: the challenge is two queries and one account call; the signed retry one more query for the update', async () => {
    const w = await newWallet();
    const { key } = await otpSession(w);
    const path = `/internal-accounts/${w.accountId}`;
    const challenge = await measured('PATCH', path, { auth: w.p.auth, body: { privateEnabled: true } });
    expect(challenge.status).toBe(202);
    expect(challenge.cost).toMatchObject({ d1: 2, account: ['issueChallenge'] });
    const retry = await measured('PATCH', path, {
      auth: w.p.auth,
      body: { privateEnabled: true },
      headers: { 'Service-Wallet-Signature': await stamp(key, challenge.body.payloadToSign), 'Request-Id': challenge.body.requestId },
    });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.cost).toMatchObject({ d1: 3, account: ['completeSignedRetry'] });
  });

  it('transfer-out and GET /transactions/{id}', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    const external = await externalAccount(p, customer.id, 'USD', '001');
    const body = { source: { accountId: accounts.USD }, destination: { accountId: external }, amount: 1_000 };
    // A platform's first payment also creates its list counters (a row and a key entry each): measure the next.
    const first = await measured('POST', '/transfer-out', { auth: p.auth, headers: { 'Idempotency-Key': idemKey() }, body });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const res = await measured('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': idemKey() },
      body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe('COMPLETED');
    // Authentication carrying the key's claim (claim, holder) and the reads (both accounts, the owner); the money
    // batch with the key's fenced record of the answer.
    expect(res.cost).toMatchObject({ d1: 2, statements: [7, expect.any(Number)], account: [], queue: 1 });
    // Rows the money batch writes (its rows, their index entries, the counters triggers keep): what bounds one
    // database's payments per second (one writer) and its size.
    const batch = res.cost.sql.slice(-res.cost.statements.at(-1)!);
    const written = batch.reduce((n, s) => n + (s.rowsWritten ?? NaN), 0);
    expect(written).toBeGreaterThan(0);
    expect(written, 'rows written by the transfer-out batch').toBeLessThanOrEqual(TRANSFER_OUT_BATCH_ROWS_WRITTEN);
    const read = await measured('GET', `/transactions/${res.body.id}`, { auth: p.auth });
    expect(read.status).toBe(200);
    expect(read.cost).toMatchObject({ d1: 1, queue: 0 });
    expect(read.body).toEqual(res.body);
  });

  it('transfer-out without an Idempotency-Key: no claim, the reads still ride on authentication', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    const external = await externalAccount(p, customer.id, 'USD', '001');
    const res = await measured('POST', '/transfer-out', {
      auth: p.auth,
      body: { source: { accountId: accounts.USD }, destination: { accountId: external }, amount: 1_000 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Authentication (token, platform) with both accounts and the owner; then the money batch.
    expect(res.cost).toMatchObject({ d1: 2, statements: [5, expect.any(Number)], account: [], queue: 1 });
    expect(await balanceOf(p, accounts.USD!)).toBe(99_000);
  });

  it('a transfer-out replayed by its Idempotency-Key: one round trip, the same body, no money moved', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    const external = await externalAccount(p, customer.id, 'USD', '001');
    const key = idemKey();
    const body = { source: { accountId: accounts.USD }, destination: { accountId: external }, amount: 1_000 };
    const first = await measured('POST', '/transfer-out', { auth: p.auth, headers: { 'Idempotency-Key': key }, body });
    expect(first.status).toBe(201);
    const again = await measured('POST', '/transfer-out', { auth: p.auth, headers: { 'Idempotency-Key': key }, body });
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.cost).toMatchObject({ d1: 1, queue: 0 });
    expect(await balanceOf(p, accounts.USD!)).toBe(99_000);
  });

  it('a refused transfer-out (unknown account) is stored under its key like before', async () => {
    const p = await newPlatform();
    const { accounts } = await customerWithAccounts(p);
    const key = idemKey();
    const body = {
      source: { accountId: accounts.USD },
      destination: { accountId: 'ExternalAccount:00000000-0000-7000-8000-000000000000' },
      amount: 1_000,
    };
    const first = await measured('POST', '/transfer-out', { auth: p.auth, headers: { 'Idempotency-Key': key }, body });
    expect(first.status).toBe(404);
    expect(first.cost.d1).toBe(2);
    const again = await measured('POST', '/transfer-out', { auth: p.auth, headers: { 'Idempotency-Key': key }, body });
    expect(again).toMatchObject({ status: 404, body: first.body });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('the operator load of UMA providers is one batch after the domain check', async () => {
    const res = await measured('POST', '/operator/uma-providers', {
      auth: OPERATOR,
      body: {
        providers: [
          { name: 'Round Trip Bank', domain: `rt-${Date.now()}.example`, supportedRegions: ['US'], supportedCurrencies: ['USD'] },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // In each data database (the directory of providers is every home's): the check, then the batch.
    expect(res.cost.d1).toBe(2 * homesOf(env).length);
  });
});
