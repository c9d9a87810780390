// Service-Wallet-Signature stamps: parsed and verified (P-256 over payloadToSign).
import { p256 } from '@noble/curves/nist.js';
import { textFromBase64url } from './base64';
import { hexToBytes } from '@noble/hashes/utils.js';
import { parseCompressedPublicKey } from './p256';

/** The only scheme a `Service-Wallet-Signature` stamp may name (the open-source API-key stampers' P-256 scheme). */
export const STAMP_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';

/** A real stamp is about 300 characters; anything far longer is refused before decoding. */
const MAX_STAMP_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

interface ParsedStamp {
  /** The session public key as sent: compressed P-256, lower-case hex (66 characters). */
  publicKey: string;
  /** The same key as a 65-byte uncompressed point (WebCrypto's raw import form). */
  publicKeyBytes: Uint8Array;
  /** The signature as 64 bytes r || s (WebCrypto's ECDSA form), converted from the stamp's DER. */
  signature: Uint8Array;
}

type StampFailure =
  { ok: false; code: 'WALLET_SIGNATURE_MALFORMED'; reason: string } | { ok: false; code: 'WALLET_SIGNATURE_INVALID'; reason: string };

type ParseStampResult = { ok: true; stamp: ParsedStamp } | Extract<StampFailure, { code: 'WALLET_SIGNATURE_MALFORMED' }>;

type VerifyStampResult = { ok: true; publicKey: string } | StampFailure;

function malformed(reason: string): { ok: false; code: 'WALLET_SIGNATURE_MALFORMED'; reason: string } {
  return { ok: false, code: 'WALLET_SIGNATURE_MALFORMED', reason };
}

/**
 * Parses a `Service-Wallet-Signature` value: base64url(JSON {publicKey, scheme, signature}) with a compressed
 * P-256 key on the curve, the P-256 API-key scheme and a hex DER ECDSA signature. Anything that cannot be
 * read this way is `WALLET_SIGNATURE_MALFORMED`.
 */
export function parseStamp(header: string): ParseStampResult {
  if (typeof header !== 'string' || header.length === 0) return malformed('empty stamp');
  if (header.length > MAX_STAMP_LENGTH) return malformed('stamp is too long');
  if (!BASE64URL.test(header)) return malformed('stamp is not base64url');
  let json: string;
  try {
    // Trailing '=' are ignored, whatever their number, as stampers differ on padding.
    json = textFromBase64url(header.replace(/=+$/, ''));
  } catch {
    return malformed('stamp is not base64url of UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return malformed('stamp is not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return malformed('stamp is not a JSON object');
  const { publicKey, scheme, signature } = value as Record<string, unknown>;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') {
    return malformed('stamp must have string fields publicKey, scheme and signature');
  }
  if (scheme !== STAMP_SCHEME) return malformed(`stamp scheme must be ${STAMP_SCHEME}`);
  const key = validKey(publicKey);
  if (!key.ok) return malformed(`stamp ${key.reason}`);
  if (!HEX.test(signature) || signature.length > 2 * 72) return malformed('stamp signature must be hex DER');
  let raw: Uint8Array;
  try {
    raw = p256.Signature.fromBytes(hexToBytes(signature), 'der').toBytes('compact');
  } catch {
    return malformed('stamp signature is not a DER ECDSA P-256 signature');
  }
  return { ok: true, stamp: { publicKey: publicKey.toLowerCase(), publicKeyBytes: key.bytes, signature: raw } };
}

/**
 * Verifies a stamp over `payloadToSign` (its exact UTF-8 bytes, SHA-256, ECDSA P-256) with WebCrypto.
 * Takes the header value or an already parsed stamp. A readable stamp whose signature does not verify is
 * `WALLET_SIGNATURE_INVALID`. Checking that the key belongs to an active session is the caller's job.
 */
export async function verifyStamp(stamp: string | ParsedStamp, payloadToSign: string): Promise<VerifyStampResult> {
  let parsed: ParsedStamp;
  if (typeof stamp === 'string') {
    const r = parseStamp(stamp);
    if (!r.ok) return r;
    parsed = r.stamp;
  } else {
    parsed = stamp;
  }
  const key = await importVerifyKey(parsed.publicKey, parsed.publicKeyBytes);
  const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, parsed.signature, new TextEncoder().encode(payloadToSign));
  return ok
    ? { ok: true, publicKey: parsed.publicKey }
    : { ok: false, code: 'WALLET_SIGNATURE_INVALID', reason: 'stamp signature does not verify over payloadToSign' };
}

// A session signs many requests: decompress (a square root in JS) and import its key once per isolate;
// least recently used keys go first past the bound.
const POINT_CACHE_SIZE = 512;
const points = new Map<string, Uint8Array>();

/** `parseCompressedPublicKey`, remembering the valid points it decompressed. */
function validKey(hex: string): ReturnType<typeof parseCompressedPublicKey> {
  const cached = points.get(hex);
  if (cached) {
    points.delete(hex);
    points.set(hex, cached);
    return { ok: true, bytes: cached };
  }
  const key = parseCompressedPublicKey(hex);
  if (key.ok) {
    if (points.size >= POINT_CACHE_SIZE) points.delete(points.keys().next().value!);
    points.set(hex, key.bytes);
  }
  return key;
}

const KEY_CACHE_SIZE = 512;
const keyCache = new Map<string, Promise<CryptoKey>>();

function importVerifyKey(compressedHex: string, uncompressed: Uint8Array): Promise<CryptoKey> {
  const cached = keyCache.get(compressedHex);
  if (cached) {
    keyCache.delete(compressedHex);
    keyCache.set(compressedHex, cached);
    return cached;
  }
  const imported = crypto.subtle.importKey('raw', uncompressed, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  imported.catch(() => keyCache.delete(compressedHex));
  if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value!);
  keyCache.set(compressedHex, imported);
  return imported;
}
