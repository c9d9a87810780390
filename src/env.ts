// The Worker's bindings and settings (wrangler.toml, secrets), read once into typed settings.
import type { AccountDO } from './wallet/account-do';

/** Bindings and variables the Worker receives (wrangler.toml, secrets). */
export interface Env {
  /** The first data database ("home"); it also keeps the directory of the platforms' homes (db/homes.ts). */
  DB: D1Database;
  /** The other homes, DB_2, DB_3… (wrangler.toml `d1_databases`): each platform lives in one. */
  [home: `DB_${number}`]: D1Database | undefined;
  ACCOUNT: DurableObjectNamespace<AccountDO>;
  JOBS: Queue<unknown>;
  DOCUMENTS: R2Bucket;
  /** The console's files (wrangler.toml `[assets]`), served only through src/console/serve.ts. */
  ASSETS: Fetcher;
  /** Per-platform request budget, and the lower one of expensive calls (wrangler.toml `ratelimits`). */
  RATE_LIMIT?: RateLimit;
  EXPENSIVE_RATE_LIMIT?: RateLimit;
  /** `off` disables the request budgets (local load tests); anything else keeps them. */
  RATE_LIMITS?: string;
  SERVICE_ENV?: string;
  API_PREFIX?: string;
  LOG_LEVEL?: string;
  /** Secret: bearer token of the operator endpoints; without it they answer 404. */
  OPERATOR_TOKEN?: string;
  /** Production e-mail provider (HTTP JSON API, Resend-compatible): endpoint and secret key. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  /** Secret: base64 of 32 random bytes; the key wallet secrets are encrypted under at rest. */
  WALLET_ENCRYPTION_KEY?: string;
  /** OIDC issuers accepted for OAUTH credentials: JSON `{issuer: jwksUrl}` or a comma list of `issuer=jwksUrl` (a bare issuer means `<issuer>/.well-known/jwks.json`). */
  OIDC_ISSUERS?: string;
  /** WebAuthn relying-party id (the passkeys' domain); required in production, `localhost` in sandbox. */
  WEBAUTHN_RP_ID?: string;
  /** Comma list of the origins passkey ceremonies may run on; required in production, local dev origins in sandbox. */
  WEBAUTHN_ORIGINS?: string;
  /** Lifetime of embedded-wallet sessions in seconds (default 900). */
  SESSION_TTL_SECONDS?: string;
  /** Secret: base64 PKCS#8 DER of the P-256 key that signs webhooks (`X-Service-Signature`). */
  WEBHOOK_SIGNING_KEY?: string;
  /** Domain of the sandbox UMA counterparty; default `sandbox.uma.test`. */
  SANDBOX_UMA_DOMAIN?: string;
  /** Production mid-market rates: a URL answering `{"base":"USD","rates":{"EUR":0.92,…}}` (units per 1 USD). */
  RATES_URL?: string;
  /** `true` serves the console at `/` in production too (it is always on in sandbox). */
  CONSOLE_ENABLED?: string;
  /**
   * Comma list of the browser origins (`https://app.example.com`) allowed to call `/mcp`; a request whose
   * Origin is not listed is 403 (DNS rebinding). Unset: in sandbox the loopback origins `npm start` serves
   * (`localhost`, `127.0.0.1`, `[::1]`, any port); in production none (clients that send no Origin only).
   */
  MCP_ALLOWED_ORIGINS?: string;
  /** Days a settled webhook delivery (and its event) is kept before the sweep purges it (default 30). */
  WEBHOOK_RETENTION_DAYS?: string;
  /** Production payment rail: the operator's Worker (service binding) or HTTPS endpoint instructions go to. */
  RAIL?: Fetcher;
  RAIL_URL?: string;
  /** Secret: what the rail's instructions and outcomes are signed with (HMAC-SHA256). */
  RAIL_SECRET?: string;
  /** Production identity provider (KYC/KYB): the operator's Worker (service binding) or HTTPS endpoint. */
  IDENTITY_PROVIDER?: Fetcher;
  IDENTITY_PROVIDER_URL?: string;
  /** Secret: what the identity provider's instructions and outcomes are signed with (HMAC-SHA256). */
  IDENTITY_PROVIDER_SECRET?: string;
  /** The identity provider's hosted KYC page (production KYC links point there with `?kycLinkId=`). */
  IDENTITY_PROVIDER_KYC_URL?: string;
}

export type ServiceMode = 'sandbox' | 'production';

/** The sandbox UMA counterparty's domain when SANDBOX_UMA_DOMAIN is not set. */
export const DEFAULT_SANDBOX_UMA_DOMAIN = 'sandbox.uma.test';

