// The console's only way to the service: the public API, with the signed-in token's HTTP Basic
// credentials. The secret lives in sessionStorage (this tab only), never in a URL or a log.

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? '';

export const apiBase = meta('api-base');
export const mode = meta('service-mode') === 'production' ? 'production' : 'sandbox';

const KEY = 'console.credentials';

/** The signed-in token's credentials, or null. */
export function credentials() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    return saved && typeof saved.clientId === 'string' && typeof saved.clientSecret === 'string' ? saved : null;
  } catch {
    return null;
  }
}

export function forget() {
  sessionStorage.removeItem(KEY);
  config = undefined;
}

/** An API answer other than 2xx, with a sentence a person can act on. */
export class ApiError extends Error {
  constructor(status, body) {
    super(describe(status, body));
    this.status = status;
    this.code = body?.code;
    this.details = body?.details;
  }
}

function describe(status, body) {
  if (status === 0) return 'The service cannot be reached. Is it still running?';
  if (status === 401) return 'The client ID or client secret is wrong, or the token was deleted.';
  const text = body?.message ?? `The service answered HTTP ${status}.`;
  // The finer case, where the code covers several: INVALID_AMOUNT's INSUFFICIENT_FUNDS.
  const reason = typeof body?.details?.reason === 'string' ? `: ${body.details.reason}` : '';
  return body?.code ? `${text} (${body.code}${reason})` : text;
}

function basic(clientId, clientSecret) {
  const bytes = new TextEncoder().encode(`${clientId}:${clientSecret}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/** Called when the token stops working mid-session (deleted, or another tab signed out). */
let onUnauthorized = () => {};
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/**
 * One API call. `query` skips empty values. X-Requested-With keeps the 401 free of
 * `WWW-Authenticate: Basic`, so the browser shows no credentials dialog of its own.
 */
export async function api(path, { method = 'GET', query, body, auth } = {}) {
  const using = auth ?? credentials();
  if (!using) throw new ApiError(401, null);
  const url = new URL(apiBase + path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  const headers = {
    Authorization: basic(using.clientId, using.clientSecret),
    'X-Requested-With': 'XMLHttpRequest',
    Accept: 'application/json',
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch {
    throw new ApiError(0, null);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    if (response.status === 401 && !auth) onUnauthorized();
    throw new ApiError(response.status, data);
  }
  return data;
}

/** Checks the credentials with GET /config before keeping them; returns the platform's configuration. */
export async function signIn(clientId, clientSecret) {
  const auth = { clientId: clientId.trim(), clientSecret: clientSecret.trim() };
  const found = await api('/config', { auth });
  sessionStorage.setItem(KEY, JSON.stringify(auth));
  config = Promise.resolve(found);
  return found;
}

/** The platform's configuration (webhook public key, UMA domains), read once per page load. */
let config;
export function platformConfig() {
  config ??= api('/config').catch((error) => {
    config = undefined;
    throw error;
  });
  return config;
}

/** The service's /openapi.json (public), read once per page load: the API reference and the enums. */
let document_;
export function openApi() {
  document_ ??= fetch(`${apiBase}/openapi.json`, { headers: { Accept: 'application/json' } }).then(
    (r) => (r.ok ? r.json() : Promise.reject(new ApiError(r.status, null))),
    () => Promise.reject(new ApiError(0, null)),
  );
  document_.catch(() => (document_ = undefined));
  return document_;
}

/** The values of an enum schema of /openapi.json (one source for the filters' choices). */
export async function enumValues(schema) {
  return (await openApi()).components.schemas[schema]?.enum ?? [];
}
