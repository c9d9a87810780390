// One-time codes: generation without modulo bias, per-code salts and the stored HMAC.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

const OTP_DIGITS = '0123456789';
export const OTP_ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A one-time code of `length` characters drawn uniformly from the digits, or the digits and upper-case
 * letters. Rejection sampling over random bytes avoids the modulo bias of `byte % alphabet.length`.
 */
export function generateOtp(length: number, alphanumeric: boolean): string {
  if (!Number.isInteger(length) || length < 1 || length > 64) throw new RangeError('OTP length must be an integer from 1 to 64');
  const alphabet = alphanumeric ? OTP_ALPHANUMERIC : OTP_DIGITS;
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  const buf = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      if (b >= limit) continue;
      out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A fresh per-code salt (16 random bytes, hex). */
export function newOtpSalt(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * The stored form of a code: HMAC-SHA-256 keyed by its per-code salt, hex. Letters are upper-cased first
 * so a user typing an alphanumeric code in lower case still matches.
 */
export function hashOtp(otp: string, salt: string): string {
  return bytesToHex(hmac(sha256, hexToBytes(salt), utf8ToBytes(otp.toUpperCase())));
}

/** True when `otp` hashes to `storedHash` under `salt`; the comparison takes the same time wherever they differ. */
export function otpMatches(otp: string, salt: string, storedHash: string): boolean {
  return constantTimeEqual(hashOtp(otp, salt), storedHash);
}

/** Constant-time equality of two strings of the same length (different lengths are simply unequal). */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
