import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { base64urlnopad as b64url } from '@scure/base';
import { settings } from '../../src/env';
import { verifyPasskeyAssertion, verifyPasskeyRegistration, type RelyingParty, type StoredPasskey } from '../../src/wallet/webauthn';
import { SoftPasskey, TEST_ORIGIN, TEST_RP_ID } from '../support/passkey';

const RP: RelyingParty = { rpId: TEST_RP_ID, origins: [TEST_ORIGIN, 'http://localhost:5173'] };

function challenge(): string {
  return b64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}

async function registered(passkey = new SoftPasskey()): Promise<{ passkey: SoftPasskey; stored: StoredPasskey }> {
  const c = challenge();
  const r = await verifyPasskeyRegistration({ challenge: c, attestation: passkey.register(c) }, RP);
  if (!r.ok) throw new Error(r.reason);
  const { ok: _, ...stored } = r;
  return { passkey, stored };
}

describe('passkey registration', () => {
  it("verifies a software authenticator's 'none' attestation and returns what to store", async () => {
    const passkey = new SoftPasskey();
    const c = challenge();
    const r = await verifyPasskeyRegistration({ challenge: c, attestation: passkey.register(c) }, RP);
    expect(r).toMatchObject({ ok: true, credentialId: passkey.credentialId, counter: 0, transports: ['internal'] });
    expect(r.ok && r.publicKey).toBeInstanceOf(Uint8Array);
    expect(r.ok && r.publicKey.length).toBeGreaterThan(64);
  });

  it('rejects another challenge, origin or RP id', async () => {
    const passkey = new SoftPasskey();
    const c = challenge();
    expect(await verifyPasskeyRegistration({ challenge: challenge(), attestation: passkey.register(c) }, RP)).toMatchObject({
      ok: false,
      code: 'PASSKEY_INVALID',
      reason: expect.stringMatching(/challenge/),
    });
    expect(
      await verifyPasskeyRegistration({ challenge: c, attestation: passkey.register(c, { origin: 'https://evil.test' }) }, RP),
    ).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/origin/),
    });
    const elsewhere = new SoftPasskey('evil.test');
    expect(await verifyPasskeyRegistration({ challenge: c, attestation: elsewhere.register(c) }, RP)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/RP ID/),
    });
  });

  it('rejects a credentialId that is not the one inside the attestation object', async () => {
    const passkey = new SoftPasskey();
    const c = challenge();
    const attestation = { ...passkey.register(c), credentialId: new SoftPasskey().credentialId };
    expect(await verifyPasskeyRegistration({ challenge: c, attestation }, RP)).toEqual({
      ok: false,
      code: 'PASSKEY_INVALID',
      reason: 'attestation.credentialId is not the id in the attestation object',
    });
  });

  it('rejects garbage without throwing and drops unknown transports', async () => {
    const c = challenge();
    const r = await verifyPasskeyRegistration(
      { challenge: c, attestation: { credentialId: 'abc', clientDataJson: 'xx', attestationObject: 'yy' } },
      RP,
    );
    expect(r).toMatchObject({ ok: false, code: 'PASSKEY_INVALID' });
    const passkey = new SoftPasskey();
    const ok = await verifyPasskeyRegistration(
      { challenge: c, attestation: { ...passkey.register(c), transports: ['usb', 'telepathy'] } },
      RP,
    );
    expect(ok).toMatchObject({ ok: true, transports: ['usb'] });
  });
});

