import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, expectError } from '../helpers';
import { clientKeys } from '../hostile/world';
import { newWallet } from './fixtures';

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
      const res = await api('POST', `/auth/credentials/${credentialId}/verify`, { auth: p.auth, body: { type: 'EMAIL_OTP', otp, clientPublicKey: key } });
      expectError(res, 401, 'UNAUTHORIZED');
    }
    expect(await indexRows(p.id)).toBe(before);

    const ok = await api('POST', `/auth/credentials/${credentialId}/verify`, { auth: p.auth, body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: key } });
    expect(ok.status).toBe(200);
    expect(ok.body.encryptedSessionSigningKey).toEqual(expect.any(String));
    expect(await indexRows(p.id)).toBe(before + 1);
  });
});
