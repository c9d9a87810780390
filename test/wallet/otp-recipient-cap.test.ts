import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform, type TestPlatform } from '../support/api';
import { accountsOf, createCustomer, individualBody, uniqueId } from '../support/customers';
import { SoftPasskey } from '../support/passkey';
import { newWalletClient, openSessionKey } from '../support/wallet-client';
import { advance, call, emailCredential, otpSession, signed, type Mode, type TestWallet } from '../support/wallets';

/** docs/security.md's number: OTP e-mails to one address per hour, across a platform's customers. */
const CAP = 5;

afterEach(() => vi.restoreAllMocks());

/** A wallet of a new customer of `p` whose e-mail is `email` (customers may share one). */
async function walletFor(p: TestPlatform, email: string, mode: Mode = 'sandbox'): Promise<TestWallet & { credentialId: string }> {
  const customer = await createCustomer(p, individualBody({ email }));
  const account = (await accountsOf(p, customer.id)).find((a) => a.type === 'EMBEDDED_WALLET');
  const w = { p, customerId: customer.id, accountId: account.id, email, mode };
  return { ...w, credentialId: (await emailCredential(w)).id };
}

const challenge = (w: TestWallet & { credentialId: string }) =>
  call(w.mode, 'POST', `/auth/credentials/${w.credentialId}/challenge`, { auth: w.p.auth });

async function outbox(p: TestPlatform, to: string): Promise<{ text: string }[]> {
  const res = await api('GET', `/sandbox/emails?to=${encodeURIComponent(to)}&limit=100`, { auth: p.auth });
  expect(res.status).toBe(200);
  return res.body.data;
}

const codeOf = (text: string) => text.match(/code is ([0-9A-Z]+)\./)![1]!;

