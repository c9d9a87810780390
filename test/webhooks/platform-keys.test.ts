import { env } from 'cloudflare:test';
import { p256 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, newPlatform, OPERATOR } from '../support/api';
import { consume, fakeEndpoint, hookUrl, verifySignature, writeEvent } from '../support/webhooks';

const T0 = Date.parse('2031-05-01T12:00:00.000Z');

const publicKeyOf = async (auth: string): Promise<string> => (await api('GET', '/config', { auth })).body.webhookPublicKey;

/** The uncompressed P-256 point inside a PEM SPKI key. */
const pointOf = (pem: string) =>
  Uint8Array.from(atob(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')), (c) => c.charCodeAt(0)).slice(-65);

afterEach(() => {
  vi.useRealTimers();
});

describe('per-platform webhook signing keys', () => {
  it("a delivery of platform B verifies under B's published key and fails under A's", async () => {
    const a = await newPlatform({ webhookEndpoint: hookUrl() });
    const urlB = hookUrl();
    const b = await newPlatform({ webhookEndpoint: urlB });
    const hook = fakeEndpoint(urlB, () => 200);
    // B stages an event naming a customer of A (any data B controls), as in the replay attack.
    const eventId = await writeEvent(b.id, T0, 'INCOMING_PAYMENT.COMPLETED', { id: 'Transaction:x', platformCustomerId: 'a-customer-7' });
    vi.setSystemTime(T0);
    await consume({ type: 'webhook.deliver', eventId });
    expect(hook.calls).toHaveLength(1);
    const { body, headers } = hook.calls[0]!;
    const signature = headers.get('X-Service-Signature')!;

    const keyA = await publicKeyOf(a.auth);
    const keyB = await publicKeyOf(b.auth);
    expect(keyA).not.toBe(keyB);
    expect(await verifySignature(keyB, body, signature)).toBe(true);
    expect(await verifySignature(keyA, body, signature)).toBe(false);
  });

  it("a platform's key is the same in every response: GET and PATCH /config, operator create and list", async () => {
    const created = await api('POST', '/operator/platforms', { auth: OPERATOR, body: { name: 'Keys', umaDomain: 'keys.example.com' } });
    expect(created.status).toBe(201);
    const pem = created.body.platform.config.webhookPublicKey as string;
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/);
    const auth = `Basic ${btoa(`${created.body.token.clientId}:${created.body.token.clientSecret}`)}`;
    expect(await publicKeyOf(auth)).toBe(pem);
    expect(await publicKeyOf(auth)).toBe(pem);
    const patched = await api('PATCH', '/config', { auth, body: { webhookEndpoint: hookUrl() } });
    expect(patched.body.webhookPublicKey).toBe(pem);

    let cursor: string | undefined;
    let listed: any;
    do {
      const page = await api('GET', `/operator/platforms?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { auth: OPERATOR });
      listed = page.body.data.find((x: any) => x.id === created.body.platform.id) ?? listed;
      cursor = page.body.nextCursor;
    } while (cursor && !listed);
    expect(listed.config.webhookPublicKey).toBe(pem);
    const others = new Set(
      (await api('GET', '/operator/platforms?limit=100', { auth: OPERATOR })).body.data.map((x: any) => x.config.webhookPublicKey),
    );
    expect(others.size).toBeGreaterThan(1);
  });

  it('derives the key from WEBHOOK_SIGNING_KEY and the platform id alone, so it survives restarts with nothing stored', async () => {
    const p = await newPlatform();
    const der = Uint8Array.from(atob(env.WEBHOOK_SIGNING_KEY!), (c) => c.charCodeAt(0));
    const serviceKey = await crypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
    const d = Uint8Array.from(
      atob(((await crypto.subtle.exportKey('jwk', serviceKey)) as JsonWebKey).d!.replace(/-/g, '+').replace(/_/g, '/')),
      (c) => c.charCodeAt(0),
    );
    const seed = hkdf(sha256, d, new TextEncoder().encode('webhook-signing-key/v1'), new TextEncoder().encode(p.id), 48);
    const expected = p256.getPublicKey(p256.utils.randomSecretKey(seed), false);
    expect(pointOf(await publicKeyOf(p.auth))).toEqual(expected);
  });
});
