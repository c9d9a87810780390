import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/** Spec 4.2: a `clientPublicKey` is an uncompressed SEC1 P-256 point in hex. */
export const CLIENT_PUBLIC_KEY_PATTERN = /^04[0-9a-fA-F]{128}$/;

const COMPRESSED_HEX = /^0[23][0-9a-fA-F]{64}$/;

export type KeyResult =
  | { ok: true; /** The 65-byte uncompressed point. */ bytes: Uint8Array }
  | { ok: false; code: 'INVALID_PUBLIC_KEY'; reason: string };

/**
 * Validates a client's `clientPublicKey`: the spec's pattern, and a real point on P-256 (an off-curve
 * point would make HPKE leak or fail, so it is refused before anything is sealed to it).
 */
export function parseClientPublicKey(hex: string): KeyResult {
  if (typeof hex !== 'string' || !CLIENT_PUBLIC_KEY_PATTERN.test(hex)) {
    return { ok: false, code: 'INVALID_PUBLIC_KEY', reason: 'clientPublicKey must match ^04[0-9a-fA-F]{128}$' };
  }
  const bytes = hexToBytes(hex);
  if (!isOnCurve(bytes)) return { ok: false, code: 'INVALID_PUBLIC_KEY', reason: 'clientPublicKey is not a point on P-256' };
  return { ok: true, bytes };
}

/** Validates a compressed P-256 public key in hex (33 bytes, `02`/`03` prefix) and returns its uncompressed bytes. */
export function parseCompressedPublicKey(hex: string): KeyResult {
  if (typeof hex !== 'string' || !COMPRESSED_HEX.test(hex)) {
    return { ok: false, code: 'INVALID_PUBLIC_KEY', reason: 'public key must be a compressed P-256 point in hex (66 characters)' };
  }
  try {
    return { ok: true, bytes: p256.Point.fromBytes(hexToBytes(hex)).toBytes(false) };
  } catch {
    return { ok: false, code: 'INVALID_PUBLIC_KEY', reason: 'public key is not a point on P-256' };
  }
}

/** Compresses a valid P-256 point (65 or 33 bytes) to its 33-byte SEC1 form; throws on an invalid point. */
export function compressPublicKey(point: Uint8Array): Uint8Array {
  return p256.Point.fromBytes(point).toBytes(true);
}

/** Decompresses a valid P-256 point (33 or 65 bytes) to its 65-byte SEC1 form; throws on an invalid point. */
export function decompressPublicKey(point: Uint8Array): Uint8Array {
  return p256.Point.fromBytes(point).toBytes(false);
}

export interface SessionKeyPair {
  /** The 32-byte private scalar: it leaves the server only sealed inside `encryptedSessionSigningKey`. */
  privateKey: Uint8Array;
  /** Compressed public key in lower-case hex (66 characters): the form stamps carry. */
  publicKey: string;
}

/** A fresh P-256 key pair for a session. */
export function generateSessionKeyPair(): SessionKeyPair {
  const privateKey = p256.utils.randomSecretKey();
  return { privateKey, publicKey: bytesToHex(p256.getPublicKey(privateKey, true)) };
}

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    p256.Point.fromBytes(bytes).assertValidity();
    return true;
  } catch {
    return false;
  }
}
