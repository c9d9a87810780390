import { describe, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { newWalletClient, openBundle, stamp } from '../support/wallet-client';
import { advance, call, challengeOf, newWallet, otpSession, sessionsOf, signed } from '../support/wallets';

const privacy = (w: { accountId: string }) => `/internal-accounts/${w.accountId}`;

describe('signed retry: the challenge', () => {
  it('the first call answers 202 with payloadToSign, requestId and expiresAt 5 minutes ahead, and changes nothing', async () => {
    const w = await newWallet();
    const challenge = await challengeOf(w, 'PATCH', privacy(w), { privateEnabled: true });
    expect(challenge.requestId).toMatch(/^Request:[0-9a-f-]{36}$/);
    const payload = JSON.parse(challenge.payloadToSign);
    expect(payload).toMatchObject({
      type: 'ACTIVITY_TYPE_UPDATE_WALLET_PRIVACY',
      organizationId: w.accountId,
      parameters: { privateEnabled: true, bodyHash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      timestampMs: expect.stringMatching(/^\d+$/),
    });
    expect(Date.parse(challenge.expiresAt) - Number(payload.timestampMs)).toBe(300_000);
    const account = await call(w.mode, 'GET', `/customers/internal-accounts?customerId=${w.customerId}&type=EMBEDDED_WALLET`, {
      auth: w.p.auth,
    });
    expect(account.body.data[0].privateEnabled).toBe(false);
  });

  it('a valid stamp over payloadToSign performs the operation and consumes the requestId', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const headers = { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId };
    const done = await call(w.mode, 'PATCH', privacy(w), { auth: w.p.auth, body, headers });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ id: w.accountId, type: 'EMBEDDED_WALLET', privateEnabled: true });
    // Reuse of a consumed requestId: 401.
    expectError(await call(w.mode, 'PATCH', privacy(w), { auth: w.p.auth, body, headers }), 401);
  });
});

