import { bytesToHex } from '@noble/hashes/utils.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';

/**
 * The end user's device as a real integrator builds it, with the open-source client libraries: an
 * ephemeral P-256 key pair whose public half is the `clientPublicKey`, bundle decryption, and stamping.
 */
export interface WalletClient {
  /** Uncompressed P-256 public key, hex, `04` + 128 characters: the `clientPublicKey` field. */
  clientPublicKey: string;
  /** The matching private key, hex (never sent anywhere). */
  privateKey: string;
}

/** A session key recovered from `encryptedSessionSigningKey`. */
export interface SessionKey {
  /** Private key, hex (32 bytes). */
  privateKey: string;
  /** Compressed public key, hex (33 bytes): what stamps carry. */
  publicKey: string;
}

/** A fresh client key pair, as `@turnkey/crypto` makes it. */
export function newWalletClient(): WalletClient {
  const pair = generateP256KeyPair();
  return { clientPublicKey: pair.publicKeyUncompressed, privateKey: pair.privateKey };
}

/** Opens a credential bundle (`encryptedSessionSigningKey` or an export) with `decryptCredentialBundle`; returns the plaintext hex. */
export function openBundle(client: WalletClient, bundle: string): string {
  return decryptCredentialBundle(bundle, client.privateKey);
}

/** Opens `encryptedSessionSigningKey` and derives the session's compressed public key from it. */
export function openSessionKey(client: WalletClient, bundle: string): SessionKey {
  const privateKey = openBundle(client, bundle);
  const publicKey = bytesToHex(getPublicKey(privateKey, true));
  return { privateKey, publicKey };
}

/** The `Service-Wallet-Signature` value over `payloadToSign`, made by `ApiKeyStamper`. */
export async function stamp(session: SessionKey, payloadToSign: string): Promise<string> {
  const stamper = new ApiKeyStamper({ apiPublicKey: session.publicKey, apiPrivateKey: session.privateKey });
  return (await stamper.stamp(payloadToSign)).stampHeaderValue;
}
