import { describe, expect, it } from 'vitest';
import { checkCode, dayLocked, sendRefused } from '../../src/wallet/otp-rules';
import { hashOtp, newOtpSalt } from '../../src/crypto/otp';
import {
  OTP_DAY_MS,
  OTP_MAX_ATTEMPTS,
  OTP_RESEND_INTERVAL_MS,
  OTP_WINDOW_MAX_SENDS,
  OTP_WINDOW_MS,
} from '../../src/wallet/account-protocol';

const T = 1_800_000_000_000;

describe('OTP rules', () => {
  it('a code may be re-sent after the interval, and at most OTP_WINDOW_MAX_SENDS per window', () => {
    expect(sendRefused([], T)).toBeNull();
    expect(sendRefused([T - OTP_RESEND_INTERVAL_MS + 1_000], T)).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect(sendRefused([T - OTP_RESEND_INTERVAL_MS], T)).toBeNull();
    const full = Array.from({ length: OTP_WINDOW_MAX_SENDS }, (_, i) => T - OTP_WINDOW_MS + 60_000 * (i + 1));
    expect(sendRefused(full, T + OTP_RESEND_INTERVAL_MS)).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 30 });
    expect(sendRefused(full.slice(1), T + OTP_RESEND_INTERVAL_MS)).toBeNull();
  });

  it('the daily cap locks until the capping failure is a day old', () => {
    expect(dayLocked(undefined, T)).toBeNull();
    expect(dayLocked(T - OTP_DAY_MS + 90_000, T)).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 90 });
    expect(dayLocked(T - OTP_DAY_MS + 1, T)).toMatchObject({ retryAfterSeconds: 1 });
  });

  it('a code opens once it matches; a wrong one counts; an expired or burnt one is unusable', () => {
    const salt = newOtpSalt();
    const code = { code_hash: hashOtp('123456', salt), salt, expires_at: T + 1, attempts: 0 };
    expect(checkCode(code, '123456', T)).toBe('ok');
    expect(checkCode(code, '654321', T)).toBe('wrong');
    expect(checkCode({ ...code, expires_at: T }, '123456', T)).toBe('unusable');
    expect(checkCode({ ...code, attempts: OTP_MAX_ATTEMPTS }, '123456', T)).toBe('unusable');
    expect(checkCode(undefined, '123456', T)).toBe('unusable');
  });
});