export interface Settings {
  mode: ServiceMode;
  apiPrefix: string;
  logLevel: LogLevel;
  operatorToken: string | undefined;
  email: { apiUrl: string; apiKey: string | undefined };
  /** Issuer URL -> JWKS URL of every OIDC issuer OAUTH credentials may use. */
  oidcIssuers: Record<string, string>;
  /** Passkey relying party; null in production until WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS are both set. */
  webauthn: { rpId: string; origins: string[] } | null;
  /** Session lifetime (SESSION_TTL_SECONDS, default 900). */
  sessionTtlSeconds: number;
  webhookSigningKey: string | undefined;
  sandboxUmaDomain: string;
  /** Production source of mid-market rates (RATES_URL); the sandbox prices with its own table. */
  ratesUrl: string | undefined;
  /** Whether `GET /` serves the console: always in sandbox, in production only with CONSOLE_ENABLED=true. */
  console: boolean;
  /** Whether requests spend the per-platform budgets (RATE_LIMITS, on unless `off`). */
  rateLimits: boolean;
  /** Browser origins allowed to call `/mcp` (MCP_ALLOWED_ORIGINS); `loopback` also allows any loopback origin. */
  mcpOrigins: { listed: string[]; loopback: boolean };
  /** How long settled webhook deliveries and their events are kept, in ms (WEBHOOK_RETENTION_DAYS, default 30). */
  webhookRetentionMs: number;
  /** The operator's payment rail (production): RAIL or RAIL_URL, and RAIL_SECRET. */
  rail: ProviderSettings;
  /** The operator's identity provider (production): IDENTITY_PROVIDER or IDENTITY_PROVIDER_URL, and IDENTITY_PROVIDER_SECRET. */
  identityProvider: ProviderSettings;
  /** The identity provider's hosted KYC page (IDENTITY_PROVIDER_KYC_URL): its URL, or what is wrong with it. */
  identityKycPage: { url: string | undefined; problem: string | undefined };
}

/**
 * One of the operator's providers: where instructions go (a service binding, used when bound, or a URL) and
 * the secret both directions sign with. `problem` names what is missing or wrong; none means it is usable.
 */
export interface ProviderSettings {
  url: string | undefined;
  bound: boolean;
  secret: string | undefined;
  problem: string | undefined;
}

/** Shortest provider secret accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_PROVIDER_SECRET = 32;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LOG_LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Reads the settings from the environment; unknown values fall back to safe defaults. */
export function settings(env: Env): Settings {
  const prefix = (env.API_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  const level = (env.LOG_LEVEL ?? 'info') as LogLevel;
  // Anything but an explicit "sandbox" runs with production rules: magic values are never honoured by accident.
  const mode: ServiceMode = (env.SERVICE_ENV ?? 'sandbox') === 'sandbox' ? 'sandbox' : 'production';
  return {
    mode,
    apiPrefix: prefix,
    logLevel: LOG_LEVELS.includes(level) ? level : 'info',
    operatorToken: env.OPERATOR_TOKEN || undefined,
    email: { apiUrl: env.EMAIL_API_URL || 'https://api.resend.com/emails', apiKey: env.EMAIL_API_KEY || undefined },
    oidcIssuers: parseOidcIssuers(env.OIDC_ISSUERS),
    webauthn: relyingParty(env, mode),
    sessionTtlSeconds: positiveInt(env.SESSION_TTL_SECONDS) ?? 900,
    webhookSigningKey: env.WEBHOOK_SIGNING_KEY || undefined,
    sandboxUmaDomain: (env.SANDBOX_UMA_DOMAIN || DEFAULT_SANDBOX_UMA_DOMAIN).toLowerCase(),
    ratesUrl: env.RATES_URL?.trim() || undefined,
    console: mode === 'sandbox' || env.CONSOLE_ENABLED?.trim().toLowerCase() === 'true',
    rateLimits: env.RATE_LIMITS?.trim().toLowerCase() !== 'off',
    mcpOrigins: mcpOrigins(env.MCP_ALLOWED_ORIGINS, mode),
    webhookRetentionMs: (positiveInt(env.WEBHOOK_RETENTION_DAYS) ?? 30) * 86_400_000,
    rail: provider('RAIL', env.RAIL, env.RAIL_URL, env.RAIL_SECRET),
    identityProvider: provider('IDENTITY_PROVIDER', env.IDENTITY_PROVIDER, env.IDENTITY_PROVIDER_URL, env.IDENTITY_PROVIDER_SECRET),
    identityKycPage: kycPage(env.IDENTITY_PROVIDER_KYC_URL),
  };
}

/**
 * A provider's settings: a binding named `name`, else `<name>_URL` (https; http only to a loopback host, for
 * a local trial with the reference rail), and `<name>_SECRET`. Anything missing or unusable fails closed.
 */
function provider(
  name: string,
  binding: Fetcher | undefined,
  urlValue: string | undefined,
  secretValue: string | undefined,
): ProviderSettings {
  const url = urlValue?.trim() || undefined;
  const secret = secretValue?.trim() || undefined;
  const bound = binding !== undefined && binding !== null;
  let problem: string | undefined;
  if (!bound && !url) problem = `set the ${name} service binding or ${name}_URL, and ${name}_SECRET`;
  else if (!bound && !providerUrlOk(url!)) problem = `${name}_URL must be an https URL (http only to localhost or 127.0.0.1)`;
  else if (!secret) problem = `set ${name}_SECRET`;
  else if (secret.length < MIN_PROVIDER_SECRET) problem = `${name}_SECRET must be at least ${MIN_PROVIDER_SECRET} characters`;
  return { url, bound, secret, problem };
}

/** The provider's hosted KYC page: a URL a browser opens (https; http only to a loopback host), without a fragment. */
function kycPage(value: string | undefined): Settings['identityKycPage'] {
  const url = value?.trim() || undefined;
  if (!url) return { url, problem: "set IDENTITY_PROVIDER_KYC_URL (the identity provider's hosted KYC page)" };
  if (!providerUrlOk(url) || url.includes('#')) {
    return {
      url: undefined,
      problem: 'IDENTITY_PROVIDER_KYC_URL must be an https URL without a fragment (http only to localhost or 127.0.0.1)',
    };
  }
  return { url, problem: undefined };
}

function providerUrlOk(value: string): boolean {
  try {
    const u = new URL(value);
    if (u.username || u.password) return false;
    return u.protocol === 'https:' || (u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname));
  } catch {
    return false;
  }
}

