// Rate limits: each request counted against its platform's (or client address's) budgets.
import type { Env, Settings } from '../env';
import { hashSecret } from '../crypto/secrets';
import { credentialsOf } from './auth';
import { ApiError } from './errors';

/**
 * The period of wrangler.toml's `ratelimits` bindings, and so the `Retry-After` of their 429: a refused
 * client finds a fresh budget after it. Change both together.
 */
export const RATE_LIMIT_PERIOD_SECONDS = 10;

/** What the limiter needs of a route: who calls it, and whether a call is expensive (a search, a bulk import). */
interface LimitedRoute {
  auth: 'none' | 'basic' | 'agent' | 'operator';
  expensive?: boolean | ((url: URL) => boolean);
}

// Credentials (a hash of them as authentication parses them, so every spelling of one header is one key) -> the
// platform they last authenticated as in this isolate. A request is counted against its platform before
// authentication, so one over budget costs no D1 round trip and writes nothing; the key needs the credential's
// secret, so no platform spends another's budget.
const platformOf = new Map<string, string>();
const REMEMBERED = 10_000;

/**
 * Counts the request against its budgets (RATE_LIMIT; EXPENSIVE_RATE_LIMIT too for an expensive call), or
 * throws 429 RATE_LIMITED with `Retry-After`. The budget is the platform the credentials authenticated as
 * on an earlier request; credentials not seen yet, and unauthenticated routes, spend the client IP's.
 * Returns the credentials' key for `rememberPlatform`/`forgetCredentials`. Operator calls are not limited.
 */
export async function admit(env: Env, settings: Settings, request: Request, route: LimitedRoute): Promise<string | undefined> {
  if (route.auth === 'operator' || !env.RATE_LIMIT || !settings.rateLimits) return undefined;
  const parsed = route.auth === 'none' ? undefined : credentialsOf(route.auth, request.headers.get('Authorization'));
  const credentials = parsed && hashSecret(parsed);
  const platformId = credentials && platformOf.get(credentials);
  if (!platformId) {
    // Behind Cloudflare the header is the client's address; locally every client shares one budget.
    const ip = request.headers.get('CF-Connecting-IP') ?? 'local';
    await spend(env.RATE_LIMIT, `ip:${ip}`, 'Too many requests from this address');
    return credentials;
  }
  await spend(env.RATE_LIMIT, `platform:${platformId}`, 'Too many requests for this platform');
  const { expensive } = route;
  if (env.EXPENSIVE_RATE_LIMIT && (typeof expensive === 'function' ? expensive(new URL(request.url)) : expensive)) {
    await spend(env.EXPENSIVE_RATE_LIMIT, `platform:${platformId}`, 'Too many searches or bulk imports for this platform');
  }
  return credentials;
}

/** After a successful authentication: later requests with these credentials spend `platformId`'s budget. */
export function rememberPlatform(credentials: string | undefined, platformId: string | undefined): void {
  if (!credentials || !platformId) return;
  platformOf.delete(credentials);
  // The oldest entry goes first (a Map iterates in insertion order; a renewed entry moved to the end).
  if (platformOf.size >= REMEMBERED) platformOf.delete(platformOf.keys().next().value!);
  platformOf.set(credentials, platformId);
}

/** After a failed authentication (a deleted token): the credentials spend an IP's budget again. */
export function forgetCredentials(credentials: string | undefined): void {
  if (credentials) platformOf.delete(credentials);
}

async function spend(limiter: RateLimit, key: string, message: string): Promise<void> {
  const { success } = await limiter.limit({ key });
  if (!success) {
    throw new ApiError('RATE_LIMITED', `${message}; retry after ${RATE_LIMIT_PERIOD_SECONDS} s`, undefined, {
      'Retry-After': String(RATE_LIMIT_PERIOD_SECONDS),
    });
  }
}
