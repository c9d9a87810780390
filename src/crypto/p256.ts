// P-256 public keys: clients' uncompressed keys and compressed stamp keys, validated on the curve.
import { p256 } from '@noble/curves/nist.js';
import { fromBase64url } from './base64';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/** A `clientPublicKey` is an uncompressed SEC1 P-256 point in hex. */
const CLIENT_PUBLIC_KEY_PATTERN = /^04[0-9a-fA-F]{128}$/;

const COMPRESSED_HEX = /^0[23][0-9a-fA-F]{64}$/;

type KeyResult =
  { ok: true; /** The 65-byte uncompressed point. */ bytes: Uint8Array } | { ok: false; code: 'INVALID_PUBLIC_KEY'; reason: string };

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

interface SessionKeyPair {
  /** The 32-byte private scalar: it leaves the server only sealed inside `encryptedSessionSigningKey`. */
  privateKey: Uint8Array;
  /** Compressed public key in lower-case hex (66 characters): the form stamps carry. */
  publicKey: string;
}

/** A fresh P-256 key pair for a session, made by WebCrypto (native; pure-JS key generation costs a scalar multiplication in JS). */
export async function generateSessionKeyPair(): Promise<SessionKeyPair> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey;
  const x = fromBase64url(jwk.x!);
  const y = fromBase64url(jwk.y!);
  const publicKey = new Uint8Array(33);
  publicKey[0] = 0x02 | (y[31]! & 1);
  publicKey.set(x, 1);
  return { privateKey: fromBase64url(jwk.d!), publicKey: bytesToHex(publicKey) };
}

/**
 * The 33-byte compressed form of a 65-byte uncompressed point known to be valid (e.g. one WebCrypto made):
 * the prefix carries the parity of y, so no curve arithmetic is needed.
 */
export function compressValidPoint(point: Uint8Array): Uint8Array {
  if (point.length !== 65 || point[0] !== 0x04) throw new TypeError('expected a 65-byte uncompressed point');
  const out = new Uint8Array(33);
  out[0] = 0x02 | (point[64]! & 1);
  out.set(point.subarray(1, 33), 1);
  return out;
}

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    p256.Point.fromBytes(bytes).assertValidity();
    return true;
  } catch {
    return false;
  }
}
