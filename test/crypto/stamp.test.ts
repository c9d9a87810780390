import { describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { sealToClient } from '../../src/crypto/hpke';
import { generateSessionKeyPair } from '../../src/crypto/p256';
import { parseStamp, STAMP_SCHEME, verifyStamp } from '../../src/crypto/stamp';
import { newWalletClient, openSessionKey, stamp, type SessionKey } from '../support/wallet-client';

const PAYLOAD =
  '{"type":"ACTIVITY_TYPE_REVOKE_SESSION","organizationId":"InternalAccount:0190","parameters":{"bodyHash":"ab"},"timestampMs":"1"}';

/** A session key the way a client really gets it: sealed by the server, opened with @turnkey/crypto. */
async function sessionKey(): Promise<SessionKey> {
  const client = newWalletClient();
  return openSessionKey(client, await sealToClient(client.clientPublicKey, (await generateSessionKeyPair()).privateKey));
}

function encode(value: unknown): string {
  return btoa(typeof value === 'string' ? value : JSON.stringify(value))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function decode(header: string): Record<string, string> {
  return JSON.parse(atob(header.replace(/-/g, '+').replace(/_/g, '/')));
}

describe('verifyStamp', () => {
  it('accepts a stamp made by ApiKeyStamper over the exact payload and returns its public key', async () => {
    const key = await sessionKey();
    const header = await stamp(key, PAYLOAD);
    expect(await verifyStamp(header, PAYLOAD)).toEqual({ ok: true, publicKey: key.publicKey });
    // Second verification hits the imported-key cache and must agree.
    expect(await verifyStamp(header, PAYLOAD)).toEqual({ ok: true, publicKey: key.publicKey });
  });

  it('refuses the stamp after one byte of the payload changes', async () => {
    const key = await sessionKey();
    const header = await stamp(key, PAYLOAD);
    for (const changed of [PAYLOAD.replace('"1"', '"2"'), `${PAYLOAD} `, PAYLOAD.slice(0, -1)]) {
      const r = await verifyStamp(header, changed);
      expect(r).toMatchObject({ ok: false, code: 'WALLET_SIGNATURE_INVALID' });
    }
  });

  it('refuses a valid signature presented with another on-curve key', async () => {
    const key = await sessionKey();
    const other = await sessionKey();
    const s = decode(await stamp(key, PAYLOAD));
    const r = await verifyStamp(encode({ ...s, publicKey: other.publicKey }), PAYLOAD);
    expect(r).toMatchObject({ ok: false, code: 'WALLET_SIGNATURE_INVALID' });
  });

  it('refuses a well-formed signature by another key, and accepts the high-s twin of a valid one', async () => {
    const key = await sessionKey();
    const s = decode(await stamp(key, PAYLOAD));
    const forged = p256.sign(new TextEncoder().encode(PAYLOAD), p256.utils.randomSecretKey(), { format: 'der' });
    expect(await verifyStamp(encode({ ...s, signature: bytesToHex(forged) }), PAYLOAD)).toMatchObject({ code: 'WALLET_SIGNATURE_INVALID' });
    // ECDSA (r, n-s) verifies as well: WebCrypto accepts both forms, as OpenSSL-backed stampers emit either.
    const sig = p256.Signature.fromBytes(hexToBytes(s.signature!), 'der');
    const twin = new p256.Signature(sig.r, p256.Point.CURVE().n - sig.s).toBytes('der');
    expect(await verifyStamp(encode({ ...s, signature: bytesToHex(twin) }), PAYLOAD)).toMatchObject({ ok: true });
  });

  it('accepts a parsed stamp as well as the header', async () => {
    const key = await sessionKey();
    const parsed = parseStamp(await stamp(key, PAYLOAD));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.stamp.publicKey).toBe(key.publicKey);
    expect(parsed.stamp.signature.length).toBe(64);
    expect(await verifyStamp(parsed.stamp, PAYLOAD)).toEqual({ ok: true, publicKey: key.publicKey });
  });

  it('parses a key seen before (from the point cache) exactly like the first time; a refused key stays refused', async () => {
    const key = await sessionKey();
    const header = await stamp(key, PAYLOAD);
    const first = parseStamp(header);
    const again = parseStamp(header);
    expect(first.ok && again.ok).toBe(true);
    if (!first.ok || !again.ok) return;
    expect(bytesToHex(again.stamp.publicKeyBytes)).toBe(bytesToHex(first.stamp.publicKeyBytes));
    expect(bytesToHex(again.stamp.publicKeyBytes)).toBe(bytesToHex(p256.Point.fromHex(key.publicKey).toBytes(false)));
    expect(await verifyStamp(again.stamp, PAYLOAD)).toEqual({ ok: true, publicKey: key.publicKey });
    // x = 1 has no point above it on P-256.
    const offCurve = encode({ ...decode(header), publicKey: `02${'0'.repeat(63)}1` });
    for (let i = 0; i < 2; i++) expect(parseStamp(offCurve)).toMatchObject({ ok: false, code: 'WALLET_SIGNATURE_MALFORMED' });
  });

  describe('malformed stamps', async () => {
    const key = await sessionKey();
    const good = decode(await stamp(key, PAYLOAD));
    const uncompressed = bytesToHex(p256.Point.fromHex(key.publicKey).toBytes(false));
    const offCurveCompressed = (() => {
      // The first x coordinate with no point above it: well-formed hex, not on the curve.
      for (let x = 1n; ; x++) {
        const hex = `02${x.toString(16).padStart(64, '0')}`;
        try {
          p256.Point.fromHex(hex);
        } catch {
          return hex;
        }
      }
    })();
    const cases: Array<[string, string]> = [
      ['empty', ''],
      ['not base64url', '!!!not-base64!!!'],
      ['base64url of non-JSON', encode('hello')],
      ['base64url of a JSON array', encode([1, 2])],
      ['base64url of JSON null', encode('null')],
      ['missing publicKey', encode({ scheme: good.scheme, signature: good.signature })],
      ['missing scheme', encode({ publicKey: good.publicKey, signature: good.signature })],
      ['missing signature', encode({ publicKey: good.publicKey, scheme: good.scheme })],
      ['numeric signature', encode({ ...good, signature: 12 })],
      ['other scheme', encode({ ...good, scheme: 'SIGNATURE_SCHEME_TK_API_SECP256K1' })],
      ['uncompressed public key', encode({ ...good, publicKey: uncompressed })],
      ['public key not hex', encode({ ...good, publicKey: `02${'zz'.repeat(32)}` })],
      ['public key off the curve', encode({ ...good, publicKey: offCurveCompressed })],
      ['signature not hex', encode({ ...good, signature: 'xyz' })],
      ['signature odd hex length', encode({ ...good, signature: `${good.signature}0` })],
      ['signature raw r||s instead of DER', encode({ ...good, signature: 'ab'.repeat(64) })],
      ['signature DER truncated', encode({ ...good, signature: good.signature!.slice(0, -2) })],
      ['signature DER with trailing bytes', encode({ ...good, signature: `${good.signature}00` })],
      ['signature r = 0', encode({ ...good, signature: `3026020100022100${'ff'.repeat(32)}` })],
      ['too long', 'A'.repeat(5000)],
    ];
    for (const [name, header] of cases) {
      it(name, async () => {
        const r = await verifyStamp(header, PAYLOAD);
        expect(r).toMatchObject({ ok: false, code: 'WALLET_SIGNATURE_MALFORMED' });
        expect(parseStamp(header).ok).toBe(false);
      });
    }
  });

  it('names the scheme of the open-source API-key stampers', async () => {
    const key = await sessionKey();
    expect(decode(await stamp(key, PAYLOAD)).scheme).toBe(STAMP_SCHEME);
  });
});
