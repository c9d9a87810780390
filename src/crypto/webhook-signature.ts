// Webhook signatures: each platform's P-256 key derived from the service secret, and signing with it.
import { p256 } from '@noble/curves/nist.js';
import { fromBase64, fromBase64url, toBase64 } from './base64';

/**
 * Each platform signs with its own P-256 key, derived from the service secret (WEBHOOK_SIGNING_KEY) and
 * the platform id: nothing is stored, and a delivery verifies only under its own platform's public key.
 * Derivation: seed = HKDF-SHA256(ikm = the secret's private scalar, salt = DERIVATION_SALT, info = platform
 * id, 48 bytes), reduced to a scalar in [1, n-1] by noble's `randomSecretKey(seed)` (mapHashToField).
 */
const DERIVATION_SALT = new TextEncoder().encode('webhook-signing-key/v1');

/** A platform's imported key pair; imported once per isolate, not per request. */
interface WebhookKeys {
  privateKey: CryptoKey;
  publicKeyPem: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
/** Platforms whose keys an isolate keeps; the oldest is dropped beyond it (re-deriving costs well under a millisecond). */
const MAX_CACHED_PLATFORMS = 1000;
/** PKCS#8 DER of a P-256 private key up to its 32-byte scalar (RFC 5915 ECPrivateKey, no optional fields). */
const PKCS8_P256_PREFIX = Uint8Array.from([
  0x30, 0x41, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
  0x03, 0x01, 0x07, 0x04, 0x27, 0x30, 0x25, 0x02, 0x01, 0x01, 0x04, 0x20,
]);

/** Per secret value (one in practice): its HKDF key and the platforms' keys derived from it so far. */
const keyrings = new Map<string, { root: Promise<CryptoKey>; platforms: Map<string, Promise<WebhookKeys>> }>();

/** The secret's private scalar as non-extractable HKDF key material. */
async function importRoot(secret: string): Promise<CryptoKey> {
  const serviceKey = await crypto.subtle.importKey('pkcs8', fromBase64(secret.replace(/\s+/g, '')), ALGORITHM, true, ['sign']);
  const scalar = fromBase64url(((await crypto.subtle.exportKey('jwk', serviceKey)) as JsonWebKey).d!);
  try {
    return await crypto.subtle.importKey('raw', scalar, 'HKDF', false, ['deriveBits']);
  } finally {
    scalar.fill(0);
  }
}

async function derivePlatformKeys(root: CryptoKey, platformId: string): Promise<WebhookKeys> {
  const info = new TextEncoder().encode(platformId);
  const seed = new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: DERIVATION_SALT, info }, root, 48 * 8));
  const pkcs8 = new Uint8Array(PKCS8_P256_PREFIX.length + 32);
  pkcs8.set(PKCS8_P256_PREFIX);
  pkcs8.set(p256.utils.randomSecretKey(seed), PKCS8_P256_PREFIX.length);
  try {
    // Extractable once, only for WebCrypto to compute the public half; the signing key kept is not extractable.
    const extractable = await crypto.subtle.importKey('pkcs8', pkcs8, ALGORITHM, true, ['sign']);
    const { d: _d, key_ops: _ops, ...publicJwk } = (await crypto.subtle.exportKey('jwk', extractable)) as JsonWebKey;
    const publicKey = await crypto.subtle.importKey('jwk', publicJwk, ALGORITHM, true, ['verify']);
    const spki = new Uint8Array((await crypto.subtle.exportKey('spki', publicKey)) as ArrayBuffer);
    const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, ALGORITHM, false, ['sign']);
    return { privateKey, publicKeyPem: pem('PUBLIC KEY', spki) };
  } finally {
    seed.fill(0);
    pkcs8.fill(0);
  }
}

function keys(secret: string, platformId: string): Promise<WebhookKeys> {
  let ring = keyrings.get(secret);
  if (!ring) {
    ring = { root: importRoot(secret), platforms: new Map() };
    keyrings.set(secret, ring);
  }
  const { root, platforms } = ring;
  let found = platforms.get(platformId);
  if (found) {
    // Most recently used last, so the bound drops the coldest.
    platforms.delete(platformId);
  } else {
    found = root.then((key) => derivePlatformKeys(key, platformId));
    // A bad secret must not poison the cache: the next call retries (and fails loudly again).
    found.catch(() => {
      keyrings.delete(secret);
    });
    if (platforms.size >= MAX_CACHED_PLATFORMS) platforms.delete(platforms.keys().next().value!);
  }
  platforms.set(platformId, found);
  return found;
}

function pem(label: string, der: Uint8Array): string {
  const lines = toBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The PEM (SPKI) public key a platform verifies its `X-Service-Signature` headers with. */
export async function webhookPublicKeyPem(secret: string, platformId: string): Promise<string> {
  return (await keys(secret, platformId)).publicKeyPem;
}

/** `X-Service-Signature`: base64 of the DER ECDSA P-256 signature, by the platform's key, over SHA-256 of the exact body bytes. */
export async function signWebhookBody(secret: string, platformId: string, body: string): Promise<string> {
  const { privateKey } = await keys(secret, platformId);
  const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, new TextEncoder().encode(body)));
  // WebCrypto yields r||s (64 bytes); the header carries the DER form.
  return toBase64(p256.Signature.fromBytes(raw, 'compact').toBytes('der'));
}
