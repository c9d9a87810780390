// OIDC ID tokens checked against their issuer's keys (JWKS), with the sandbox's rules.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { textFromBase64url } from '../crypto/base64';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { ServiceMode } from '../env';
import { OIDC_CLOCK_SKEW_MS, OIDC_MAX_AGE_MS, RETIRED_SANDBOX_OIDC_TOKEN } from './sandbox-values';

/** Algorithms an OIDC provider signs ID tokens with; symmetric ones are refused (they would need a shared secret). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const SEGMENT = /^[A-Za-z0-9_-]*$/;

/** The identity an OAUTH credential stores and every later token must repeat. */
export interface OidcIdentity {
  iss: string;
  /** A single audience; a one-element array in the token is normalised to its element. */
  aud: string;
  sub: string;
}

type OidcResult =
  | { ok: true; identity: OidcIdentity; /** The token's `email` claim, the credential's nickname. */ email: string | undefined }
  /** Not a JWT (three base64url segments, JSON header and payload): the route answers 400 `INVALID_INPUT`. */
  | { ok: false; code: 'OIDC_TOKEN_MALFORMED'; reason: string }
  /** A readable token that fails a check: the route answers 401 `UNAUTHORIZED` with `reason`. */
  | { ok: false; code: 'OIDC_TOKEN_INVALID'; reason: string }
  /** The issuer's keys could not be fetched: not the client's fault. */
  | { ok: false; code: 'OIDC_KEYS_UNAVAILABLE'; reason: string };

/** Resolves the JWKS (as a jose key getter) published at `jwksUrl`. */
type JwksResolver = (jwksUrl: string) => JWTVerifyGetKey;

export interface OidcCheck {
  mode: ServiceMode;
  /** Issuer URL -> JWKS URL (`settings().oidcIssuers`): the supported issuers. */
  issuers: Record<string, string>;
  /** Request time, epoch ms. */
  now: number;
  /** Where production signatures are checked; defaults to `remoteJwks` (fetch, cached per URL). */
  jwks?: JwksResolver;
  /** On verify: the request's exact `clientPublicKey`; the token's `nonce` must be its SHA-256 hex. */
  clientPublicKey?: string;
  /** On verify: the credential's identity, which the token must repeat. */
  expected?: OidcIdentity;
}

/** The `nonce` a verify token must carry: SHA-256 hex of the exact `clientPublicKey` string. */
export function oidcNonce(clientPublicKey: string): string {
  return bytesToHex(sha256(utf8ToBytes(clientPublicKey)));
}

/**
 * Checks an OIDC ID token for OAUTH create (no `clientPublicKey`/`expected`) or verify (both given).
 * Claims first (supported `iss`, single `aud`, non-empty `sub`, fresh `iat`, future `exp`, then `nonce` and
 * identity), so stale tokens are refused without a key fetch; then, in production, the signature against the
 * issuer's JWKS. Sandbox skips the signature: a dummy segment and a properly signed token both pass.
 */
export async function verifyOidcToken(token: string, check: OidcCheck): Promise<OidcResult> {
  if (token === RETIRED_SANDBOX_OIDC_TOKEN) {
    return invalid('The fixed sandbox OIDC token is no longer accepted; send a JWT-shaped token with valid claims');
  }
  const payload = decodeJwtPayload(token);
  if (!payload)
    return {
      ok: false,
      code: 'OIDC_TOKEN_MALFORMED',
      reason: 'oidcToken is not a JWT (three base64url segments with a JSON header and payload)',
    };
  const claims = checkClaims(payload, check);
  if (!claims.ok) return claims;
  if (check.mode === 'production') {
    const jwksUrl = check.issuers[claims.identity.iss]!;
    try {
      await jwtVerify(token, (check.jwks ?? remoteJwks)(jwksUrl), {
        issuer: claims.identity.iss,
        algorithms: ALGORITHMS,
        currentDate: new Date(check.now),
        clockTolerance: OIDC_CLOCK_SKEW_MS / 1000,
      });
    } catch (e) {
      return signatureFailure(e);
    }
  }
  return claims;
}

