// Random tokens, secret hashing and constant-time comparison.
import { toBase64url } from './base64';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** `n` random bytes as base64url (32 bytes = 256 bits of randomness). */
export function randomToken(n = 32): string {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return toBase64url(bytes);
}

export function randomHex(n: number): string {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return bytesToHex(bytes);
}

/** SHA-256 hex. Secrets here are high-entropy random strings, so a fast hash is the right storage form. */
export function hashSecret(secret: string): string {
  return bytesToHex(sha256(utf8ToBytes(secret)));
}

/** Constant-time equality of two strings (compares their SHA-256 digests, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const x = sha256(utf8ToBytes(a));
  const y = sha256(utf8ToBytes(b));
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ y[i]!;
  return diff === 0;
}
