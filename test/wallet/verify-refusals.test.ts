import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, basic, expectError, newPlatform, tokenWith } from '../support/api';
import { clientKeys } from '../hostile/world';
import { SoftPasskey } from '../support/passkey';
import { newWalletClient } from '../support/wallet-client';
import { advance, challengeOf, emailCredential, newWallet, otpSession, sessionsOf, signed } from '../support/wallets';

const indexRows = async (platformId: string) =>
  (await env.DB.prepare('SELECT count(*) AS n FROM wallet_auth_index WHERE platform_id = ?').bind(platformId).first<{ n: number }>())!.n;

// Found by the hostile-input suite: a refused verify used to reserve a session id in D1 before checking the code.
describe('a refused credential verify leaves nothing behind', () => {
  it('a wrong OTP answers 401 and reserves no session id; the right one then issues a session', async () => {
    const { p, accountId } = await newWallet();
    const list = await api('GET', `/auth/credentials?accountId=${encodeURIComponent(accountId)}`, { auth: p.auth });
    const credentialId: string = list.body.data[0].id;
    expect((await api('POST', `/auth/credentials/${credentialId}/challenge`, { auth: p.auth, body: {} })).status).toBe(200);
    const before = await indexRows(p.id);
    const [key] = clientKeys(1);

    for (const otp of ['111111', '222222']) {
      const res = await api('POST', `/auth/credentials/${credentialId}/verify`, {
        auth: p.auth,
        body: { type: 'EMAIL_OTP', otp, clientPublicKey: key },
      });
      expectError(res, 401, 'UNAUTHORIZED');
    }
    expect(await indexRows(p.id)).toBe(before);

    const ok = await api('POST', `/auth/credentials/${credentialId}/verify`, {
      auth: p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: key },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.encryptedSessionSigningKey).toEqual(expect.any(String));
    expect(await indexRows(p.id)).toBe(before + 1);
  });
});

// The wallet lookup and the session id reservation ride on the authentication round trip, filtered on the
// platform the credentials authenticate with MANAGE: a request refused there reserves nothing.
describe('a verify refused before the account acts reserves nothing', () => {
  it('wrong or foreign credentials, a token without MANAGE, an invalid body, an unknown credential', async () => {
    const { p, accountId } = await newWallet();
    const other = await newPlatform();
    const list = await api('GET', `/auth/credentials?accountId=${encodeURIComponent(accountId)}`, { auth: p.auth });
    const credentialId: string = list.body.data[0].id;
    const [key] = clientKeys(1);
    const body = { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: key };
    const path = `/auth/credentials/${credentialId}/verify`;
    const before = await indexRows(p.id);

    expectError(await api('POST', path, { auth: basic(p.clientId, `${p.clientSecret}x`), body }), 401, 'UNAUTHORIZED');
    expectError(await api('POST', path, { auth: await tokenWith(p, ['VIEW', 'TRANSACT']), body }), 403, 'FORBIDDEN');
    expectError(await api('POST', path, { auth: other.auth, body }), 404);
    expectError(await api('POST', path, { auth: p.auth, body: { ...body, clientPublicKey: 'zz' } }), 400, 'INVALID_INPUT');
    expectError(await api('POST', `/auth/credentials/AuthMethod:${crypto.randomUUID()}/verify`, { auth: p.auth, body }), 404);
    expect(await indexRows(p.id)).toBe(before);
    expect(await indexRows(other.id)).toBe(0);

    expect((await api('POST', path, { auth: p.auth, body })).status).toBe(200);
    expect(await indexRows(p.id)).toBe(before + 1);
  });
});

// The sandbox OTP: no e-mail challenge per session, so no re-issue limit in the way.
const SANDBOX = { otp: '000000' };