function checkClaims(p: Record<string, unknown>, check: OidcCheck): OidcResult {
  const { iss, aud, sub, iat, exp, nonce, email } = p;
  if (typeof iss !== 'string' || !Object.hasOwn(check.issuers, iss)) return invalid('OIDC token iss is not a supported issuer');
  const audience = typeof aud === 'string' ? aud : Array.isArray(aud) && aud.length === 1 ? aud[0] : undefined;
  if (typeof audience !== 'string' || audience === '') {
    return invalid('OIDC token aud must be a non-empty string or a single-element string array');
  }
  if (typeof sub !== 'string' || sub === '') return invalid('OIDC token sub must be a non-empty string');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return invalid('OIDC token iat must be a number');
  // Sandbox grants its 5 s skew on the age as well; production holds the 60 s exactly.
  const maxAge = OIDC_MAX_AGE_MS + (check.mode === 'sandbox' ? OIDC_CLOCK_SKEW_MS : 0);
  if (check.now - iat * 1000 > maxAge) return invalid('OIDC token iat is more than 60 seconds before the request');
  if (iat * 1000 > check.now + OIDC_CLOCK_SKEW_MS) return invalid('OIDC token iat is in the future');
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return invalid('OIDC token exp must be a number');
  if (exp * 1000 <= check.now) return invalid('OIDC token exp is not later than the request time');
  if (check.clientPublicKey !== undefined) {
    if (typeof nonce !== 'string' || nonce.toLowerCase() !== oidcNonce(check.clientPublicKey)) {
      return invalid('OIDC token nonce must be the SHA-256 hex of clientPublicKey');
    }
  }
  const identity: OidcIdentity = { iss, aud: audience, sub };
  if (check.expected && !sameIdentity(identity, check.expected)) {
    return invalid('OIDC token identity (iss, aud, sub) does not match the credential');
  }
  return { ok: true, identity, email: typeof email === 'string' && email !== '' ? email : undefined };
}

/** True when two identities are the same provider account. */
function sameIdentity(a: OidcIdentity, b: OidcIdentity): boolean {
  return a.iss === b.iss && a.aud === b.aud && a.sub === b.sub;
}

function decodeJwtPayload(token: string): Record<string, unknown> | undefined {
  if (typeof token !== 'string') return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || !SEGMENT.test(parts[2]!)) return undefined;
  const header = decodeSegment(parts[0]!);
  const payload = decodeSegment(parts[1]!);
  return header && payload ? payload : undefined;
}

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  if (!segment || !SEGMENT.test(segment)) return undefined;
  try {
    const value: unknown = JSON.parse(textFromBase64url(segment));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function signatureFailure(e: unknown): OidcResult {
  const unreachable =
    e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid || !(e instanceof errors.JOSEError) || e.code === 'ERR_JOSE_GENERIC';
  if (unreachable) {
    return { ok: false, code: 'OIDC_KEYS_UNAVAILABLE', reason: 'The OIDC issuer keys could not be fetched' };
  }
  if (e instanceof errors.JWTClaimValidationFailed || e instanceof errors.JWTExpired) return invalid(`OIDC token ${e.message}`);
  return invalid('OIDC token signature does not verify against the issuer keys');
}

function invalid(reason: string): OidcResult {
  return { ok: false, code: 'OIDC_TOKEN_INVALID', reason };
}

// One jose key set per JWKS URL per isolate: it caches the keys and refetches on an unknown `kid`.
const JWKS_CACHE_SIZE = 32;
const jwksCache = new Map<string, JWTVerifyGetKey>();

/** The issuer's published keys, fetched with the global `fetch` and cached per JWKS URL. */
function remoteJwks(jwksUrl: string): JWTVerifyGetKey {
  let set = jwksCache.get(jwksUrl);
  if (!set) {
    if (jwksCache.size >= JWKS_CACHE_SIZE) jwksCache.delete(jwksCache.keys().next().value!);
    set = createRemoteJWKSet(new URL(jwksUrl));
    jwksCache.set(jwksUrl, set);
  }
  return set;
}