describe('passkey assertion', () => {
  it('verifies an assertion and returns the new counter; the next one must count up', async () => {
    const { passkey, stored } = await registered();
    const c1 = challenge();
    const r1 = await verifyPasskeyAssertion({ assertion: passkey.assert(c1), expectedChallenge: c1, credential: stored }, RP);
    expect(r1).toEqual({ ok: true, credentialId: passkey.credentialId, counter: 1 });
    const c2 = challenge();
    const r2 = await verifyPasskeyAssertion(
      { assertion: passkey.assert(c2), expectedChallenge: c2, credential: { ...stored, counter: 1 } },
      RP,
    );
    expect(r2).toEqual({ ok: true, credentialId: passkey.credentialId, counter: 2 });
  });

  it('accepts an assertion from any configured origin and without a userHandle', async () => {
    const { passkey, stored } = await registered();
    const c = challenge();
    const { userHandle: _, ...assertion } = passkey.assert(c, { origin: 'http://localhost:5173' });
    expect((await verifyPasskeyAssertion({ assertion, expectedChallenge: c, credential: stored }, RP)).ok).toBe(true);
  });

  it('rejects a forged signature (verified: false from the library)', async () => {
    const { passkey, stored } = await registered();
    const c = challenge();
    const real = passkey.assert(c);
    // Signed by a different key over the very same data: a well-formed, wrong signature.
    const impostor = new SoftPasskey();
    impostor.counter = passkey.counter - 1;
    const forged = impostor.assert(c);
    const assertion = { ...real, signature: forged.signature };
    // authenticatorData/clientData are the same bytes in both (same rp, counter, origin, challenge).
    expect(forged.authenticatorData).toBe(real.authenticatorData);
    expect(await verifyPasskeyAssertion({ assertion, expectedChallenge: c, credential: stored }, RP)).toEqual({
      ok: false,
      code: 'PASSKEY_INVALID',
      reason: 'passkey signature does not verify',
    });
  });

  it('rejects a tampered authenticatorData and a garbage signature', async () => {
    const { passkey, stored } = await registered();
    const c = challenge();
    const a = passkey.assert(c);
    const data = b64url.decode(a.authenticatorData);
    data[36] = 99; // counter byte changed after signing
    expect(
      (
        await verifyPasskeyAssertion(
          { assertion: { ...a, authenticatorData: b64url.encode(data) }, expectedChallenge: c, credential: stored },
          RP,
        )
      ).ok,
    ).toBe(false);
    expect(
      (await verifyPasskeyAssertion({ assertion: { ...a, signature: 'c2FuZGJveA' }, expectedChallenge: c, credential: stored }, RP)).ok,
    ).toBe(false);
    expect(
      (
        await verifyPasskeyAssertion(
          { assertion: { ...a, signature: 'sandbox-valid-passkey-signature' }, expectedChallenge: c, credential: stored },
          RP,
        )
      ).ok,
    ).toBe(false);
  });

  it('rejects a wrong challenge, origin or RP id', async () => {
    const { passkey, stored } = await registered();
    const c = challenge();
    // Each assertion counts up from the stored 0, so only the named check can fail.
    const check = (assertion: ReturnType<SoftPasskey['assert']>, expectedChallenge = c) =>
      verifyPasskeyAssertion({ assertion, expectedChallenge, credential: stored }, RP);
    expect(await check(passkey.assert(c), challenge())).toMatchObject({
      ok: false,
      code: 'PASSKEY_INVALID',
      reason: expect.stringMatching(/challenge/),
    });
    expect(await check(passkey.assert(c, { origin: 'https://evil.test' }))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/origin/),
    });
    expect(await check(passkey.assert(c, { rpId: 'evil.test' }))).toMatchObject({ ok: false, reason: expect.stringMatching(/RP ID/) });
    expect(await check(passkey.assert(c))).toMatchObject({ ok: true });
  });

  it('rejects a counter that does not move forward (cloned authenticator)', async () => {
    const { passkey, stored } = await registered();
    const c = challenge();
    for (const counter of [5, 4]) {
      const r = await verifyPasskeyAssertion(
        { assertion: passkey.assert(c, { counter }), expectedChallenge: c, credential: { ...stored, counter: 5 } },
        RP,
      );
      expect(r).toMatchObject({ ok: false, code: 'PASSKEY_INVALID', reason: expect.stringMatching(/counter/) });
    }
    const r = await verifyPasskeyAssertion(
      { assertion: passkey.assert(c, { counter: 6 }), expectedChallenge: c, credential: { ...stored, counter: 5 } },
      RP,
    );
    expect(r).toMatchObject({ ok: true, counter: 6 });
  });

  it('accepts a non-counting authenticator (always 0)', async () => {
    const { passkey, stored } = await registered();
    for (let i = 0; i < 2; i++) {
      const c = challenge();
      const r = await verifyPasskeyAssertion(
        { assertion: passkey.assert(c, { counter: 0 }), expectedChallenge: c, credential: stored },
        RP,
      );
      expect(r).toMatchObject({ ok: true, counter: 0 });
    }
  });

  it("rejects an assertion by another credential id or another passkey's key", async () => {
    const { passkey, stored } = await registered();
    const { stored: otherStored } = await registered();
    const c = challenge();
    const a = passkey.assert(c);
    expect(await verifyPasskeyAssertion({ assertion: a, expectedChallenge: c, credential: otherStored }, RP)).toMatchObject({
      ok: false,
      reason: 'assertion.credentialId is not this credential',
    });
    // Right id, wrong stored key: the signature cannot verify.
    expect(
      (
        await verifyPasskeyAssertion(
          { assertion: a, expectedChallenge: c, credential: { ...otherStored, credentialId: stored.credentialId } },
          RP,
        )
      ).ok,
    ).toBe(false);
  });
});

describe('WebAuthn settings', () => {
  it('sandbox defaults to localhost and the local dev origins; production has no default', () => {
    const s = settings(env);
    expect(s.webauthn).toEqual({ rpId: 'localhost', origins: ['http://localhost:3000', 'http://localhost:5173', 'http://localhost:8787'] });
    const custom = { WEBAUTHN_RP_ID: 'wallet.example.com', WEBAUTHN_ORIGINS: 'https://wallet.example.com, https://app.example.com' };
    const expected = { rpId: 'wallet.example.com', origins: ['https://wallet.example.com', 'https://app.example.com'] };
    expect(settings({ ...env, ...custom }).webauthn).toEqual(expected);
    expect(settings({ ...env, ...custom, SERVICE_ENV: 'production' }).webauthn).toEqual(expected);
    expect(settings({ ...env, SERVICE_ENV: 'production' }).webauthn).toBeNull();
    expect(settings({ ...env, SERVICE_ENV: 'production', WEBAUTHN_RP_ID: 'wallet.example.com' }).webauthn).toBeNull();
  });
});
