import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expectError } from '../support/api';
import { SoftPasskey } from '../support/passkey';
import { newWalletClient, openSessionKey, stamp } from '../support/wallet-client';
import { call, challengeOf, emailCredential, newWallet, signed, type TestWallet } from '../support/wallets';

/** Fakes the world outside the Worker at its edge: the e-mail provider and the OIDC issuer's JWKS. */
function fakeInternet(jwks?: unknown) {
  const mails: { to: string[]; text: string; from: string }[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url === 'https://api.resend.com/emails') {
      expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer test-email-provider-key');
      mails.push(JSON.parse(String(init?.body)));
      return Response.json({ id: 'email-1' });
    }
    if (url === 'https://issuer.test/.well-known/jwks.json' && jwks) return Response.json(jwks);
    return new Response('not found', { status: 404 });
  });
  return { lastOtp: () => mails.at(-1)?.text.match(/code is ([0-9A-Z]+)\./)?.[1], mails };
}

afterEach(() => vi.restoreAllMocks());

async function productionSession(w: TestWallet, net: ReturnType<typeof fakeInternet>) {
  const email = await emailCredential(w);
  expect((await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth })).status).toBe(200);
  expect(net.mails.at(-1)?.to).toEqual([w.email]);
  const client = newWalletClient();
  const res = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
    auth: w.p.auth,
    body: { type: 'EMAIL_OTP', otp: net.lastOtp(), clientPublicKey: client.clientPublicKey },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { session: res.body, key: openSessionKey(client, res.body.encryptedSessionSigningKey) };
}

describe('production mode: real checks only, and the real client libraries interoperate', () => {
  it('OTP by e-mail provider, key opened by decryptCredentialBundle, retry stamped by ApiKeyStamper', async () => {
    const net = fakeInternet();
    const w = await newWallet('production');
    const s = await productionSession(w, net);
    const res = await signed(w, 'PATCH', `/internal-accounts/${w.accountId}`, { privateEnabled: true }, s.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.privateEnabled).toBe(true);
  });

  it('the sandbox magic values are refused', async () => {
    const net = fakeInternet();
    const w = await newWallet('production');
    const s = await productionSession(w, net);
    // In sandbox 000000 opens a session with no code outstanding; in production it is just a wrong code.
    const email = await emailCredential(w);
    const otp = await call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(otp, 401, 'UNAUTHORIZED');

    const passkey = new SoftPasskey();
    const created = await signed(
      w,
      'POST',
      '/auth/credentials',
      { type: 'PASSKEY', accountId: w.accountId, nickname: 'key', challenge: 'cmVn', attestation: passkey.register('cmVn') },
      s.key,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ch = await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/challenge`, {
      auth: w.p.auth,
      body: { clientPublicKey: newWalletClient().clientPublicKey },
    });
    const magic = { ...passkey.assert(ch.body.challenge), signature: 'sandbox-valid-passkey-signature' };
    expectError(
      await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/verify`, {
        auth: w.p.auth,
        body: { type: 'PASSKEY', assertion: magic },
        headers: { 'Request-Id': ch.body.requestId },
      }),
      401,
    );
    // A real assertion works in production.
    const ch2 = await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/challenge`, {
      auth: w.p.auth,
      body: { clientPublicKey: newWalletClient().clientPublicKey },
    });
    const real = await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion: passkey.assert(ch2.body.challenge) },
      headers: { 'Request-Id': ch2.body.requestId },
    });
    expect(real.status, JSON.stringify(real.body)).toBe(200);
  });

  it('OIDC tokens are checked against the issuer’s JWKS (fetched at the network edge)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const net = fakeInternet({ keys: [jwk] });
    const w = await newWallet('production');
    const s = await productionSession(w, net);
    const token = (claims: Record<string, unknown>, key = privateKey) =>
      new SignJWT({ email: 'ada@issuer.test', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer('https://issuer.test')
        .setAudience('client-app')
        .setSubject('ada')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(key);

    const created = await signed(
      w,
      'POST',
      '/auth/credentials',
      { type: 'OAUTH', accountId: w.accountId, oidcToken: await token({}) },
      s.key,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.nickname).toBe('ada@issuer.test');

    const client = newWalletClient();
    const nonce = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(client.clientPublicKey)))]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
    const ok = await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'OAUTH', oidcToken: await token({ nonce }), clientPublicKey: client.clientPublicKey },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);

    const impostor = (await generateKeyPair('ES256')).privateKey;
    const forged = await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'OAUTH', oidcToken: await token({ nonce }, impostor), clientPublicKey: client.clientPublicKey },
    });
    expectError(forged, 401, 'UNAUTHORIZED');
    const parts = (await token({ nonce })).split('.');
    const unsigned = await call(w.mode, 'POST', `/auth/credentials/${created.body.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'OAUTH', oidcToken: `${parts[0]}.${parts[1]}.sandbox-signature`, clientPublicKey: client.clientPublicKey },
    });
    expectError(unsigned, 401, 'UNAUTHORIZED');
  });

  it('a challenge of one operation cannot authorise another, even with a valid stamp', async () => {
    const net = fakeInternet();
    const w = await newWallet('production');
    const s = await productionSession(w, net);
    const challenge = await challengeOf(w, 'POST', `/internal-accounts/${w.accountId}/export`, {
      clientPublicKey: newWalletClient().clientPublicKey,
    });
    const res = await call(w.mode, 'PATCH', `/internal-accounts/${w.accountId}`, {
      auth: w.p.auth,
      body: { privateEnabled: true },
      headers: { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expectError(res, 401, 'WALLET_SIGNATURE_BODY_MISMATCH');
  });
});
