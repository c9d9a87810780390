import { describe, expect, it } from 'vitest';
import { challengeOf, credentialsOf, emailCredential, newWallet, otpSession, sessionsOf, signed } from '../support/wallets';

describe('embedded wallet: the EMAIL_OTP path end to end', () => {
  it('a new wallet starts with an EMAIL_OTP credential bound to the customer e-mail', async () => {
    const w = await newWallet();
    const list = await credentialsOf(w);
    expect(list).toHaveLength(1);
    expect(list[0]).toEqual({
      id: expect.stringMatching(/^AuthMethod:[0-9a-f-]{36}$/),
      accountId: w.accountId,
      type: 'EMAIL_OTP',
      nickname: w.email,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
  });

  it('challenge e-mails a code; verify issues a session whose key opens with @turnkey/crypto', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    expect(s.session).toMatchObject({
      id: expect.stringMatching(/^Session:/),
      accountId: w.accountId,
      type: 'EMAIL_OTP',
      nickname: w.email,
      encryptedSessionSigningKey: expect.any(String),
    });
    expect(Date.parse(s.session.expiresAt) - Date.parse(s.session.createdAt)).toBe(900_000);
    expect(s.key.privateKey).toMatch(/^[0-9a-f]{64}$/);
    const listed = await sessionsOf(w);
    expect(listed.map((x) => x.id)).toEqual([s.session.id]);
    expect(listed[0]).not.toHaveProperty('encryptedSessionSigningKey');
  });

  it('a stamped signed retry revokes a session (204) and the key then authorises nothing', async () => {
    const w = await newWallet();
    const s = await otpSession(w);
    const del = await signed(w, 'DELETE', `/auth/sessions/${s.session.id}`, undefined, s.key);
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    expect(await sessionsOf(w)).toEqual([]);
    const again = await challengeOf(w, 'DELETE', `/auth/credentials/${(await emailCredential(w)).id}`).catch(() => null);
    expect(again).toBeNull(); // the only credential: 400 before any challenge
  });
});
