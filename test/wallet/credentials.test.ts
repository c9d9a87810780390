import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields } from '../support/api';
import { createCustomer, individualBody, accountsOf } from '../support/customers';
import { SoftPasskey } from '../support/passkey';
import { newWalletClient, openSessionKey, stamp } from '../support/wallet-client';
import {
  advance,
  call,
  challengeOf,
  credentialsOf,
  emailCredential,
  latestOtp,
  newWallet,
  otpSession,
  sessionsOf,
  signed,
  type TestWallet,
} from '../support/wallets';
import { newPlatform } from '../support/api';
import { sandboxOidc } from './oidc-fixtures';

async function addOauth(w: TestWallet, key: Parameters<typeof signed>[4], claims: Record<string, unknown> = {}) {
  const body = { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc({ email: 'ada@gmail.test', ...claims }) };
  return signed(w, 'POST', '/auth/credentials', body, key);
}

async function addPasskey(w: TestWallet, key: Parameters<typeof signed>[4], passkey = new SoftPasskey(), nickname = 'iPhone') {
  const challenge = 'platform-registration-challenge-0123456789';
  const body = {
    type: 'PASSKEY',
    accountId: w.accountId,
    nickname,
    challenge: btoa(challenge).replace(/=+$/, ''),
    attestation: passkey.register(btoa(challenge).replace(/=+$/, '')),
  };
  return { res: await signed(w, 'POST', '/auth/credentials', body, key), passkey };
}

