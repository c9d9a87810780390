import { describe, expect, it } from 'vitest';
import { constantTimeEqual, generateOtp, hashOtp, newOtpSalt, OTP_ALPHANUMERIC, otpMatches } from '../../src/crypto/otp';

describe('generateOtp', () => {
  it('honours length and alphabet', () => {
    for (const length of [4, 6, 9, 12]) {
      expect(generateOtp(length, false)).toMatch(new RegExp(`^[0-9]{${length}}$`));
      expect(generateOtp(length, true)).toMatch(new RegExp(`^[0-9A-Z]{${length}}$`));
    }
  });

  it('refuses a length that is not a small positive integer', () => {
    for (const bad of [0, -1, 4.5, 65, Number.NaN]) expect(() => generateOtp(bad, false)).toThrow(RangeError);
  });

  it('draws every symbol about equally often (chi-square sanity check)', () => {
    for (const [alphanumeric, size] of [
      [false, 10],
      [true, 36],
    ] as const) {
      const counts = new Map<string, number>();
      const codes = 20_000;
      const draws = 12 * codes;
      for (let i = 0; i < codes; i++) for (const ch of generateOtp(12, alphanumeric)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
      expect(counts.size).toBe(size);
      const expected = draws / size;
      const chi2 = [...counts.values()].reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
      // Bounds are the 1 - 1e-6 quantiles (9 and 35 degrees of freedom); a `byte % size` generator scores
      // about 105 (digits) and 475 (alphanumeric) at this sample size.
      expect(chi2).toBeLessThan(size === 10 ? 45 : 90);
    }
    expect(OTP_ALPHANUMERIC).toHaveLength(36);
  });
});

describe('hashOtp / otpMatches', () => {
  it('matches the right code only, salted per code', () => {
    const salt = newOtpSalt();
    const h = hashOtp('123456', salt);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(otpMatches('123456', salt, h)).toBe(true);
    expect(otpMatches('123457', salt, h)).toBe(false);
    expect(otpMatches('12345', salt, h)).toBe(false);
    expect(otpMatches('123456', newOtpSalt(), h)).toBe(false);
    expect(hashOtp('123456', newOtpSalt())).not.toBe(h);
  });

  it('is case-insensitive for alphanumeric codes', () => {
    const salt = newOtpSalt();
    expect(otpMatches('ab12cd', salt, hashOtp('AB12CD', salt))).toBe(true);
  });

  it('constantTimeEqual compares whole strings', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});