describe('signed retry: every refusal code', () => {
  it('signature without Request-Id is 401 REQUEST_ID_MISSING; Request-Id without signature is 401 WALLET_SIGNATURE_MISSING', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const sig = await stamp(s.key, challenge.payloadToSign);
    expectError(
      await call(w.mode, 'PATCH', privacy(w), { auth: w.p.auth, body, headers: { 'Service-Wallet-Signature': sig } }),
      401,
      'REQUEST_ID_MISSING',
    );
    expectError(
      await call(w.mode, 'PATCH', privacy(w), { auth: w.p.auth, body, headers: { 'Request-Id': challenge.requestId } }),
      401,
      'WALLET_SIGNATURE_MISSING',
    );
    // Neither refusal consumed the request: the proper retry still works.
    const ok = await call(w.mode, 'PATCH', privacy(w), {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': sig, 'Request-Id': challenge.requestId },
    });
    expect(ok.status).toBe(200);
  });

  it('an unparseable stamp is 401 WALLET_SIGNATURE_MALFORMED in production', async () => {
    const w = await newWallet('production');
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    for (const bad of [
      'not-a-stamp',
      btoa('{"publicKey":"02"}'),
      'sandbox-valid-signature',
      btoa(JSON.stringify({ publicKey: `02${'00'.repeat(32)}`, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: '30060201010201' })),
    ]) {
      const res = await call(w.mode, 'PATCH', privacy(w), {
        auth: w.p.auth,
        body,
        headers: { 'Service-Wallet-Signature': bad, 'Request-Id': challenge.requestId },
      });
      expectError(res, 401, 'WALLET_SIGNATURE_MALFORMED');
    }
  });

  it('a retry with a different body, path or operation is 401 WALLET_SIGNATURE_BODY_MISMATCH', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const challenge = await challengeOf(w, 'PATCH', privacy(w), { privateEnabled: true });
    const headers = { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId };
    expectError(
      await call(w.mode, 'PATCH', privacy(w), { auth: w.p.auth, body: { privateEnabled: false }, headers }),
      401,
      'WALLET_SIGNATURE_BODY_MISMATCH',
    );
    const client = newWalletClient();
    expectError(
      await call(w.mode, 'POST', `${privacy(w)}/export`, { auth: w.p.auth, body: { clientPublicKey: client.clientPublicKey }, headers }),
      401,
      'WALLET_SIGNATURE_BODY_MISMATCH',
    );
    // Canonical body: the same JSON with other whitespace and key order is the same request.
    const same = await call(w.mode, 'PATCH', privacy(w), {
      auth: w.p.auth,
      raw: '{ "privateEnabled" :  true }',
      headers: { ...headers, 'Content-Type': 'application/json' },
    });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
  });

  it('a bad signature, or a key that is no active session of this account, is 401 WALLET_SIGNATURE_INVALID', async () => {
    const w = await newWallet();
    const other = await newWallet();
    const s = await otpSession(w);
    const foreign = await otpSession(other);
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const wrongPayload = await stamp(s.key, `${challenge.payloadToSign} `);
    expectError(
      await call(w.mode, 'PATCH', privacy(w), {
        auth: w.p.auth,
        body,
        headers: { 'Service-Wallet-Signature': wrongPayload, 'Request-Id': challenge.requestId },
      }),
      401,
      'WALLET_SIGNATURE_INVALID',
    );
    const foreignSig = await stamp(foreign.key, challenge.payloadToSign);
    expectError(
      await call(w.mode, 'PATCH', privacy(w), {
        auth: w.p.auth,
        body,
        headers: { 'Service-Wallet-Signature': foreignSig, 'Request-Id': challenge.requestId },
      }),
      401,
      'WALLET_SIGNATURE_INVALID',
    );
    const unknownKey = newWalletClient();
    const stranger = await stamp(
      { privateKey: unknownKey.privateKey, publicKey: compressed(unknownKey.clientPublicKey) },
      challenge.payloadToSign,
    );
    expectError(
      await call(w.mode, 'PATCH', privacy(w), {
        auth: w.p.auth,
        body,
        headers: { 'Service-Wallet-Signature': stranger, 'Request-Id': challenge.requestId },
      }),
      401,
      'WALLET_SIGNATURE_INVALID',
    );
  });

  it('an unknown, used or expired requestId is 401', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { privateEnabled: true };
    const unknown = 'Request:00000000-0000-7000-8000-000000000000';
    const sig = await stamp(s.key, 'anything');
    expectError(
      await call(w.mode, 'PATCH', privacy(w), {
        auth: w.p.auth,
        body,
        headers: { 'Service-Wallet-Signature': sig, 'Request-Id': unknown },
      }),
      401,
    );

    // Another account's requestId is unknown here.
    const other = await newWallet(undefined, w.p);
    const theirs = await challengeOf(other, 'PATCH', privacy(other), body);
    const theirSig = await stamp(s.key, theirs.payloadToSign);
    expectError(
      await call(w.mode, 'PATCH', privacy(w), {
        auth: w.p.auth,
        body,
        headers: { 'Service-Wallet-Signature': theirSig, 'Request-Id': theirs.requestId },
      }),
      401,
    );

    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    await advance(w.p, 301);
    const late = await otpSession(w); // the first session expired with the clock move too
    const res = await call(w.mode, 'PATCH', privacy(w), {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': await stamp(late.key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
    });
    expectError(res, 401, 'UNAUTHORIZED');
  });

  it('a session past expiresAt authorises nothing', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    await advance(w.p, 901);
    expect(await sessionsOf(w)).toEqual([]);
    expectError(await signed(w, 'PATCH', privacy(w), { privateEnabled: true }, s.key), 401, 'WALLET_SIGNATURE_INVALID');
  });

  it('of 50 concurrent retries with one valid requestId exactly one succeeds', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const headers = { 'Service-Wallet-Signature': await stamp(s.key, challenge.payloadToSign), 'Request-Id': challenge.requestId };
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(w.mode, 'PATCH', privacy(w), { auth: w.p.auth, body, headers })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 401);
  });
});