describe('POST /auth/credentials', () => {
  it('the first credential of an account without one is created at once (201)', async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p, individualBody()); // no e-mail: no initial credential
    const wallet = (await accountsOf(p, customer.id)).find((a) => a.type === 'EMBEDDED_WALLET');
    const w = { p, customerId: customer.id, accountId: wallet.id, email: '', mode: 'sandbox' as const };
    expect(await credentialsOf(w)).toEqual([]);
    const res = await api('POST', '/auth/credentials', {
      auth: p.auth,
      body: { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc({ email: 'first@example.com' }) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'OAUTH', nickname: 'first@example.com', accountId: w.accountId });
    // The second needs a signature.
    const second = await api('POST', '/auth/credentials', {
      auth: p.auth,
      body: { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc({ sub: 'other' }) },
    });
    expect(second.status).toBe(202);
    expect(second.body.type).toBe('OAUTH');
  });

  it('adding to an account with a credential is a signed retry whose challenge type is the type being added', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc({ email: 'ada@gmail.test' }) };
    const challenge = await challengeOf(w, 'POST', '/auth/credentials', body);
    expect(challenge.type).toBe('OAUTH');
    expect(await credentialsOf(w)).toHaveLength(1); // nothing changed yet
    const res = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^AuthMethod:/),
      accountId: w.accountId,
      type: 'OAUTH',
      nickname: 'ada@gmail.test',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await credentialsOf(w)).map((c) => c.type).sort()).toEqual(['EMAIL_OTP', 'OAUTH']);
  });

  it('OAUTH: the same provider identity once (409); another identity is fine', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    expect((await addOauth(w, s.key)).status).toBe(201);
    const dup = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body: { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc() },
    });
    expectError(dup, 409, 'CONFLICT');
    expect((await addOauth(w, s.key, { sub: 'someone-else' })).status).toBe(201);
  });

  it('EMAIL_OTP: one per account (400 EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS); re-added after removal', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const dup = await call(w.mode, 'POST', '/auth/credentials', { auth: w.p.auth, body: { type: 'EMAIL_OTP', accountId: w.accountId } });
    expectError(dup, 400, 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS');

    expect((await addOauth(w, s.key)).status).toBe(201);
    const oauth = (await credentialsOf(w)).find((c) => c.type === 'OAUTH');
    const oauthSession = await oauthVerify(w, oauth.id);
    const email = await emailCredential(w);
    expect((await signed(w, 'DELETE', `/auth/credentials/${email.id}`, undefined, oauthSession.key)).status).toBe(204);

    const readd = await signed(w, 'POST', '/auth/credentials', { type: 'EMAIL_OTP', accountId: w.accountId }, oauthSession.key);
    expect(readd.status, JSON.stringify(readd.body)).toBe(201);
    expect(readd.body).toMatchObject({ type: 'EMAIL_OTP', nickname: w.email });
    // The signed retry of an EMAIL_OTP add sends its first code.
    const code = await latestOtp(w);
    const client = newWalletClient();
    const verified = await call(w.mode, 'POST', `/auth/credentials/${readd.body.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: code, clientPublicKey: client.clientPublicKey },
    });
    expect(verified.status).toBe(200);
  });

  it('PASSKEY: registers a real WebAuthn credential; the same credential id twice is 400 PASSKEY_CREDENTIAL_ALREADY_EXISTS; distinct passkeys are fine', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const { res, passkey } = await addPasskey(w, s.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'PASSKEY', nickname: 'iPhone', credentialId: passkey.credentialId });
    const again = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body: {
        type: 'PASSKEY',
        accountId: w.accountId,
        nickname: 'again',
        challenge: 'Y2hhbGxlbmdl',
        attestation: passkey.register('Y2hhbGxlbmdl'),
      },
    });
    expectError(again, 400, 'PASSKEY_CREDENTIAL_ALREADY_EXISTS');
    expect((await addPasskey(w, s.key, new SoftPasskey(), 'YubiKey')).res.status).toBe(201);
    expect((await credentialsOf(w)).filter((c) => c.type === 'PASSKEY')).toHaveLength(2);
  });

  it('PASSKEY: an attestation for another challenge or origin is 400', async () => {
    const w = await newWallet();
    const passkey = new SoftPasskey();
    const wrongChallenge = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body: { type: 'PASSKEY', accountId: w.accountId, nickname: 'x', challenge: 'Y2hhbGxlbmdl', attestation: passkey.register('b3RoZXI') },
    });
    expectError(wrongChallenge, 400, 'INVALID_INPUT');
    const wrongOrigin = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body: {
        type: 'PASSKEY',
        accountId: w.accountId,
        nickname: 'x',
        challenge: 'Y2hhbGxlbmdl',
        attestation: passkey.register('Y2hhbGxlbmdl', { origin: 'https://evil.example' }),
      },
    });
    expectError(wrongOrigin, 400, 'INVALID_INPUT');
  });

  it('validates the body by type', async () => {
    const w = await newWallet();
    for (const [body, fields] of [
      [{ type: 'SMS', accountId: w.accountId }, ['type']],
      [{ type: 'OAUTH', accountId: w.accountId }, ['oidcToken']],
      [{ type: 'PASSKEY', accountId: w.accountId, nickname: 'x' }, ['challenge', 'attestation']],
      [{ type: 'EMAIL_OTP' }, ['accountId']],
    ] as const) {
      const res = await call(w.mode, 'POST', '/auth/credentials', { auth: w.p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort()).toEqual([...fields].sort());
    }
  });

  it('an account that is not an embedded wallet of this platform is 404', async () => {
    const w = await newWallet();
    const other = await newWallet();
    expectError(
      await call(w.mode, 'POST', '/auth/credentials', { auth: w.p.auth, body: { type: 'EMAIL_OTP', accountId: other.accountId } }),
      404,
    );
    expectError(await call(w.mode, 'GET', `/auth/credentials?accountId=${other.accountId}`, { auth: w.p.auth }), 404);
    expectError(
      await call(w.mode, 'GET', '/auth/credentials?accountId=InternalAccount:00000000-0000-7000-8000-000000000000', { auth: w.p.auth }),
      404,
    );
  });
});

describe('OAUTH claims (sandbox rules), through the API', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, Record<string, unknown>, string][] = [
    ['unsupported iss', { iss: 'https://evil.test' }, 'iss is not a supported issuer'],
    ['aud two elements', { aud: ['a', 'b'] }, 'aud must be a non-empty string'],
    ['aud empty', { aud: '' }, 'aud must be a non-empty string'],
    ['sub empty', { sub: '' }, 'sub must be a non-empty string'],
    ['iat 66 s old', { iat: now() - 66 }, 'iat is more than 60 seconds before the request'],
    ['iat not a number', { iat: 'now' }, 'iat must be a number'],
    ['exp passed', { exp: now() - 1 }, 'exp is not later than the request time'],
    ['exp missing', { exp: undefined }, 'exp must be a number'],
  ];
  for (const [name, claims, reason] of cases) {
    it(`refuses ${name} with 401 and the reason`, async () => {
      const w = await newWallet();
      const res = await call(w.mode, 'POST', '/auth/credentials', {
        auth: w.p.auth,
        body: { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc(claims) },
      });
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.body.reason).toContain(reason);
    });
  }

  it('accepts iat past 60 s within the 5 s sandbox skew, and aud as a one-element array', async () => {
    const w = await newWallet();
    // 62 s: beyond 60 (so the skew is what accepts it), with 3 s to spare for the second cut off by now() and a
    // slow request on a loaded machine (64 s failed there once).
    const res = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body: { type: 'OAUTH', accountId: w.accountId, oidcToken: sandboxOidc({ iat: now() - 62, aud: ['client-app'] }) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  });

  it('a malformed JWT is 400 INVALID_INPUT; the retired literal sandbox token is refused', async () => {
    const w = await newWallet();
    for (const token of ['abc', 'a.b', 'x.y.z', `${btoa('{}')}.${btoa('[1]')}.sig`]) {
      const res = await call(w.mode, 'POST', '/auth/credentials', {
        auth: w.p.auth,
        body: { type: 'OAUTH', accountId: w.accountId, oidcToken: token },
      });
      expectError(res, 400, 'INVALID_INPUT');
    }
    const literal = await call(w.mode, 'POST', '/auth/credentials', {
      auth: w.p.auth,
      body: { type: 'OAUTH', accountId: w.accountId, oidcToken: 'sandbox-valid-oidc-token' },
    });
    expectError(literal, 401, 'UNAUTHORIZED');
  });
});

/** Verify an OAUTH credential with a fresh token whose nonce binds the client key. */
async function oauthVerify(w: TestWallet, credentialId: string, claims: Record<string, unknown> = {}) {
  const client = newWalletClient();
  const res = await call(w.mode, 'POST', `/auth/credentials/${credentialId}/verify`, {
    auth: w.p.auth,
    body: {
      type: 'OAUTH',
      oidcToken: sandboxOidc({ nonce: await sha256Hex(client.clientPublicKey), ...claims }),
      clientPublicKey: client.clientPublicKey,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { session: res.body, key: openSessionKey(client, res.body.encryptedSessionSigningKey) };
}

async function sha256Hex(text: string) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

describe('verify and re-authentication per type', () => {
  it('OAUTH: verify alone with a fresh token; identity and nonce must match', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const created = await addOauth(w, s.key);
    const id = created.body.id;
    const first = await oauthVerify(w, id);
    expect(first.session).toMatchObject({ type: 'OAUTH', nickname: 'ada@gmail.test' });
    expect((await call(w.mode, 'POST', `/auth/credentials/${id}/challenge`, { auth: w.p.auth })).status).toBe(400);

    const client = newWalletClient();
    const wrongNonce = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: { type: 'OAUTH', oidcToken: sandboxOidc({ nonce: 'ab'.repeat(32) }), clientPublicKey: client.clientPublicKey },
    });
    expectError(wrongNonce, 401, 'UNAUTHORIZED');
    expect(wrongNonce.body.reason).toContain('nonce');
    const otherSub = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: {
        type: 'OAUTH',
        oidcToken: sandboxOidc({ sub: 'intruder', nonce: await sha256Hex(client.clientPublicKey) }),
        clientPublicKey: client.clientPublicKey,
      },
    });
    expectError(otherSub, 401, 'UNAUTHORIZED');
    expect(otherSub.body.reason).toContain('identity');

    // Re-authentication after expiry: verify alone, with a fresh token.
    await advance(w.p, 901);
    const later = Math.floor(Date.now() / 1000) + 901;
    const again = await oauthVerify(w, id, { iat: later, exp: later + 600 });
    expect(again.session.id).not.toBe(first.session.id);
  });

  it('EMAIL_OTP: challenge then verify; re-authentication is a new challenge and a fresh client key', async () => {
    const w = await newWallet();
    const first = await otpSession(w);
    await advance(w.p, 901);
    expect(await sessionsOf(w)).toEqual([]);
    const second = await otpSession(w);
    expect(second.client.clientPublicKey).not.toBe(first.client.clientPublicKey);
    expect((await sessionsOf(w)).map((x) => x.id)).toEqual([second.session.id]);
  });

  it('PASSKEY: challenge with clientPublicKey, assertion with Request-Id; the session is sealed to the challenge key', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const { res, passkey } = await addPasskey(w, s.key);
    const id = res.body.id;
    const missingKey = await call(w.mode, 'POST', `/auth/credentials/${id}/challenge`, { auth: w.p.auth });
    expectError(missingKey, 400, 'INVALID_INPUT');
    expect(failingFields(missingKey)).toEqual(['clientPublicKey']);

    const client = newWalletClient();
    const ch = await call(w.mode, 'POST', `/auth/credentials/${id}/challenge`, {
      auth: w.p.auth,
      body: { clientPublicKey: client.clientPublicKey },
    });
    expect(ch.status, JSON.stringify(ch.body)).toBe(200);
    expect(ch.body).toMatchObject({
      id,
      type: 'PASSKEY',
      credentialId: passkey.credentialId,
      challenge: expect.any(String),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: expect.any(String),
    });

    const assertion = passkey.assert(ch.body.challenge);
    const noRequestId = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion },
    });
    expectError(noRequestId, 401, 'REQUEST_ID_MISSING');
    const ok = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion },
      headers: { 'Request-Id': ch.body.requestId },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ type: 'PASSKEY', credentialId: passkey.credentialId, nickname: 'iPhone' });
    const key = openSessionKey(client, ok.body.encryptedSessionSigningKey);
    // The passkey session signs like any other.
    expect((await signed(w, 'PATCH', `/internal-accounts/${w.accountId}`, { privateEnabled: true }, key)).status).toBe(200);

    // The challenge is single use; a replayed assertion fails.
    const replay = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion },
      headers: { 'Request-Id': ch.body.requestId },
    });
    expectError(replay, 401);
  });

  it('PASSKEY: a forged assertion or a wrong challenge is refused; the sandbox magic signature passes, a wrong one names the reason', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const { res, passkey } = await addPasskey(w, s.key);
    const id = res.body.id;
    const challenge = async () =>
      (
        await call(w.mode, 'POST', `/auth/credentials/${id}/challenge`, {
          auth: w.p.auth,
          body: { clientPublicKey: newWalletClient().clientPublicKey },
        })
      ).body;

    const c1 = await challenge();
    const wrong = passkey.assert('d3JvbmctY2hhbGxlbmdl');
    const bad = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion: wrong },
      headers: { 'Request-Id': c1.requestId },
    });
    expectError(bad, 401, 'UNAUTHORIZED');
    expect(bad.body.reason).toBe('Invalid passkey signature');

    const c2 = await challenge();
    const forged = { ...passkey.assert(c2.challenge), signature: passkey.assert(c2.challenge).signature.replace(/^../, 'AA') };
    expectError(
      await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
        auth: w.p.auth,
        body: { type: 'PASSKEY', assertion: forged },
        headers: { 'Request-Id': c2.requestId },
      }),
      401,
    );

    const c3 = await challenge();
    const magic = { ...passkey.assert(c3.challenge), signature: 'sandbox-valid-passkey-signature' };
    const ok = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion: magic },
      headers: { 'Request-Id': c3.requestId },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('verify with a body of another type is 400; unknown credential 404', async () => {
    const w = await newWallet();
    const email = await emailCredential(w);
    const res = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'OAUTH', oidcToken: sandboxOidc(), clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(res, 400, 'INVALID_INPUT');
    expectError(
      await call(w.mode, 'POST', '/auth/credentials/AuthMethod:00000000-0000-7000-8000-000000000000/challenge', { auth: w.p.auth }),
      404,
    );
  });
});

describe('EMAIL_OTP codes', () => {
  it('use the platform’s length and alphabet, and the sandbox magic 000000 also works', async () => {
    const w = await newWallet();
    await api('PATCH', '/config', { auth: w.p.auth, body: { embeddedWalletConfig: { otpLength: 9, alphanumeric: true } } });
    const email = await emailCredential(w);
    await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth });
    expect(await latestOtp(w)).toMatch(/^[0-9A-Z]{9}$/);
    const magic = await otpSession(w, { otp: '000000' });
    expect(magic.key.privateKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a code is single use', async () => {
    const w = await newWallet();
    const email = await emailCredential(w);
    await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth });
    const code = await latestOtp(w);
    await otpSession(w, { otp: code });
    const again = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: code, clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(again, 401, 'UNAUTHORIZED');
    expect(again.body.reason).toBe('Invalid OTP code');
  });

  it('a code expires after expirationSeconds', async () => {
    const w = await newWallet();
    await api('PATCH', '/config', { auth: w.p.auth, body: { embeddedWalletConfig: { expirationSeconds: 60 } } });
    const email = await emailCredential(w);
    await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth });
    const code = await latestOtp(w);
    await advance(w.p, 61);
    const late = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: code, clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(late, 401, 'UNAUTHORIZED');
  });

  it('five wrong tries burn the code', async () => {
    const w = await newWallet();
    const email = await emailCredential(w);
    await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth });
    const code = await latestOtp(w);
    const wrongCode = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++) {
      const res = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
        auth: w.p.auth,
        body: { type: 'EMAIL_OTP', otp: wrongCode, clientPublicKey: newWalletClient().clientPublicKey },
      });
      expectError(res, 401, 'UNAUTHORIZED');
    }
    const right = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: code, clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(right, 401, 'UNAUTHORIZED');
  });

  it('re-issue is rate limited: 429 with Retry-After, then allowed again', async () => {
    const w = await newWallet();
    const email = await emailCredential(w);
    const path = `/auth/credentials/${email.id}/challenge`;
    expect((await call(w.mode, 'POST', path, { auth: w.p.auth })).status).toBe(200);
    const limited = await call(w.mode, 'POST', path, { auth: w.p.auth });
    expectError(limited, 429, 'RATE_LIMITED');
    const wait = Number(limited.headers.get('Retry-After'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(30);
    await advance(w.p, wait);
    expect((await call(w.mode, 'POST', path, { auth: w.p.auth })).status).toBe(200);
    // At most five codes per 15 minutes.
    for (let i = 0; i < 3; i++) {
      await advance(w.p, 30);
      expect((await call(w.mode, 'POST', path, { auth: w.p.auth })).status).toBe(200);
    }
    await advance(w.p, 30);
    const window = await call(w.mode, 'POST', path, { auth: w.p.auth });
    expectError(window, 429);
    expect(Number(window.headers.get('Retry-After'))).toBeGreaterThan(30);
  });
});

describe('DELETE /auth/credentials/{id}', () => {
  it('needs a session of a different credential; cascades to the revoked credential’s sessions', async () => {
    const w = await newWallet();
    const emailSession = await otpSession(w);
    const oauth = (await addOauth(w, emailSession.key)).body;
    const oauthSession = await oauthVerify(w, oauth.id);
    const email = await emailCredential(w);

    const challenge = await challengeOf(w, 'DELETE', `/auth/credentials/${email.id}`);
    expect(challenge.type).toBe('EMAIL_OTP');
    const self = await call(w.mode, 'DELETE', `/auth/credentials/${email.id}`, {
      auth: w.p.auth,
      headers: { 'Service-Wallet-Signature': await stamp(emailSession.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expectError(self, 401, 'WALLET_SIGNATURE_INVALID');

    const ok = await call(w.mode, 'DELETE', `/auth/credentials/${email.id}`, {
      auth: w.p.auth,
      headers: { 'Service-Wallet-Signature': await stamp(oauthSession.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(204);
    expect((await credentialsOf(w)).map((c) => c.type)).toEqual(['OAUTH']);
    expect((await sessionsOf(w)).map((x) => x.id)).toEqual([oauthSession.session.id]);
    // The revoked credential's session signs nothing any more.
    expectError(
      await signed(w, 'PATCH', `/internal-accounts/${w.accountId}`, { privateEnabled: true }, emailSession.key),
      401,
      'WALLET_SIGNATURE_INVALID',
    );
  });

  it('the only credential cannot be revoked (400)', async () => {
    const w = await newWallet();
    const email = await emailCredential(w);
    expectError(await call(w.mode, 'DELETE', `/auth/credentials/${email.id}`, { auth: w.p.auth }), 400);
  });

  it('unknown and other platforms’ credentials are 404', async () => {
    const w = await newWallet();
    const other = await newWallet();
    const theirs = await emailCredential(other);
    expectError(await call(w.mode, 'DELETE', `/auth/credentials/${theirs.id}`, { auth: w.p.auth }), 404);
    expectError(await call(w.mode, 'POST', `/auth/credentials/${theirs.id}/challenge`, { auth: w.p.auth }), 404);
    expectError(
      await call(w.mode, 'POST', `/auth/credentials/${theirs.id}/verify`, {
        auth: w.p.auth,
        body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
      }),
      404,
    );
  });
});
