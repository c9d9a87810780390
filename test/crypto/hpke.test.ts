import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { sealToClient } from '../../src/crypto/hpke';
import { generateSessionKeyPair } from '../../src/crypto/p256';
import { newWalletClient, openBundle, openSessionKey } from '../support/wallet-client';

describe('sealToClient (credential bundle)', () => {
  it('seals a session key that decryptCredentialBundle opens, yielding the matching key pair', async () => {
    const client = newWalletClient();
    const session = await generateSessionKeyPair();
    const bundle = await sealToClient(client.clientPublicKey, session.privateKey);
    const opened = openSessionKey(client, bundle);
    expect(opened.privateKey).toBe(bytesToHex(session.privateKey));
    expect(opened.publicKey).toBe(session.publicKey);
  });

  it('has the wire layout: base58check of a 33-byte compressed enc followed by AES-256-GCM ciphertext', async () => {
    const client = newWalletClient();
    const bundle = await sealToClient(client.clientPublicKey, new Uint8Array(32).fill(7));
    const bytes = createBase58check(sha256).decode(bundle);
    expect(bytes.length).toBe(33 + 32 + 16);
    expect([2, 3]).toContain(bytes[0]);
  });

  it('seals arbitrary plaintext (wallet export) and uses a fresh ephemeral key every time', async () => {
    const client = newWalletClient();
    const secret = new TextEncoder().encode('abandon ability able about above absent absorb abstract absurd abuse access accident');
    const a = await sealToClient(client.clientPublicKey, secret);
    const b = await sealToClient(client.clientPublicKey, secret);
    expect(a).not.toBe(b);
    expect(new TextDecoder().decode(hexToBytes(openBundle(client, a)))).toBe(new TextDecoder().decode(secret));
  });

  it('cannot be opened with another client key', async () => {
    const bundle = await sealToClient(newWalletClient().clientPublicKey, new Uint8Array(32).fill(1));
    expect(() => openBundle(newWalletClient(), bundle)).toThrow();
  });

  it('refuses an invalid client public key', async () => {
    await expect(sealToClient(`04${'00'.repeat(64)}`, new Uint8Array(32))).rejects.toThrow(/not a point/);
    await expect(sealToClient('02abc', new Uint8Array(32))).rejects.toThrow(/must match/);
  });
});
