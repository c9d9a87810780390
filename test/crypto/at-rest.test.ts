import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { atRestKey, decryptAtRest, encryptAtRest } from '../../src/crypto/at-rest';

async function key(secret: string | undefined = env.WALLET_ENCRYPTION_KEY): Promise<CryptoKey> {
  const r = await atRestKey(secret);
  if (!r.ok) throw new Error(r.reason);
  return r.key;
}

describe('secrets at rest', () => {
  it('round-trips under the test WALLET_ENCRYPTION_KEY binding', async () => {
    const k = await key();
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const sealed = await encryptAtRest(k, secret, 'InternalAccount:a');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(await decryptAtRest(k, sealed, 'InternalAccount:a')).toEqual({ ok: true, plaintext: secret });
    expect(await encryptAtRest(k, secret, 'InternalAccount:a')).not.toBe(sealed);
  });

  it('detects tampering, another context and another key', async () => {
    const k = await key();
    const sealed = await encryptAtRest(k, new TextEncoder().encode('wallet secret'), 'InternalAccount:a');
    const [v, iv, ct] = sealed.split('.') as [string, string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [`${v}.${iv}.${flip(ct, 3)}`, `${v}.${flip(iv, 2)}.${ct}`, `${v}.${iv}.${flip(ct, ct.length - 2)}`]) {
      expect(await decryptAtRest(k, bad, 'InternalAccount:a')).toMatchObject({ ok: false, code: 'AT_REST_UNAUTHENTIC' });
    }
    expect(await decryptAtRest(k, sealed, 'InternalAccount:b')).toMatchObject({ ok: false, code: 'AT_REST_UNAUTHENTIC' });
    const other = await key(btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))));
    expect(await decryptAtRest(other, sealed, 'InternalAccount:a')).toMatchObject({ ok: false, code: 'AT_REST_UNAUTHENTIC' });
  });

  it('reports malformed values', async () => {
    const k = await key();
    for (const bad of [
      '',
      'v1',
      'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAA',
      'v1.short.AAAAAAAAAAAAAAAAAAAAAAAA',
      'v1.AAAAAAAAAAAAAAAA.short',
    ]) {
      expect(await decryptAtRest(k, bad, 'x')).toMatchObject({ ok: false, code: 'AT_REST_MALFORMED' });
    }
  });

  it('validates WALLET_ENCRYPTION_KEY', async () => {
    for (const bad of [undefined, '', 'not base64!', btoa('too short'), btoa('x'.repeat(33))]) {
      expect(await atRestKey(bad)).toMatchObject({ ok: false, code: 'WALLET_ENCRYPTION_KEY_INVALID' });
    }
    expect((await atRestKey(env.WALLET_ENCRYPTION_KEY)).ok).toBe(true);
  });
});
