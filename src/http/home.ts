// The request's home (the data database of its platform) and the Env its work sees there.
import type { Env } from '../env';
import { database } from '../db/client';
import { directoryEntry, FIRST_HOME, forwardOf, homeD1, homeNamedBy } from '../db/homes';
import { platformMoving } from './errors';
import { hashSecret } from '../crypto/secrets';
import { homeCredential, type Principals } from './auth';

/**
 * A route's own way to its home, for a route no credential names one for (`auth: 'none'`): from its valid
 * input (a secret that carries its home's mark, a platform id the directory knows). Undefined: the first home.
 */
export type HomeOf<P = unknown, B = unknown> = (
  input: { params: P; body: B },
  env: Env,
) => string | undefined | Promise<string | undefined>;

/**
 * The home a request is served in: the one its credentials name (an API token's client id, an agent token),
 * the first home for the operator (it keeps the directory), or the route's own choice.
 */
export async function requestHome(
  env: Env,
  kind: keyof Principals,
  request: Request,
  own: { home?: HomeOf; input?: { params: unknown; body: unknown } },
): Promise<string> {
  if (kind === 'basic' || kind === 'agent') return homeNamedBy(env, homeCredential(kind, request.headers.get('Authorization')));
  if (kind === 'none' && own.home && own.input) return (await own.home(own.input, env)) ?? FIRST_HOME;
  return FIRST_HOME;
}

/**
 * Where the credentials of a request refused in `home` went, when their platform moved away from the home they
 * name (its forward, db/homes.ts); undefined for credentials that are simply wrong.
 */
export async function movedHome(env: Env, home: string, kind: keyof Principals, request: Request): Promise<string | undefined> {
  const credential = homeCredential(kind, request.headers.get('Authorization'));
  if (!credential) return undefined;
  const key = kind === 'basic' ? `token:${credential}` : `agent:${hashSecret(credential)}`;
  const moved = await forwardOf(database(homeD1(env, home)), key);
  return moved !== home ? moved : undefined;
}

/**
 * The home of a provider's report about a platform (its body names the platform): the directory's. While the
 * platform moves, the report is refused as its writes are (409, Retry-After) and the provider sends it again.
 */
export async function homeOfReport(env: Env, platformId: string): Promise<string | undefined> {
  const entry = await directoryEntry(env, platformId);
  if (entry?.moving) throw platformMoving();
  return entry?.home;
}

/**
 * The Env of work in `home`: a jobs queue whose messages carry the home, so the consumer takes them to the same
 * database. `DB` stays the first home's (the directory); the work's own database is `homeD1(env, home)`. The
 * first home's Env is the Env itself (its messages carry nothing, as before homes).
 */
export function homeEnv(env: Env, home: string): Env {
  if (home === FIRST_HOME) return env;
  const queue = env.JOBS;
  const mark = <T>(body: T) => ({ ...(body as object), home }) as T;
  const JOBS: Queue<unknown> = {
    metrics: () => queue.metrics(),
    send: (body, options) => queue.send(mark(body), options),
    sendBatch: (messages, options) =>
      queue.sendBatch(
        [...messages].map((m) => ({ ...m, body: mark(m.body) })),
        options,
      ),
  };
  return { ...env, JOBS };
}

/** The home a queue message belongs to (unmarked: the first). */
export function homeOfMessage(body: unknown): string {
  const home = (body as { home?: unknown } | null)?.home;
  return typeof home === 'string' ? home : FIRST_HOME;
}
