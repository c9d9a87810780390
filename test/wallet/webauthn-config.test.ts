import { describe, expect, it } from 'vitest';
import { expectError, workerApi, type CallOptions } from '../support/api';
import { SoftPasskey, TEST_ORIGIN, TEST_RP_ID } from '../support/passkey';
import { newWalletClient } from '../support/wallet-client';
import { newWallet, otpSession, signed } from '../support/wallets';

/** A production call with these WEBAUTHN_* settings (absent: unset). */
const production =
  (webauthn: { WEBAUTHN_RP_ID?: string; WEBAUTHN_ORIGINS?: string }) => (method: string, path: string, opts: CallOptions) =>
    workerApi(method, path, { SERVICE_ENV: 'production', WEBAUTHN_RP_ID: undefined, WEBAUTHN_ORIGINS: undefined, ...webauthn }, opts);

function expectNotConfigured(res: Awaited<ReturnType<typeof workerApi>>) {
  const body = expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
  expect(body.message).toMatch(/WEBAUTHN_RP_ID/);
  expect(body.message).toMatch(/WEBAUTHN_ORIGINS/);
}

describe('production passkeys without WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS', () => {
  it('registration, challenge and verify answer 503 SERVICE_NOT_CONFIGURED instead of trusting localhost; set, they work', async () => {
    // A wallet with a passkey registered for localhost (the sandbox's development relying party).
    const w = await newWallet();
    const s = await otpSession(w);
    const passkey = new SoftPasskey();
    const registration = {
      type: 'PASSKEY',
      accountId: w.accountId,
      nickname: 'key',
      challenge: 'cmVn',
      attestation: passkey.register('cmVn'),
    };
    const added = await signed(w, 'POST', '/auth/credentials', registration, s.key);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const credentialId = added.body.id;

    for (const settings of [
      {},
      { WEBAUTHN_RP_ID: TEST_RP_ID },
      { WEBAUTHN_ORIGINS: TEST_ORIGIN },
      { WEBAUTHN_RP_ID: ' ', WEBAUTHN_ORIGINS: ',' },
    ]) {
      const call = production(settings);
      const another = { ...registration, attestation: new SoftPasskey().register('cmVn') };
      expectNotConfigured(await call('POST', '/auth/credentials', { auth: w.p.auth, body: another }));
      expectNotConfigured(
        await call('POST', `/auth/credentials/${credentialId}/challenge`, {
          auth: w.p.auth,
          body: { clientPublicKey: newWalletClient().clientPublicKey },
        }),
      );
      // A live challenge (issued while configured) and a valid localhost assertion still do not open a session.
      const configured = production({ WEBAUTHN_RP_ID: TEST_RP_ID, WEBAUTHN_ORIGINS: TEST_ORIGIN });
      const ch = await configured('POST', `/auth/credentials/${credentialId}/challenge`, {
        auth: w.p.auth,
        body: { clientPublicKey: newWalletClient().clientPublicKey },
      });
      expect(ch.status, JSON.stringify(ch.body)).toBe(200);
      expectNotConfigured(
        await call('POST', `/auth/credentials/${credentialId}/verify`, {
          auth: w.p.auth,
          body: { type: 'PASSKEY', assertion: passkey.assert(ch.body.challenge) },
          headers: { 'Request-Id': ch.body.requestId },
        }),
      );
      // The challenge was not consumed: the configured service accepts it.
      const ok = await configured('POST', `/auth/credentials/${credentialId}/verify`, {
        auth: w.p.auth,
        body: { type: 'PASSKEY', assertion: passkey.assert(ch.body.challenge) },
        headers: { 'Request-Id': ch.body.requestId },
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    }
  });
});