describe('verify refusals decided by the account itself (one call does the whole verify)', () => {
  it('a body of another type is 400 naming `type`, for EMAIL_OTP and PASSKEY bodies; nothing is left behind', async () => {
    const w = await newWallet();
    const { key } = await otpSession(w, SANDBOX);
    const passkey = new SoftPasskey();
    const challenge = btoa('platform-registration-challenge-0123456789').replace(/=+$/, '');
    const added = await signed(
      w,
      'POST',
      '/auth/credentials',
      { type: 'PASSKEY', accountId: w.accountId, nickname: 'Key', challenge, attestation: passkey.register(challenge) },
      key,
    );
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const email = await emailCredential(w);
    const before = await indexRows(w.p.id);

    const otpToPasskey = await api('POST', `/auth/credentials/${added.body.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(otpToPasskey, 400, 'INVALID_INPUT');
    expect(otpToPasskey.body.message).toBe('This credential is PASSKEY, not EMAIL_OTP');
    expect(otpToPasskey.body.details).toEqual({ fields: [{ field: 'type', message: 'Must be PASSKEY' }] });

    const passkeyToOtp = await api('POST', `/auth/credentials/${email.id}/verify`, {
      auth: w.p.auth,
      body: { type: 'PASSKEY', assertion: passkey.assert('c29tZS1jaGFsbGVuZ2U') },
      headers: { 'Request-Id': 'Request:00000000-0000-7000-8000-000000000000' },
    });
    expectError(passkeyToOtp, 400, 'INVALID_INPUT');
    expect(passkeyToOtp.body.details).toEqual({ fields: [{ field: 'type', message: 'Must be EMAIL_OTP' }] });

    // Refused before the account is called: a PASSKEY verify without Request-Id.
    expectError(
      await api('POST', `/auth/credentials/${added.body.id}/verify`, {
        auth: w.p.auth,
        body: { type: 'PASSKEY', assertion: passkey.assert('eA') },
      }),
      401,
      'REQUEST_ID_MISSING',
    );
    // A session id where a credential id belongs: in the index, but not a credential.
    const sessionPath = await api('POST', `/auth/credentials/${(await sessionsOf(w))[0].id}/verify`, {
      auth: w.p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expectError(sessionPath, 404, 'REFERENCE_NOT_FOUND', 'CREDENTIAL_NOT_FOUND');
    expect(await indexRows(w.p.id)).toBe(before);
  });

  it('the issued session is reachable by its id at once: listed, and revocable by a signed retry', async () => {
    const w = await newWallet();
    const first = await otpSession(w, SANDBOX);
    const second = await otpSession(w, SANDBOX);
    expect((await sessionsOf(w)).map((s) => s.id).sort()).toEqual([first.session.id, second.session.id].sort());
    const revoked = await signed(w, 'DELETE', `/auth/sessions/${second.session.id}`, undefined, first.key);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(204);
    expect((await sessionsOf(w)).map((s) => s.id)).toEqual([first.session.id]);
  });
});

describe('expired sessions and challenges are purged', () => {
  it('rows dead for a day go at the next session issued after the interval; live ones stay', async () => {
    const w = await newWallet();
    const old = await otpSession(w, SANDBOX);
    await challengeOf(w, 'PATCH', `/internal-accounts/${w.accountId}`, { privateEnabled: true });
    const tables = async () => {
      const stub = env.ACCOUNT.get(env.ACCOUNT.idFromName(w.accountId));
      return runInDurableObject(stub, async (_o, state) => ({
        sessions: state.storage.sql
          .exec<{ id: string }>('SELECT id FROM sessions ORDER BY id')
          .toArray()
          .map((r) => r.id),
        pending: state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM pending').one().n,
      }));
    };
    expect(await tables()).toEqual({ sessions: [old.session.id], pending: 1 });
    // Two days on (the sandbox clock): the old session and the challenge are a day past their expiry.
    await advance(w.p, 2 * 86_400);
    const fresh = await otpSession(w, SANDBOX);
    expect(await tables()).toEqual({ sessions: [fresh.session.id], pending: 0 });
    // Live sessions are never purged.
    const another = await otpSession(w, SANDBOX);
    expect((await tables()).sessions.sort()).toEqual([fresh.session.id, another.session.id].sort());
  });
});
