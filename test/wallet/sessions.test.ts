import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, tokenWith } from '../support/api';
import { newWalletClient, openSessionKey, stamp } from '../support/wallet-client';
import { advance, call, challengeOf, credentialsOf, emailCredential, newWallet, otpSession, sessionsOf, signed } from '../support/wallets';

describe('POST /auth/sessions/{id}/refresh', () => {
  it('binds clientPublicKey into payloadToSign and answers 200 with a new session sealed to it', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const client = newWalletClient();
    const body = { clientPublicKey: client.clientPublicKey };
    const challenge = await challengeOf(w, 'POST', `/auth/sessions/${s.session.id}/refresh`, body);
    expect(JSON.parse(challenge.payloadToSign).parameters.targetPublicKey).toBe(client.clientPublicKey);
    const res = await call(w.mode, 'POST', `/auth/sessions/${s.session.id}/refresh`, {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^Session:/),
      type: 'EMAIL_OTP',
      encryptedSessionSigningKey: expect.any(String),
    });
    expect(res.body.id).not.toBe(s.session.id);
    const fresh = openSessionKey(client, res.body.encryptedSessionSigningKey);
    expect((await signed(w, 'PATCH', `/internal-accounts/${w.accountId}`, { privateEnabled: true }, fresh)).status).toBe(200);
  });

  it('a retry with another clientPublicKey is a body mismatch; clientPublicKey is required on both steps', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const challenge = await challengeOf(w, 'POST', `/auth/sessions/${s.session.id}/refresh`, {
      clientPublicKey: newWalletClient().clientPublicKey,
    });
    const headers = { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId };
    const swapped = await call(w.mode, 'POST', `/auth/sessions/${s.session.id}/refresh`, {
      auth: w.p.auth,
      body: { clientPublicKey: newWalletClient().clientPublicKey },
      headers,
    });
    expectError(swapped, 401, 'WALLET_SIGNATURE_BODY_MISMATCH');
    const missing = await call(w.mode, 'POST', `/auth/sessions/${s.session.id}/refresh`, { auth: w.p.auth, body: {}, headers });
    expectError(missing, 400, 'INVALID_INPUT');
    expect(failingFields(missing)).toEqual(['clientPublicKey']);
  });

  it('must be signed by the session being refreshed', async () => {
    const w = await newWallet();
    const a = await otpSession(w);
    const b = await otpSession(w, { otp: '000000' });
    const res = await signed(
      w,
      'POST',
      `/auth/sessions/${a.session.id}/refresh`,
      { clientPublicKey: newWalletClient().clientPublicKey },
      b.key,
    );
    expectError(res, 401, 'WALLET_SIGNATURE_INVALID');
  });
});

describe('DELETE /auth/sessions/{id}', () => {
  it('any active session of the account may sign it (self-logout included)', async () => {
    const w = await newWallet();
    const a = await otpSession(w);
    const b = await otpSession(w, { otp: '000000' });
    expect((await signed(w, 'DELETE', `/auth/sessions/${a.session.id}`, undefined, b.key)).status).toBe(204);
    expect((await signed(w, 'DELETE', `/auth/sessions/${b.session.id}`, undefined, b.key)).status).toBe(204);
    expect(await sessionsOf(w)).toEqual([]);
  });

  it('the 202 challenge carries the type of the credential that issued the session (AuthSignedRequestChallenge)', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const challenge = await challengeOf(w, 'DELETE', `/auth/sessions/${s.session.id}`);
    expect(challenge).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.any(String),
      expiresAt: expect.any(String),
      type: 'EMAIL_OTP',
    });
    // Refresh keeps the plain challenge and its 200.
    const refresh = await challengeOf(w, 'POST', `/auth/sessions/${s.session.id}/refresh`, {
      clientPublicKey: newWalletClient().clientPublicKey,
    });
    expect(refresh).not.toHaveProperty('type');
    const doc = (await api('GET', '/openapi.json')).body.paths['/auth/sessions/{id}'].delete.responses['202'];
    expect(doc.content['application/json'].schema.$ref).toBe('#/components/schemas/AuthSignedRequestChallenge');
  });

  it('unknown, revoked and other platforms’ sessions are 404', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const other = await newWallet();
    const theirs = await otpSession(other);
    expectError(await call(w.mode, 'DELETE', `/auth/sessions/${theirs.session.id}`, { auth: w.p.auth }), 404);
    expectError(await call(w.mode, 'DELETE', '/auth/sessions/Session:00000000-0000-7000-8000-000000000000', { auth: w.p.auth }), 404);
    await signed(w, 'DELETE', `/auth/sessions/${s.session.id}`, undefined, s.key);
    expectError(await call(w.mode, 'DELETE', `/auth/sessions/${s.session.id}`, { auth: w.p.auth }), 404);
    expectError(
      await call(w.mode, 'POST', `/auth/sessions/${s.session.id}/refresh`, {
        auth: w.p.auth,
        body: { clientPublicKey: newWalletClient().clientPublicKey },
      }),
      404,
    );
  });
});

