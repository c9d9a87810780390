// HPKE sealing of credential bundles to a client's P-256 key (session keys, wallet export).
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { compressValidPoint, parseClientPublicKey } from './p256';

/** HPKE `info` of the credential-bundle format; clients' decryptors expect exactly this. */
const BUNDLE_INFO = new TextEncoder().encode('turnkey_hpke');

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const base58check = createBase58check(sha256);

/**
 * Seals `plaintext` to the client's P-256 key as a credential bundle: HPKE base mode,
 * DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, info "turnkey_hpke", aad = enc (65 bytes) ||
 * client key (65 bytes); output base58check(compressed enc (33 bytes) || ciphertext).
 * Used for `encryptedSessionSigningKey` (the 32-byte session private key) and for wallet export.
 * Callers validate `clientPublicKeyHex` with `parseClientPublicKey` first; an invalid key throws.
 */
export async function sealToClient(clientPublicKeyHex: string, plaintext: Uint8Array): Promise<string> {
  const key = parseClientPublicKey(clientPublicKeyHex);
  if (!key.ok) throw new TypeError(key.reason);
  const recipientPublicKey = await suite.kem.importKey('raw', key.bytes.slice().buffer, true);
  const sender = await suite.createSenderContext({ recipientPublicKey, info: BUNDLE_INFO });
  const enc = new Uint8Array(sender.enc);
  const aad = new Uint8Array(enc.length + key.bytes.length);
  aad.set(enc);
  aad.set(key.bytes, enc.length);
  const ciphertext = new Uint8Array(await sender.seal(plaintext, aad));
  // enc is the ephemeral key WebCrypto just made: valid by construction.
  const compressedEnc = compressValidPoint(enc);
  const payload = new Uint8Array(compressedEnc.length + ciphertext.length);
  payload.set(compressedEnc);
  payload.set(ciphertext, compressedEnc.length);
  return base58check.encode(payload);
}