/** Issuers of the common sign-in providers, used when `OIDC_ISSUERS` is not set. */
const DEFAULT_OIDC_ISSUERS: Readonly<Record<string, string>> = {
  'https://accounts.google.com': 'https://www.googleapis.com/oauth2/v3/certs',
  'https://appleid.apple.com': 'https://appleid.apple.com/auth/keys',
};

/** Origins of the usual local dev servers, paired with the default RP id `localhost` (sandbox only). */
const DEFAULT_WEBAUTHN_ORIGINS = ['http://localhost:3000', 'http://localhost:5173', 'http://localhost:8787'];

/** The MCP origin allow-list: the configured origins (normalised as `URL.origin`), else sandbox's loopback ones. */
function mcpOrigins(value: string | undefined, mode: ServiceMode): Settings['mcpOrigins'] {
  const listed = list(value);
  if (listed)
    return {
      listed: listed.flatMap((o) => {
        try {
          return [new URL(o).origin];
        } catch {
          return [];
        }
      }),
      loopback: false,
    };
  return { listed: [], loopback: mode === 'sandbox' };
}

/** The development defaults are for sandbox only: production passkeys bound to `localhost` would be no passkeys at all. */
function relyingParty(env: Env, mode: ServiceMode): Settings['webauthn'] {
  const rpId = env.WEBAUTHN_RP_ID?.trim() || undefined;
  const origins = list(env.WEBAUTHN_ORIGINS);
  if (mode === 'production' && (!rpId || !origins)) return null;
  return { rpId: rpId ?? 'localhost', origins: origins ?? DEFAULT_WEBAUTHN_ORIGINS };
}

/**
 * Parses `OIDC_ISSUERS`: a JSON object `{issuer: jwksUrl}`, or a comma list whose items are `issuer=jwksUrl`
 * or a bare issuer (JWKS at `<issuer>/.well-known/jwks.json`). Unset means the defaults; anything
 * unparseable means no issuer at all, so a typo fails closed.
 */
export function parseOidcIssuers(value: string | undefined): Record<string, string> {
  const text = value?.trim();
  if (!text) return { ...DEFAULT_OIDC_ISSUERS };
  const out: Record<string, string> = {};
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return {};
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    for (const [issuer, jwks] of Object.entries(parsed)) {
      if (typeof jwks !== 'string' || !isHttpUrl(issuer) || !isHttpUrl(jwks)) return {};
      out[issuer] = jwks;
    }
    return out;
  }
  for (const item of list(text) ?? []) {
    const eq = item.indexOf('=');
    const issuer = eq < 0 ? item : item.slice(0, eq).trim();
    const jwks = eq < 0 ? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json` : item.slice(eq + 1).trim();
    if (!isHttpUrl(issuer) || !isHttpUrl(jwks)) return {};
    out[issuer] = jwks;
  }
  return out;
}

function list(value: string | undefined): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}
