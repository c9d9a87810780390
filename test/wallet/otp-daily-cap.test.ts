import { describe, expect, it } from 'vitest';
import { expectError } from '../support/api';
import { newWalletClient } from '../support/wallet-client';
import { advance, call, emailCredential, latestOtp, newWallet, otpSession } from '../support/wallets';

describe('EMAIL_OTP daily cap', () => {
  it(
    'after 100 wrong codes in 24 hours, challenge and verify answer 429 with Retry-After, even with the right code, until the oldest is a day old',
    { timeout: 60_000 },
    async () => {
      const w = await newWallet();
      const email = await emailCredential(w);
      const challenge = () => call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth });
      const verify = (otp: string) =>
        call(w.mode, 'POST', `/auth/credentials/${email.id}/verify`, {
          auth: w.p.auth,
          body: { type: 'EMAIL_OTP', otp, clientPublicKey: newWalletClient().clientPublicKey },
        });

      // 25 codes, each 721 s apart (inside the re-issue limits: five e-mails an hour to one address), each given
      // 4 wrong tries (one short of burning it).
      const step = 721;
      let code = '';
      for (let c = 0; c < 25; c++) {
        await advance(w.p, step);
        expect((await challenge()).status).toBe(200);
        code = await latestOtp(w);
        const wrong = code === '123456' ? '654321' : '123456';
        for (let t = 0; t < 4; t++) expectError(await verify(wrong), 401, 'UNAUTHORIZED');
      }

      await advance(w.p, step);
      for (const res of [await verify(code), await verify('000000'), await challenge()]) {
        expectError(res, 429, 'RATE_LIMITED');
        const wait = Number(res.headers.get('Retry-After'));
        // The oldest counted failure is 25 steps old: the flow reopens when it is 24 hours old.
        expect(wait).toBeGreaterThan(86_400 - 26 * step - 5);
        expect(wait).toBeLessThanOrEqual(86_400 - 25 * step);
      }
      const locked = await challenge();
      await advance(w.p, Number(locked.headers.get('Retry-After')));
      const session = await otpSession(w, { credentialId: email.id });
      expect(session.session.id).toMatch(/^Session:/);
    },
  );
});
