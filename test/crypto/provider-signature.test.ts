import { describe, expect, it } from 'vitest';
import { signProviderMessage, verifyProviderMessage } from '../../src/crypto/provider-signature';

const SECRET = 'provider-secret-0123456789abcdef0123456789';
const T = Date.parse('2032-06-01T12:00:00.000Z');
const BODY = '{"paymentId":"Transaction:x","status":"COMPLETED"}';

describe('provider signatures (HMAC-SHA256 over purpose, time and body)', () => {
  it('verify what they sign, for that purpose, body and secret only', async () => {
    const header = await signProviderMessage(SECRET, 'rail-outcome', BODY, T);
    expect(header).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect(await verifyProviderMessage(SECRET, 'rail-outcome', header, BODY, T)).toEqual({ ok: true });
    expect(await verifyProviderMessage(SECRET, 'rail-instruction', header, BODY, T)).toEqual({ ok: false, problem: 'mismatch' });
    expect(await verifyProviderMessage(SECRET, 'rail-outcome', header, `${BODY} `, T)).toEqual({ ok: false, problem: 'mismatch' });
    expect(await verifyProviderMessage(`${SECRET}x`, 'rail-outcome', header, BODY, T)).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('hold 5 minutes either way of the signing time', async () => {
    const header = await signProviderMessage(SECRET, 'identity-outcome', BODY, T);
    expect((await verifyProviderMessage(SECRET, 'identity-outcome', header, BODY, T + 300_000)).ok).toBe(true);
    expect(await verifyProviderMessage(SECRET, 'identity-outcome', header, BODY, T + 301_000)).toEqual({ ok: false, problem: 'stale' });
    expect(await verifyProviderMessage(SECRET, 'identity-outcome', header, BODY, T - 301_000)).toEqual({ ok: false, problem: 'stale' });
  });

  it('take any one of several v1 values (a provider rotating its secret)', async () => {
    const header = await signProviderMessage(SECRET, 'rail-outcome', BODY, T);
    const old = await signProviderMessage('an-older-secret-0123456789abcdef012345', 'rail-outcome', BODY, T);
    const both = `${header},v1=${old.split('v1=')[1]}`;
    expect((await verifyProviderMessage(SECRET, 'rail-outcome', both, BODY, T)).ok).toBe(true);
    expect((await verifyProviderMessage(SECRET, 'rail-outcome', `${old}`, BODY, T)).ok).toBe(false);
  });

  it('refuse a missing or malformed header', async () => {
    const good = await signProviderMessage(SECRET, 'rail-outcome', BODY, T);
    const mac = good.split('v1=')[1]!;
    for (const header of [
      '',
      'v1=' + mac,
      `t=${T / 1000}`,
      `t=abc,v1=${mac}`,
      `t=${T / 1000},v1=${mac.slice(2)}`,
      `t=${T / 1000},v2=${mac}`,
      `${good},x=1`,
      `t=1,t=2,v1=${mac}`,
    ]) {
      expect(await verifyProviderMessage(SECRET, 'rail-outcome', header, BODY, T), header).toEqual({
        ok: false,
        problem: header ? 'malformed' : 'missing',
      });
    }
    expect(await verifyProviderMessage(SECRET, 'rail-outcome', null, BODY, T)).toEqual({ ok: false, problem: 'missing' });
  });
});