describe('customer e-mail change', () => {
  it('is a signed retry that changes the customer e-mail and the EMAIL_OTP credential together', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { customerType: 'INDIVIDUAL', email: 'new.address@example.com' };
    const challenge = await challengeOf(w, 'PATCH', `/customers/${w.customerId}`, body);
    expect(challenge.type).toBe('EMAIL_OTP');
    expect((await api('GET', `/customers/${w.customerId}`, { auth: w.p.auth })).body.email).toBe(w.email);
    const res = await call(w.mode, 'PATCH', `/customers/${w.customerId}`, {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.email).toBe('new.address@example.com');
    expect((await emailCredential(w)).nickname).toBe('new.address@example.com');
    // Codes now go to the new address.
    const cred = await emailCredential(w);
    await advance(w.p, 31); // past the re-issue limit of the earlier code
    expect((await call(w.mode, 'POST', `/auth/credentials/${cred.id}/challenge`, { auth: w.p.auth })).status).toBe(200);
    const mail = await api('GET', '/sandbox/emails?to=new.address%40example.com', { auth: w.p.auth });
    expect(mail.body.data).toHaveLength(1);
  });

  it('other updates, and e-mail changes without an EMAIL_OTP credential, apply at once', async () => {
    const w = await newWallet();
    const res = await api('PATCH', `/customers/${w.customerId}`, {
      auth: w.p.auth,
      body: { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
    });
    expect(res.status).toBe(200);
    expect(res.body.fullName).toBe('Ada Lovelace');
    const same = await api('PATCH', `/customers/${w.customerId}`, { auth: w.p.auth, body: { customerType: 'INDIVIDUAL', email: w.email } });
    expect(same.status).toBe(200);
    expect((await credentialsOf(w)).length).toBe(1);
  });
});

describe('wallet endpoints: permissions', () => {
  it('reads need VIEW, writes MANAGE', async () => {
    const w = await newWallet();
    const view = await tokenWith(w.p, ['VIEW']);
    const manage = await tokenWith(w.p, ['MANAGE']);
    const email = await emailCredential(w);
    expect((await call(w.mode, 'GET', `/auth/credentials?accountId=${w.accountId}`, { auth: view })).status).toBe(200);
    expectError(await call(w.mode, 'GET', `/auth/sessions?accountId=${w.accountId}`, { auth: manage }), 403, 'FORBIDDEN');
    expectError(await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: view }), 403, 'FORBIDDEN');
    expectError(
      await call(w.mode, 'PATCH', `/internal-accounts/${w.accountId}`, { auth: view, body: { privateEnabled: true } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await call(w.mode, 'POST', `/internal-accounts/${w.accountId}/export`, {
        auth: view,
        body: { clientPublicKey: newWalletClient().clientPublicKey },
      }),
      403,
    );
    expect((await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: manage })).status).toBe(200);
  });
});