describe('OTP e-mails per recipient address', () => {
  it(`eight customers sharing one address asking at once: ${CAP} e-mails, the rest 429 with Retry-After; the next hour reopens`, async () => {
    const p = await newPlatform();
    const address = `${uniqueId('shared')}@example.com`;
    // The same mailbox however it is written: the cap counts the lower-cased address.
    const wallets = await Promise.all(Array.from({ length: 8 }, (_, i) => walletFor(p, i % 2 ? address.toUpperCase() : address)));

    const answers = await Promise.all(wallets.map(challenge));
    const sent = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(sent).toHaveLength(CAP);
    expect(refused).toHaveLength(8 - CAP);
    for (const res of refused) {
      expectError(res, 429, 'RATE_LIMITED');
      const wait = Number(res.headers.get('Retry-After'));
      expect(wait).toBeGreaterThan(3600 - 60);
      expect(wait).toBeLessThanOrEqual(3600);
    }
    expect((await outbox(p, address)).length + (await outbox(p, address.toUpperCase())).length).toBe(CAP);

    // Another platform's customers with the same address have their own count.
    expect((await challenge(await walletFor(await newPlatform(), address))).status).toBe(200);

    // A refused account was not charged: once the hour has passed it gets a code at once, and so do the others.
    await advance(p, Number(refused[0]!.headers.get('Retry-After')));
    const again = await Promise.all(wallets.slice(0, CAP).map(challenge));
    expect(again.map((r) => r.status)).toEqual(Array(CAP).fill(200));
  });

  it('a refusal consumes nothing: the outstanding code still opens, and a slot refused by the account limit is given back', async () => {
    const p = await newPlatform();
    const address = `${uniqueId('shared')}@example.com`;
    const [a, ...others] = await Promise.all(Array.from({ length: CAP + 1 }, () => walletFor(p, address)));

    expect((await challenge(a!)).status).toBe(200);
    const code = codeOf((await outbox(p, address))[0]!.text);
    // Refused by the account's own re-issue limit (one per 30 s): that e-mail was never sent, so it does not count.
    expectError(await challenge(a!), 429, 'RATE_LIMITED');
    for (const w of others.slice(0, CAP - 1)) expect((await challenge(w)).status).toBe(200);
    expect(await outbox(p, address)).toHaveLength(CAP);

    // The address has had its CAP e-mails this hour: refused, for any account, with nothing sent or replaced.
    await advance(p, 31);
    expectError(await challenge(a!), 429, 'RATE_LIMITED');
    expectError(await challenge(others[CAP - 1]!), 429, 'RATE_LIMITED');
    expect(await outbox(p, address)).toHaveLength(CAP);
    const verify = await call(a!.mode, 'POST', `/auth/credentials/${a!.credentialId}/verify`, {
      auth: p.auth,
      body: { type: 'EMAIL_OTP', otp: code, clientPublicKey: newWalletClient().clientPublicKey },
    });
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
  });

  it('production: the cap holds for the e-mail provider too (no provider call when refused)', async () => {
    const mails: unknown[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url !== 'https://api.resend.com/emails') return new Response('not found', { status: 404 });
      mails.push(JSON.parse(String(init?.body)));
      return Response.json({ id: 'email-1' });
    });
    const p = await newPlatform();
    const address = `${uniqueId('shared')}@example.com`;
    const wallets = await Promise.all(Array.from({ length: CAP + 2 }, () => walletFor(p, address, 'production')));
    const answers = await Promise.all(wallets.map(challenge));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(CAP);
    for (const res of answers.filter((r) => r.status !== 200)) expectError(res, 429, 'RATE_LIMITED');
    expect(mails).toHaveLength(CAP);
  });

  it('POST /sandbox/reset empties the counts with the outbox (the reset clock must not leave sends in its future)', async () => {
    const p = await newPlatform();
    const address = `${uniqueId('shared')}@example.com`;
    await advance(p, 600);
    for (const w of await Promise.all(Array.from({ length: CAP }, () => walletFor(p, address))))
      expect((await challenge(w)).status).toBe(200);
    expectError(await challenge(await walletFor(p, address)), 429, 'RATE_LIMITED');
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    expect((await challenge(await walletFor(p, address))).status).toBe(200);
  });

  it('a new EMAIL_OTP credential for a capped address is still created (201, no half-applied 429); its code waits for a challenge', async () => {
    const p = await newPlatform();
    const address = `${uniqueId('shared')}@example.com`;
    const w = await walletFor(p, address);
    const s = await otpSession(w, { credentialId: w.credentialId });
    // A passkey session, then the EMAIL_OTP credential removed: the account may add one again.
    const passkey = new SoftPasskey();
    const body = { type: 'PASSKEY', accountId: w.accountId, nickname: 'key', challenge: 'cmVn', attestation: passkey.register('cmVn') };
    const added = await signed(w, 'POST', '/auth/credentials', body, s.key);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const client = newWalletClient();
    const ch = await call(w.mode, 'POST', `/auth/credentials/${added.body.id}/challenge`, {
      auth: p.auth,
      body: { clientPublicKey: client.clientPublicKey },
    });
    const verified = await call(w.mode, 'POST', `/auth/credentials/${added.body.id}/verify`, {
      auth: p.auth,
      body: { type: 'PASSKEY', assertion: { ...passkey.assert(ch.body.challenge), signature: 'sandbox-valid-passkey-signature' } },
      headers: { 'Request-Id': ch.body.requestId },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const key = openSessionKey(client, verified.body.encryptedSessionSigningKey);
    expect((await signed(w, 'DELETE', `/auth/credentials/${w.credentialId}`, undefined, key)).status).toBe(204);

    // The address's other customers use up its hour.
    for (const other of await Promise.all(Array.from({ length: CAP - 1 }, () => walletFor(p, address)))) {
      expect((await challenge(other)).status).toBe(200);
    }
    const readd = await signed(w, 'POST', '/auth/credentials', { type: 'EMAIL_OTP', accountId: w.accountId }, key);
    expect(readd.status, JSON.stringify(readd.body)).toBe(201);
    expect(await outbox(p, address)).toHaveLength(CAP);
    expectError(await challenge({ ...w, credentialId: readd.body.id }), 429, 'RATE_LIMITED');
  });
});
