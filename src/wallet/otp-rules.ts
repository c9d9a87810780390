// The limits of EMAIL_OTP codes: how often a code may be sent, how many wrong codes burn one, and the daily
// cap of wrong codes per credential (the numbers are in account-protocol.ts; docs/guides/wallets.md states them).
import { otpMatches } from '../crypto/otp';
import type { OtpCodeRow } from './account-store';
import {
  fail,
  OTP_DAY_MS,
  OTP_MAX_ATTEMPTS,
  OTP_RESEND_INTERVAL_MS,
  OTP_WINDOW_MAX_SENDS,
  OTP_WINDOW_MS,
  type Failure,
} from './account-protocol';

const rateLimited = (message: string, retryAfterSeconds: number): Failure => ({ ...fail('RATE_LIMITED', message), retryAfterSeconds });

/** Whether another code may be sent now, given the send times of the current window (oldest first). */
export function sendRefused(sends: number[], now: number): Failure | null {
  const last = sends[sends.length - 1];
  if (last !== undefined && now - last < OTP_RESEND_INTERVAL_MS) {
    const wait = Math.ceil((last + OTP_RESEND_INTERVAL_MS - now) / 1000);
    return rateLimited(`Too many codes requested; retry in ${wait} s`, wait);
  }
  if (sends.length >= OTP_WINDOW_MAX_SENDS) {
    const wait = Math.ceil((sends[0]! + OTP_WINDOW_MS - now) / 1000);
    return rateLimited(`Too many codes requested; retry in ${wait} s`, wait);
  }
  return null;
}

/**
 * 429 while the credential has had OTP_DAY_MAX_FAILURES wrong codes in the last day, until the oldest of them
 * is a day old; `capFailure` is the time of the OTP_DAY_MAX_FAILURES-th most recent one in the day, if any.
 */
export function dayLocked(capFailure: number | undefined, now: number): Failure | null {
  if (capFailure === undefined) return null;
  const wait = Math.max(1, Math.ceil((capFailure + OTP_DAY_MS - now) / 1000));
  return rateLimited(`Too many wrong codes for this credential in 24 hours; retry in ${wait} s`, wait);
}

/** The answer to a code: it opens (`ok`), it is wrong (counts an attempt), or there is no usable code. */
export function checkCode(code: OtpCodeRow | undefined, otp: string, now: number): 'ok' | 'wrong' | 'unusable' {
  if (!code || code.expires_at <= now || code.attempts >= OTP_MAX_ATTEMPTS) return 'unusable';
  return otpMatches(otp, code.salt, code.code_hash) ? 'ok' : 'wrong';
}
