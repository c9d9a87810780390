import { p256 } from '@noble/curves/nist.js';

/** The imported webhook key pair of one secret value; imported once per isolate (DESIGN.md 6). */
interface WebhookKeys {
  privateKey: CryptoKey;
  publicKeyPem: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const cache = new Map<string, Promise<WebhookKeys>>();

function fromBase64(text: string): Uint8Array {
  const bin = atob(text.replace(/\s+/g, ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

async function importKeys(secret: string): Promise<WebhookKeys> {
  const der = fromBase64(secret);
  // Extractable once, only to derive the public half; the signing key kept below is not extractable.
  const extractable = await crypto.subtle.importKey('pkcs8', der, ALGORITHM, true, ['sign']);
  const { d: _d, key_ops: _ops, ...publicJwk } = (await crypto.subtle.exportKey('jwk', extractable)) as JsonWebKey;
  const publicKey = await crypto.subtle.importKey('jwk', publicJwk, ALGORITHM, true, ['verify']);
  const spki = new Uint8Array((await crypto.subtle.exportKey('spki', publicKey)) as ArrayBuffer);
  const privateKey = await crypto.subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
  return { privateKey, publicKeyPem: pem('PUBLIC KEY', spki) };
}

function keys(secret: string): Promise<WebhookKeys> {
  let found = cache.get(secret);
  if (!found) {
    found = importKeys(secret);
    // A bad secret must not poison the cache: the next call retries (and fails loudly again).
    found.catch(() => cache.delete(secret));
    cache.set(secret, found);
  }
  return found;
}

function pem(label: string, der: Uint8Array): string {
  const lines = toBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The PEM (SPKI) public key platforms verify `X-Service-Signature` with. */
export async function webhookPublicKeyPem(secret: string): Promise<string> {
  return (await keys(secret)).publicKeyPem;
}

/** `X-Service-Signature`: base64 of the DER ECDSA P-256 signature over SHA-256 of the exact body bytes. */
export async function signWebhookBody(secret: string, body: string): Promise<string> {
  const { privateKey } = await keys(secret);
  const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, new TextEncoder().encode(body)));
  // WebCrypto yields r||s (64 bytes); the header carries the DER form.
  return toBase64(p256.Signature.fromBytes(raw, 'compact').toBytes('der'));
}
