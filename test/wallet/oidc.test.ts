import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { env } from 'cloudflare:test';
import { parseOidcIssuers, settings } from '../../src/env';
import { oidcNonce, verifyOidcToken, type OidcCheck } from '../../src/wallet/oidc';
import { newWalletClient } from '../support/wallet-client';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const T = NOW / 1000;
const ISS = 'https://issuer.test';
const ISSUERS = { [ISS]: `${ISS}/.well-known/jwks.json` };

function b64(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A sandbox-style token: real header and claims, dummy signature segment. */
function unsigned(claims: Record<string, unknown>, signature = 'sandbox-signature'): string {
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.${signature}`;
}

function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: ISS, aud: 'client-app', sub: 'user-123', iat: T, exp: T + 600, email: 'ada@example.com', ...over };
}

const sandbox = (over: Partial<OidcCheck> = {}): OidcCheck => ({ mode: 'sandbox', issuers: ISSUERS, now: NOW, ...over });

afterEach(() => vi.restoreAllMocks());

describe('OIDC tokens, sandbox (signature skipped, claims validated)', () => {
  it('accepts valid claims and returns the identity and email', async () => {
    expect(await verifyOidcToken(unsigned(claims()), sandbox())).toEqual({
      ok: true,
      identity: { iss: ISS, aud: 'client-app', sub: 'user-123' },
      email: 'ada@example.com',
    });
  });

  it('normalises a single-element aud array and tolerates an absent email', async () => {
    const r = await verifyOidcToken(unsigned(claims({ aud: ['client-app'], email: undefined })), sandbox());
    expect(r).toEqual({ ok: true, identity: { iss: ISS, aud: 'client-app', sub: 'user-123' }, email: undefined });
  });

  it('accepts an empty signature segment and does not fetch any keys', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    expect((await verifyOidcToken(unsigned(claims(), ''), sandbox())).ok).toBe(true);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  const failing: Array<[string, Record<string, unknown>, string]> = [
    ['iss missing', { iss: undefined }, 'iss is not a supported issuer'],
    ['iss unsupported', { iss: 'https://evil.test' }, 'iss is not a supported issuer'],
    ['iss not a string', { iss: 7 }, 'iss is not a supported issuer'],
    ['iss an inherited property name', { iss: 'constructor' }, 'iss is not a supported issuer'],
    ['aud missing', { aud: undefined }, 'aud must be a non-empty string'],
    ['aud empty string', { aud: '' }, 'aud must be a non-empty string'],
    ['aud empty array', { aud: [] }, 'aud must be a non-empty string'],
    ['aud two elements', { aud: ['a', 'b'] }, 'aud must be a non-empty string'],
    ['aud array of a number', { aud: [5] }, 'aud must be a non-empty string'],
    ['aud array of an empty string', { aud: [''] }, 'aud must be a non-empty string'],
    ['sub missing', { sub: undefined }, 'sub must be a non-empty string'],
    ['sub empty', { sub: '' }, 'sub must be a non-empty string'],
    ['sub a number', { sub: 12 }, 'sub must be a non-empty string'],
    ['iat missing', { iat: undefined }, 'iat must be a number'],
    ['iat a string', { iat: String(T) }, 'iat must be a number'],
    ['iat 66 s old', { iat: T - 66 }, 'iat is more than 60 seconds before the request'],
    ['iat 6 s ahead', { iat: T + 6 }, 'iat is in the future'],
    ['exp missing', { exp: undefined }, 'exp must be a number'],
    ['exp a string', { exp: String(T + 600) }, 'exp must be a number'],
    ['exp equal to now', { exp: T }, 'exp is not later than the request time'],
    ['exp in the past', { exp: T - 1 }, 'exp is not later than the request time'],
  ];
  for (const [name, over, reason] of failing) {
    it(`rejects ${name}`, async () => {
      const r = await verifyOidcToken(unsigned(claims(over)), sandbox());
      expect(r).toEqual({
        ok: false,
        code: 'OIDC_TOKEN_INVALID',
        reason: `OIDC token ${reason}${reason.startsWith('aud') ? ' or a single-element string array' : ''}`,
      });
    });
  }

  it('allows the 5 s skew: iat 65 s old and 5 s ahead pass', async () => {
    expect((await verifyOidcToken(unsigned(claims({ iat: T - 65 })), sandbox())).ok).toBe(true);
    expect((await verifyOidcToken(unsigned(claims({ iat: T + 5 })), sandbox())).ok).toBe(true);
  });

  it('on verify requires nonce = SHA-256 hex of the exact clientPublicKey', async () => {
    const { clientPublicKey } = newWalletClient();
    const nonce = oidcNonce(clientPublicKey);
    expect(nonce).toMatch(/^[0-9a-f]{64}$/);
    const check = sandbox({ clientPublicKey });
    expect((await verifyOidcToken(unsigned(claims({ nonce })), check)).ok).toBe(true);
    expect((await verifyOidcToken(unsigned(claims({ nonce: nonce.toUpperCase() })), check)).ok).toBe(true);
    const reason = 'OIDC token nonce must be the SHA-256 hex of clientPublicKey';
    for (const bad of [undefined, '', 42, oidcNonce(clientPublicKey.toUpperCase()), oidcNonce(newWalletClient().clientPublicKey)]) {
      expect(await verifyOidcToken(unsigned(claims({ nonce: bad })), check)).toEqual({ ok: false, code: 'OIDC_TOKEN_INVALID', reason });
    }
  });

  it('on verify requires the credential identity (iss, aud, sub)', async () => {
    const { clientPublicKey } = newWalletClient();
    const expected = { iss: ISS, aud: 'client-app', sub: 'user-123' };
    const issuers = { ...ISSUERS, 'https://other.test': 'https://other.test/jwks' };
    const check = sandbox({ clientPublicKey, expected, issuers });
    const nonce = oidcNonce(clientPublicKey);
    expect((await verifyOidcToken(unsigned(claims({ nonce })), check)).ok).toBe(true);
    for (const over of [{ iss: 'https://other.test' }, { aud: 'other-app' }, { sub: 'user-124' }]) {
      expect(await verifyOidcToken(unsigned(claims({ nonce, ...over })), check)).toEqual({
        ok: false,
        code: 'OIDC_TOKEN_INVALID',
        reason: 'OIDC token identity (iss, aud, sub) does not match the credential',
      });
    }
  });

  it('rejects the retired literal sandbox token', async () => {
    expect(await verifyOidcToken('sandbox-valid-oidc-token', sandbox())).toMatchObject({ ok: false, code: 'OIDC_TOKEN_INVALID' });
  });

  const malformed: Array<[string, string]> = [
    ['empty', ''],
    ['one segment', 'abc'],
    ['two segments', `${b64({ alg: 'none' })}.${b64(claims())}`],
    ['four segments', `${unsigned(claims())}.x`],
    ['header not base64url', `***.${b64(claims())}.sig`],
    ['header not JSON', `${btoa('nope')}.${b64(claims())}.sig`],
    ['empty header', `.${b64(claims())}.sig`],
    ['payload a JSON array', `${b64({ alg: 'none' })}.${b64([1])}.sig`],
    ['payload a JSON string', `${b64({ alg: 'none' })}.${b64('x')}.sig`],
    ['signature with non-base64url characters', unsigned(claims(), 'a+b/c=')],
  ];
  for (const [name, token] of malformed) {
    it(`reports a malformed JWT: ${name}`, async () => {
      expect(await verifyOidcToken(token, sandbox())).toMatchObject({ ok: false, code: 'OIDC_TOKEN_MALFORMED' });
    });
  }
});

interface Issuer {
  iss: string;
  jwksUrl: string;
  sign(payload: JWTPayload, opts?: { kid?: string }): Promise<string>;
  jwks: { keys: unknown[] };
}

/** A local issuer with a real key pair; each gets its own URLs so jose's per-URL key cache never crosses tests. */
async function newIssuer(alg: 'ES256' | 'RS256'): Promise<Issuer> {
  const iss = `https://${crypto.randomUUID()}.issuer.test`;
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `k-${alg}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return {
    iss,
    jwksUrl: `${iss}/keys`,
    jwks: { keys: [jwk] },
    sign: (payload, opts = {}) => new SignJWT(payload).setProtectedHeader({ alg, kid: opts.kid ?? kid, typ: 'JWT' }).sign(privateKey),
  };
}

/** Serves each issuer's JWKS at its URL through the global fetch, as the Worker would reach the provider. */
function serveJwks(...issuers: Issuer[]) {
  return vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    const url = input instanceof Request ? input.url : String(input);
    const issuer = issuers.find((i) => i.jwksUrl === url);
    return issuer ? Response.json(issuer.jwks) : new Response('not found', { status: 404 });
  });
}

describe('OIDC tokens, production (signature against the issuer JWKS)', () => {
  for (const alg of ['ES256', 'RS256'] as const) {
    it(`accepts a ${alg} token signed by a key in the issuer's JWKS`, async () => {
      const issuer = await newIssuer(alg);
      const fetchSpy = serveJwks(issuer);
      const { clientPublicKey } = newWalletClient();
      const token = await issuer.sign({ ...claims({ iss: issuer.iss, nonce: oidcNonce(clientPublicKey) }) });
      const check: OidcCheck = { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW, clientPublicKey };
      expect(await verifyOidcToken(token, check)).toEqual({
        ok: true,
        identity: { iss: issuer.iss, aud: 'client-app', sub: 'user-123' },
        email: 'ada@example.com',
      });
      const requested = fetchSpy.mock.calls.map(([input]) => (input instanceof Request ? input.url : String(input)));
      expect(requested).toEqual([issuer.jwksUrl]);
    });
  }

  it('rejects a token signed by a key that is not the issuer key (same kid)', async () => {
    const issuer = await newIssuer('ES256');
    const impostor = await newIssuer('ES256');
    serveJwks(issuer);
    const token = await impostor.sign(claims({ iss: issuer.iss }));
    const r = await verifyOidcToken(token, { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW });
    expect(r).toEqual({ ok: false, code: 'OIDC_TOKEN_INVALID', reason: 'OIDC token signature does not verify against the issuer keys' });
  });

  it('rejects a token whose kid is not in the JWKS', async () => {
    const issuer = await newIssuer('RS256');
    serveJwks(issuer);
    const token = await issuer.sign(claims({ iss: issuer.iss }), { kid: 'unknown' });
    const r = await verifyOidcToken(token, { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW });
    expect(r).toMatchObject({ ok: false, code: 'OIDC_TOKEN_INVALID' });
  });

  it('rejects a dummy-signature token and a tampered payload', async () => {
    const issuer = await newIssuer('ES256');
    serveJwks(issuer);
    const check: OidcCheck = { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW };
    expect(await verifyOidcToken(unsigned(claims({ iss: issuer.iss })), check)).toMatchObject({ ok: false, code: 'OIDC_TOKEN_INVALID' });
    const [h, , s] = (await issuer.sign(claims({ iss: issuer.iss }))).split('.');
    const tampered = `${h}.${b64(claims({ iss: issuer.iss, sub: 'someone-else' }))}.${s}`;
    expect(await verifyOidcToken(tampered, check)).toMatchObject({
      ok: false,
      code: 'OIDC_TOKEN_INVALID',
      reason: expect.stringContaining('signature'),
    });
  });

  it('refuses symmetric algorithms (HS256) even with the right claims', async () => {
    const issuer = await newIssuer('ES256');
    serveJwks(issuer);
    const token = await new SignJWT(claims({ iss: issuer.iss })).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32));
    const r = await verifyOidcToken(token, { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW });
    expect(r).toMatchObject({ ok: false, code: 'OIDC_TOKEN_INVALID' });
  });

  it('holds iat to 60 s exactly: 60 s old passes, 61 s old fails, before any key fetch', async () => {
    const issuer = await newIssuer('ES256');
    const fetchSpy = serveJwks(issuer);
    const check: OidcCheck = { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW };
    expect(await verifyOidcToken(await issuer.sign(claims({ iss: issuer.iss, iat: T - 61 })), check)).toEqual({
      ok: false,
      code: 'OIDC_TOKEN_INVALID',
      reason: 'OIDC token iat is more than 60 seconds before the request',
    });
    expect(fetchSpy).not.toHaveBeenCalled();
    expect((await verifyOidcToken(await issuer.sign(claims({ iss: issuer.iss, iat: T - 60 })), check)).ok).toBe(true);
  });

  it('checks every claim rule in production as well (expired token)', async () => {
    const issuer = await newIssuer('ES256');
    serveJwks(issuer);
    const token = await issuer.sign(claims({ iss: issuer.iss, exp: T - 1 }));
    const r = await verifyOidcToken(token, { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW });
    expect(r).toMatchObject({ ok: false, reason: 'OIDC token exp is not later than the request time' });
  });

  it('reports unreachable issuer keys separately', async () => {
    const issuer = await newIssuer('ES256');
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('down', { status: 503 }));
    const token = await issuer.sign(claims({ iss: issuer.iss }));
    const r = await verifyOidcToken(token, { mode: 'production', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW });
    expect(r).toMatchObject({ ok: false, code: 'OIDC_KEYS_UNAVAILABLE' });
  });

  it('in sandbox a properly signed token works too', async () => {
    const issuer = await newIssuer('RS256');
    serveJwks(issuer);
    const token = await issuer.sign(claims({ iss: issuer.iss }));
    expect((await verifyOidcToken(token, { mode: 'sandbox', issuers: { [issuer.iss]: issuer.jwksUrl }, now: NOW })).ok).toBe(true);
  });
});

describe('OIDC_ISSUERS setting', () => {
  it('parses a JSON object, a comma list, bare issuers, and fails closed on garbage', () => {
    expect(parseOidcIssuers('{"https://a.test":"https://a.test/keys"}')).toEqual({ 'https://a.test': 'https://a.test/keys' });
    expect(parseOidcIssuers(' https://a.test=https://a.test/keys , https://b.test/ ')).toEqual({
      'https://a.test': 'https://a.test/keys',
      'https://b.test/': 'https://b.test/.well-known/jwks.json',
    });
    expect(parseOidcIssuers(undefined)).toHaveProperty(['https://accounts.google.com']);
    for (const bad of ['{not json', '{"https://a.test": 5}', '["https://a.test"]', 'not-a-url', 'https://a.test=ftp://x']) {
      expect(parseOidcIssuers(bad)).toEqual({});
    }
  });

  it('is read by settings() from the test bindings', () => {
    expect(settings(env).oidcIssuers).toEqual({
      'https://issuer.test': 'https://issuer.test/.well-known/jwks.json',
      'https://accounts.google.com': 'https://www.googleapis.com/oauth2/v3/certs',
    });
  });
});