describe('signed retry: sandbox magic value', () => {
  it('Service-Wallet-Signature sandbox-valid-signature authorises the retry in sandbox', async () => {
    const w = await newWallet();
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const res = await call(w.mode, 'PATCH', privacy(w), {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': challenge.requestId },
    });
    expect(res.status).toBe(200);
    expect(res.body.privateEnabled).toBe(true);
  });

  it('a wrong magic value is 401 UNAUTHORIZED with reason "Invalid Service-Wallet-Signature"', async () => {
    const w = await newWallet();
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const res = await call(w.mode, 'PATCH', privacy(w), {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': 'sandbox-invalid-signature', 'Request-Id': challenge.requestId },
    });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.reason).toBe('Invalid Service-Wallet-Signature');
  });

  it('is never honoured in production', async () => {
    const w = await newWallet('production');
    const body = { privateEnabled: true };
    const challenge = await challengeOf(w, 'PATCH', privacy(w), body);
    const res = await call(w.mode, 'PATCH', privacy(w), {
      auth: w.p.auth,
      body,
      headers: { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': challenge.requestId },
    });
    expectError(res, 401, 'WALLET_SIGNATURE_MALFORMED');
  });
});

describe('wallet export and privacy', () => {
  it('export seals the wallet secret to the clientPublicKey bound at step 1; it opens with @turnkey/crypto', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const client = newWalletClient();
    const res = await signed(w, 'POST', `${privacy(w)}/export`, { clientPublicKey: client.clientPublicKey }, s.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.id).toBe(w.accountId);
    const secret = openBundle(client, res.body.encryptedWalletCredentials);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    // The same secret every time: it is the wallet's, not per export.
    const client2 = newWalletClient();
    const again = await signed(w, 'POST', `${privacy(w)}/export`, { clientPublicKey: client2.clientPublicKey }, s.key);
    expect(openBundle(client2, again.body.encryptedWalletCredentials)).toBe(secret);
    expect(JSON.stringify(again.body)).not.toContain(secret);
  });

  it('export refuses a clientPublicKey that is not a P-256 point', async () => {
    const w = await newWallet();
    const res = await call(w.mode, 'POST', `${privacy(w)}/export`, { auth: w.p.auth, body: { clientPublicKey: `04${'00'.repeat(64)}` } });
    expectError(res, 400, 'INVALID_INPUT');
  });

  it('privacy can be turned off again', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    expect((await signed(w, 'PATCH', privacy(w), { privateEnabled: true }, s.key)).body.privateEnabled).toBe(true);
    expect((await signed(w, 'PATCH', privacy(w), { privateEnabled: false }, s.key)).body.privateEnabled).toBe(false);
  });

  it('non-wallet internal accounts and other platforms’ wallets are 404', async () => {
    const w = await newWallet();
    const other = await newWallet();
    expectError(await call(w.mode, 'PATCH', privacy(other), { auth: w.p.auth, body: { privateEnabled: true } }), 404);
    const fiat = await call(w.mode, 'GET', `/customers/internal-accounts?customerId=${w.customerId}&type=INTERNAL_FIAT`, {
      auth: w.p.auth,
    });
    expectError(
      await call(w.mode, 'PATCH', `/internal-accounts/${fiat.body.data[0].id}`, { auth: w.p.auth, body: { privateEnabled: true } }),
      404,
    );
  });
});

/** Compressed form of an uncompressed P-256 public key in hex. */
function compressed(uncompressed: string): string {
  const x = uncompressed.slice(2, 66);
  const yLast = parseInt(uncompressed.slice(128, 130), 16);
  return `${yLast % 2 === 0 ? '02' : '03'}${x}`;
}
