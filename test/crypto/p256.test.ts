import { describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { compressValidPoint, generateSessionKeyPair, parseClientPublicKey, parseCompressedPublicKey } from '../../src/crypto/p256';
import { newWalletClient } from '../support/wallet-client';

/** Compresses a valid P-256 point (65 or 33 bytes) to its 33-byte SEC1 form; throws on an invalid point. */
function compressPublicKey(point: Uint8Array): Uint8Array {
  return p256.Point.fromBytes(point).toBytes(true);
}

/** Decompresses a valid P-256 point (33 or 65 bytes) to its 65-byte SEC1 form; throws on an invalid point. */
function decompressPublicKey(point: Uint8Array): Uint8Array {
  return p256.Point.fromBytes(point).toBytes(false);
}

describe('parseClientPublicKey', () => {
  it('accepts a real uncompressed P-256 key in either hex case', () => {
    const { clientPublicKey } = newWalletClient();
    const r = parseClientPublicKey(clientPublicKey);
    expect(r.ok && bytesToHex(r.bytes)).toBe(clientPublicKey.toLowerCase());
    expect(parseClientPublicKey(clientPublicKey.toUpperCase().replace(/^04/, '04')).ok).toBe(true);
  });

  it('rejects values outside the pattern ^04[0-9a-fA-F]{128}$', () => {
    const { clientPublicKey } = newWalletClient();
    const compressed = bytesToHex(compressPublicKey(hexToBytes(clientPublicKey)));
    for (const bad of [
      '',
      '04',
      clientPublicKey.slice(0, -2),
      `${clientPublicKey}00`,
      `03${clientPublicKey.slice(2)}`,
      compressed,
      `04${'g'.repeat(128)}`,
      ` ${clientPublicKey}`,
      `0x${clientPublicKey}`,
    ]) {
      expect(parseClientPublicKey(bad)).toMatchObject({
        ok: false,
        code: 'INVALID_PUBLIC_KEY',
        reason: expect.stringContaining('must match'),
      });
    }
    expect(parseClientPublicKey(42 as unknown as string).ok).toBe(false);
  });

  it('rejects well-formed hex that is not a point on P-256', () => {
    const { clientPublicKey } = newWalletClient();
    const y = BigInt(`0x${clientPublicKey.slice(66)}`);
    const offCurve = `${clientPublicKey.slice(0, 66)}${((y + 1n) % 2n ** 256n).toString(16).padStart(64, '0')}`;
    for (const bad of [`04${'00'.repeat(64)}`, `04${'ff'.repeat(64)}`, offCurve]) {
      expect(parseClientPublicKey(bad)).toMatchObject({ ok: false, reason: 'clientPublicKey is not a point on P-256' });
    }
    // Coordinates at or above the field prime are not reduced silently.
    const p = p256.Point.CURVE().p;
    const g = p256.Point.BASE;
    const xPlusP = (g.x + p).toString(16);
    if (xPlusP.length <= 64)
      expect(parseClientPublicKey(`04${xPlusP.padStart(64, '0')}${g.y.toString(16).padStart(64, '0')}`).ok).toBe(false);
  });
});

describe('compressed keys', () => {
  it('compress and decompress round-trip', () => {
    const { clientPublicKey } = newWalletClient();
    const full = hexToBytes(clientPublicKey);
    const short = compressPublicKey(full);
    expect(short.length).toBe(33);
    expect(bytesToHex(decompressPublicKey(short))).toBe(clientPublicKey);
    expect(parseCompressedPublicKey(bytesToHex(short))).toEqual({ ok: true, bytes: full });
  });

  it('parseCompressedPublicKey rejects bad shapes and off-curve values', () => {
    expect(parseCompressedPublicKey('04' + 'ab'.repeat(32)).ok).toBe(false);
    expect(parseCompressedPublicKey('02' + 'ab'.repeat(31)).ok).toBe(false);
    expect(parseCompressedPublicKey('02' + 'ff'.repeat(32))).toMatchObject({ ok: false, reason: 'public key is not a point on P-256' });
  });

  it('compressPublicKey throws on an invalid point', () => {
    expect(() => compressPublicKey(new Uint8Array(65))).toThrow();
  });
});

describe('generateSessionKeyPair', () => {
  it('returns a 32-byte private key and its compressed public key, fresh each time', async () => {
    const a = await generateSessionKeyPair();
    const b = await generateSessionKeyPair();
    expect(a.privateKey.length).toBe(32);
    expect(a.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(a.publicKey).toBe(bytesToHex(p256.getPublicKey(a.privateKey, true)));
    expect(a.publicKey).not.toBe(b.publicKey);
  });

  it('gets the compressed prefix right for both parities of y', async () => {
    const prefixes = new Set<string>();
    for (let i = 0; i < 40 && prefixes.size < 2; i++) {
      const pair = await generateSessionKeyPair();
      expect(pair.publicKey).toBe(bytesToHex(p256.getPublicKey(pair.privateKey, true)));
      prefixes.add(pair.publicKey.slice(0, 2));
    }
    expect([...prefixes].sort()).toEqual(['02', '03']);
  });
});

describe('compressValidPoint', () => {
  it('matches the curve library on real points and refuses anything but an uncompressed point', async () => {
    for (let i = 0; i < 8; i++) {
      const point = p256.getPublicKey(p256.utils.randomSecretKey(), false);
      expect(bytesToHex(compressValidPoint(point))).toBe(bytesToHex(compressPublicKey(point)));
    }
    expect(() => compressValidPoint(new Uint8Array(33))).toThrow(/uncompressed/);
    expect(() => compressValidPoint(new Uint8Array(65))).toThrow(/uncompressed/);
  });
});
