// Signatures between the service and the operator's providers (payment rail, identity provider): HMAC-SHA256.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/**
 * Both directions carry `Service-Provider-Signature: t=<unix seconds>,v1=<hex>`, where v1 is
 * HMAC-SHA256(secret, `<purpose>.<t>.<body>`) over the exact body. The purpose keeps a message signed for
 * one use from passing as another (an instruction replayed as an outcome, a payment's as an identity's);
 * the time bounds a replay to the tolerance window, within which outcomes are idempotent anyway. Several
 * `v1` values may be sent (the provider rotating its secret): one that verifies is enough.
 */
export const PROVIDER_SIGNATURE_HEADER = 'Service-Provider-Signature';

/** How far the signature's time may be from the receiver's clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignaturePurpose = 'rail-instruction' | 'rail-outcome' | 'identity-instruction' | 'identity-outcome';

/** Why a signature was refused. */
export type SignatureProblem = 'missing' | 'malformed' | 'stale' | 'mismatch';

const encoder = new TextEncoder();
// Imported once per isolate and secret (importing a key costs more than the HMAC): the secret is constant.
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

const signed = (purpose: SignaturePurpose, t: number, body: string) => encoder.encode(`${purpose}.${t}.${body}`);

/** The header value signing `body` for `purpose` at `nowMs`. */
export async function signProviderMessage(secret: string, purpose: SignaturePurpose, body: string, nowMs: number): Promise<string> {
  const t = Math.floor(nowMs / 1000);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), signed(purpose, t, body)));
  return `t=${t},v1=${bytesToHex(mac)}`;
}

/** Checks a header against `body` and `purpose` at `nowMs`; the comparison is WebCrypto's (constant time). */
export async function verifyProviderMessage(
  secret: string,
  purpose: SignaturePurpose,
  header: string | null,
  body: string,
  nowMs: number,
): Promise<{ ok: true } | { ok: false; problem: SignatureProblem }> {
  if (!header) return { ok: false, problem: 'missing' };
  const parsed = parseHeader(header);
  if (!parsed) return { ok: false, problem: 'malformed' };
  if (Math.abs(nowMs / 1000 - parsed.t) > SIGNATURE_TOLERANCE_SECONDS) return { ok: false, problem: 'stale' };
  const key = await hmacKey(secret);
  const message = signed(purpose, parsed.t, body);
  for (const mac of parsed.macs) if (await crypto.subtle.verify('HMAC', key, mac, message)) return { ok: true };
  return { ok: false, problem: 'mismatch' };
}

/** `t=<digits>` once and `v1=<64 hex>` at least once (at most 4), nothing else. */
function parseHeader(header: string): { t: number; macs: Uint8Array[] } | null {
  let t: number | undefined;
  const macs: Uint8Array[] = [];
  for (const part of header.split(',')) {
    const [name, value, ...rest] = part.trim().split('=');
    if (rest.length || value === undefined) return null;
    if (name === 't' && t === undefined && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value) && macs.length < 4) macs.push(hexToBytes(value.toLowerCase()));
    else return null;
  }
  return t === undefined || macs.length === 0 ? null : { t, macs };
}
