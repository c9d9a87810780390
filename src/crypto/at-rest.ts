// Encryption of small secrets at rest (AES-256-GCM under a key derived from WALLET_ENCRYPTION_KEY).
import { fromBase64, fromBase64url, toBase64url } from './base64';

/** Version tag of the at-rest format; a new key or algorithm gets a new tag so old rows stay readable. */
const VERSION = 'v1';
const HKDF_INFO = new TextEncoder().encode('service wallet secret at rest v1');
const IV_BYTES = 12;
const FORMAT = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22,})$/;

type AtRestKeyResult = { ok: true; key: CryptoKey } | { ok: false; code: 'WALLET_ENCRYPTION_KEY_INVALID'; reason: string };

type DecryptResult = { ok: true; plaintext: Uint8Array } | { ok: false; code: 'AT_REST_MALFORMED' | 'AT_REST_UNAUTHENTIC'; reason: string };

/**
 * Derives the AES-256-GCM key for secrets at rest from the Worker secret `WALLET_ENCRYPTION_KEY`
 * (base64 of exactly 32 bytes) with HKDF-SHA-256, so the raw secret is never used as a cipher key directly.
 */
export async function atRestKey(secret: string | undefined): Promise<AtRestKeyResult> {
  let raw: Uint8Array;
  try {
    raw = fromBase64((secret ?? '').trim());
  } catch {
    return { ok: false, code: 'WALLET_ENCRYPTION_KEY_INVALID', reason: 'WALLET_ENCRYPTION_KEY must be base64' };
  }
  if (raw.length !== 32) {
    return { ok: false, code: 'WALLET_ENCRYPTION_KEY_INVALID', reason: 'WALLET_ENCRYPTION_KEY must encode exactly 32 bytes' };
  }
  const ikm = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  const key = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: HKDF_INFO },
    ikm,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
  return { ok: true, key };
}

/**
 * Encrypts a small secret as `v1.<iv>.<ciphertext+tag>` (base64url parts). `context` (for example the
 * account id) is bound as AES-GCM additional data, so a row copied onto another account does not decrypt.
 */
export async function encryptAtRest(key: CryptoKey, plaintext: Uint8Array, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(context) }, key, plaintext);
  return `${VERSION}.${toBase64url(iv)}.${toBase64url(new Uint8Array(ct))}`;
}

/** Opens a value from `encryptAtRest` with the same key and `context`; tampering is `AT_REST_UNAUTHENTIC`. */
export async function decryptAtRest(key: CryptoKey, sealed: string, context: string): Promise<DecryptResult> {
  const m = FORMAT.exec(sealed);
  if (!m) return { ok: false, code: 'AT_REST_MALFORMED', reason: 'not a v1 at-rest value' };
  let iv: Uint8Array;
  let ct: Uint8Array;
  try {
    iv = fromBase64url(m[1]!);
    ct = fromBase64url(m[2]!);
  } catch {
    return { ok: false, code: 'AT_REST_MALFORMED', reason: 'at-rest value is not base64url' };
  }
  try {
    const pt = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(context) }, key, ct);
    return { ok: true, plaintext: new Uint8Array(pt) };
  } catch {
    return { ok: false, code: 'AT_REST_UNAUTHENTIC', reason: 'at-rest value fails authentication (wrong key, context or tampered)' };
  }
}
