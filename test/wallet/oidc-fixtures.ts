/** base64url of a JSON value. */
export function b64json(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * A sandbox OIDC token: real header and claims, a dummy signature segment. Defaults are a valid
 * identity at a configured issuer, issued now; `undefined` in `claims` drops a claim.
 */
export function sandboxOidc(claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const all: Record<string, unknown> = {
    iss: 'https://accounts.google.com',
    aud: 'client-app',
    sub: 'user-123',
    iat: now,
    exp: now + 600,
    ...claims,
  };
  for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
  return `${b64json({ alg: 'RS256', typ: 'JWT' })}.${b64json(all)}.sandbox-signature`;
}
