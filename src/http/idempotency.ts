// Idempotency-Key: claim, in-flight lease, replay, fingerprint conflicts and purge. Over 300 lines because
// it is one protocol over one table, kept in one file.
import { KEY_TTL_MS } from '../common/idempotency';
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { loadTogether, type Db, type Loaded, type Loads, type Statement } from '../db/client';
import { canonicalJson } from '../crypto/canonical';
import { idempotencyKeys, platforms, type IdempotencyKeyRow } from '../db/schema';
import { randomToken } from '../crypto/secrets';
import { ApiError, badRequest, errorResponse, FINAL_CONFLICT_HEADERS } from './errors';

/** Request header of the IETF Idempotency-Key draft. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const MAX_KEY_LENGTH = 255;
/** An in-flight claim older than this belongs to a worker that died; the key may be claimed again. */
export const IN_FLIGHT_LEASE_MS = 60_000;

/** For `RouteSpec.headers`: documents the optional header in the OpenAPI document. */
export const idempotencyHeaderDoc = {
  [IDEMPOTENCY_HEADER]: {
    description: `Optional unique key of this request (1 to ${MAX_KEY_LENGTH} characters). Without it the request runs once as sent: two identical requests are two operations. With it, a repeat with the same key and request replays the first response (header \`Idempotent-Replayed: true\`); the same key with a different request is 422; a repeat while the first is still running is 409 with \`Retry-After\`.`,
    required: false,
  },
};

/** One request under an Idempotency-Key. */
export interface IdempotentRequest {
  platformId: string;
  /** Key namespace inside the platform: `platform` for API-token callers, the agent id for agents. */
  scope: string;
  /** The raw header value; null when absent. */
  key: string | null;
  method: string;
  /** Path and query string. */
  path: string;
  /** The raw request body (compared in canonical JSON form, so key order and spacing do not matter). */
  body: string;
  now: number;
}

export interface IdempotencyOptions<L extends Loads = Loads> {
  /** Whether a response may be replayed later; default: every status below 500. */
  store?: (status: number) => boolean;
  /** Named queries of the action, run in the claim's round trip (harmless when the key turns out taken). */
  reads?: L;
  /** Results of `loadClaim` run with authentication (`c.loaded`): the claim round trip already made. */
  loaded?: Loaded<L & ClaimLoads>;
}

/** What the action of a claimed request gets. */
export interface Claim<L extends Loads = Loads> {
  /** Results of `IdempotencyOptions.reads`, by name. */
  reads: Loaded<L>;
  /**
   * The statement recording `body` (JSON) with `status` as the key's response: put it in the batch that does
   * the work, then answer with `recorded`, and the response costs no further round trip.
   */
  record(status: number, body: string): Statement;
  /** The response whose `record` statement has committed. */
  recorded(status: number, body: string): Response;
}

/** The parts of a route context the wrapper needs. */
export interface IdempotencyCtx {
  db: Db;
  request: Request;
  rawBody: string;
  now: number;
  auth: { platform: { id: string } };
}

/**
 * Runs `action` at most once per (platform, scope, Idempotency-Key), per the IETF Idempotency-Key draft:
 * the first request claims the key; a repeat of the same request replays the stored 2xx/4xx response
 * (`Idempotent-Replayed: true`) without acting; the same key with a different request is 422; a repeat
 * while the first is in flight is 409. 5xx responses are not stored: the claim is released so the
 * client may retry.
 */
export function withIdempotency<L extends Loads = Loads>(
  c: IdempotencyCtx,
  scope: string,
  action: (claim: Claim<L>) => Promise<Response>,
  opts?: IdempotencyOptions<L>,
): Promise<Response> {
  const url = new URL(c.request.url);
  return runIdempotent(
    c.db,
    {
      platformId: c.auth.platform.id,
      scope,
      key: c.request.headers.get(IDEMPOTENCY_HEADER),
      method: c.request.method,
      path: url.pathname + url.search,
      body: c.rawBody,
      now: c.now,
    },
    action,
    opts,
  );
}

/**
 * Runs `action` once when the request carries no Idempotency-Key (the key is optional: two identical
 * requests without one are two operations), else under its key as `withIdempotency` does.
 */
export function withOptionalIdempotency<L extends Loads = Loads>(
  c: IdempotencyCtx,
  scope: string,
  action: () => Promise<Response>,
  opts?: IdempotencyOptions<L>,
): Promise<Response> {
  return c.request.headers.has(IDEMPOTENCY_HEADER) ? withIdempotency(c, scope, action, opts) : action();
}

/** The claim round trip's own loads: claim the key if free, and read whoever holds it. */
export type ClaimLoads = ReturnType<typeof claimLoads>;

/**
 * For `RouteSpec.load`: the claim round trip of `withIdempotency` (the claim, its holder and the action's
 * `reads`), run in the authentication batch with `platformId` the authenticated platform's SQL; hand
 * `c.loaded` to `withIdempotency` as `loaded` when it holds the claim (`isClaimLoaded`). `now` is the wall
 * clock the route's `c.now` derives from. Without a key, or with an invalid one (the wrapper answers its 400),
 * only the `reads`.
 */
export function loadClaim<L extends Loads>(
  db: Db,
  input: { request: Request; rawBody: string; now: number },
  scope: string,
  platformId: SQL,
  reads: L,
): L & Partial<ClaimLoads> {
  if (!input.request.headers.has(IDEMPOTENCY_HEADER)) return reads;
  let key: string;
  try {
    key = parseKey(input.request.headers.get(IDEMPOTENCY_HEADER));
  } catch {
    return reads;
  }
  const url = new URL(input.request.url);
  const fingerprint = requestFingerprint(input.request.method, url.pathname + url.search, input.rawBody);
  // The platform's time, as `c.now` will be: the wall clock plus its sandbox offset.
  // The claim first: the reads see the key as claimed.
  return { ...claimLoads(db, { platformId, scope, key, fingerprint, at: sql`(${input.now} + ${platforms.clockOffsetMs})` }), ...reads };
}

/** Whether `loadClaim`'s results hold a claim (they do not without a valid key). */
export function isClaimLoaded<L extends Loads>(loaded: Loaded<L & Partial<ClaimLoads>>): loaded is Loaded<L & ClaimLoads> {
  return 'idempotencyClaim' in loaded;
}

/**
 * Claim the key if free, and read whoever holds it: for a known platform and time, or (SQL, in an
 * authentication batch) for the platform the credentials authenticate, NULL otherwise so nothing is claimed.
 */
function claimLoads(db: Db, r: { platformId: string | SQL; scope: string; key: string; fingerprint: string; at: number | SQL }) {
  const claimToken = randomToken(16);
  const claim =
    typeof r.platformId === 'string' && typeof r.at === 'number'
      ? db.insert(idempotencyKeys).values({
          platformId: r.platformId,
          scope: r.scope,
          key: r.key,
          fingerprint: r.fingerprint,
          state: 'IN_FLIGHT',
          claimToken,
          lockedUntil: r.at + IN_FLIGHT_LEASE_MS,
          responseStatus: null,
          responseBody: null,
          createdAt: r.at,
          expiresAt: r.at + KEY_TTL_MS,
        })
      : db
          .insert(idempotencyKeys)
          // Columns in table order: platform_id, scope, key, fingerprint, state, claim_token, locked_until,
          // response_status, response_body, created_at, expires_at.
          .select(
            sql`SELECT ${platforms.id}, ${r.scope}, ${r.key}, ${r.fingerprint}, 'IN_FLIGHT', ${claimToken}, ${r.at} + ${IN_FLIGHT_LEASE_MS}, NULL, NULL, ${r.at}, ${r.at} + ${KEY_TTL_MS}
                FROM ${platforms} WHERE ${platforms.id} = ${r.platformId}`,
          );
  return {
    idempotencyClaim: claim.onConflictDoNothing().returning({ claimToken: idempotencyKeys.claimToken }),
    idempotencyHolder: db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.platformId, r.platformId), eq(idempotencyKeys.scope, r.scope), eq(idempotencyKeys.key, r.key))),
  };
}

/** `withIdempotency` on explicit inputs. */
export async function runIdempotent<L extends Loads = Loads>(
  db: Db,
  req: IdempotentRequest,
  action: (claim: Claim<L>) => Promise<Response>,
  opts: IdempotencyOptions<L> = {},
): Promise<Response> {
  const key = parseKey(req.key);
  const fingerprint = requestFingerprint(req.method, req.path, req.body);
  const pk = and(eq(idempotencyKeys.platformId, req.platformId), eq(idempotencyKeys.scope, req.scope), eq(idempotencyKeys.key, key));

  // One round trip (or none, when made with authentication): claim if free, read whoever holds it, and the
  // action's own reads.
  const loaded =
    opts.loaded ??
    (await loadTogether(db, {
      ...claimLoads(db, { platformId: req.platformId, scope: req.scope, key, fingerprint, at: req.now }),
      ...((opts.reads ?? {}) as L),
    }));
  let claimToken = loaded.idempotencyClaim[0]?.claimToken ?? '';
  let held: IdempotencyKeyRow | undefined = loaded.idempotencyHolder[0];
  if (!claimToken && held && (held.expiresAt <= req.now || (held.state === 'IN_FLIGHT' && held.lockedUntil <= req.now))) {
    // Expired key, or a claimant that died: take it over, unless someone else just did.
    const claim = {
      fingerprint,
      state: 'IN_FLIGHT' as const,
      claimToken: randomToken(16),
      lockedUntil: req.now + IN_FLIGHT_LEASE_MS,
      responseStatus: null,
      responseBody: null,
      createdAt: req.now,
      expiresAt: req.now + KEY_TTL_MS,
    };
    const taken = await db
      .update(idempotencyKeys)
      .set(claim)
      .where(and(pk, eq(idempotencyKeys.claimToken, held.claimToken)))
      .returning({ key: idempotencyKeys.key });
    if (taken.length > 0) claimToken = claim.claimToken;
    else held = (await db.select().from(idempotencyKeys).where(pk))[0];
  }
  if (!claimToken) return answerRepeat(held, fingerprint);

  const done = (status: number, body: string) =>
    db
      .update(idempotencyKeys)
      .set({ state: 'DONE', responseStatus: status, responseBody: body })
      .where(and(pk, eq(idempotencyKeys.claimToken, claimToken)));
  let recorded = false;
  const granted: Claim<L> = {
    reads: loaded,
    record: done,
    recorded: (status, body) => {
      recorded = true;
      return new Response(body, { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
    },
  };
  let response: Response;
  try {
    response = await action(granted);
  } catch (error) {
    // The work committed together with its response: a repeat replays that, whatever failed after.
    if (recorded) throw error;
    if (!(error instanceof ApiError) || error.status >= 500) {
      await release(db, pk, claimToken);
      throw error;
    }
    response = errorResponse(error);
  }
  if (recorded) return response;
  const keep = opts.store ?? ((status: number) => status < 500);
  if (!keep(response.status)) {
    await release(db, pk, claimToken);
    return response;
  }
  const body = await response.text();
  await done(response.status, body);
  return new Response(body === '' ? null : body, { status: response.status, headers: response.headers });
}

function answerRepeat(held: IdempotencyKeyRow | undefined, fingerprint: string): Response {
  // Released between our insert and read: the first request failed with a 5xx; ask the client to retry.
  if (!held) throw inFlight();
  if (held.fingerprint !== fingerprint) {
    throw new ApiError('IDEMPOTENCY_KEY_REUSED', `This ${IDEMPOTENCY_HEADER} was already used with a different request`, {
      header: IDEMPOTENCY_HEADER,
    });
  }
  if (held.state !== 'DONE' || held.responseStatus === null) throw inFlight();
  const body = held.responseBody ?? '';
  // A replayed conflict is the key's answer until the key expires: no retry changes it.
  const headers: Record<string, string> = {
    'Cache-Control': 'no-store',
    'Idempotent-Replayed': 'true',
    ...(held.responseStatus === 409 ? FINAL_CONFLICT_HEADERS : {}),
  };
  if (body !== '') headers['Content-Type'] = 'application/json';
  return new Response(body === '' ? null : body, { status: held.responseStatus, headers });
}

const inFlight = () =>
  new ApiError(
    'IDEMPOTENCY_REQUEST_IN_PROGRESS',
    `A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry shortly`,
    undefined,
    {
      'Retry-After': '1',
    },
  );

async function release(db: Db, pk: ReturnType<typeof and>, claimToken: string): Promise<void> {
  try {
    await db.delete(idempotencyKeys).where(and(pk, eq(idempotencyKeys.claimToken, claimToken)));
  } catch {
    // the in-flight lease expires on its own
  }
}

function parseKey(raw: string | null): string {
  const field = (message: string) =>
    badRequest(`Invalid ${IDEMPOTENCY_HEADER} header: ${message}`, { fields: [{ field: IDEMPOTENCY_HEADER, message }] });
  if (raw === null || raw.trim() === '') throw field('Must not be empty');
  let key = raw.trim();
  // The draft sends the key as a Structured Field string ("..."); plain tokens are accepted too.
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key.length === 0) throw field('Must not be empty');
  if (key.length > MAX_KEY_LENGTH) throw field(`At most ${MAX_KEY_LENGTH} characters`);
  if (!/^[\x20-\x7e]+$/.test(key)) throw field('Only printable ASCII characters are allowed');
  return key;
}

/** SHA-256 of method, path and canonical body: what "the same request" means. */
export function requestFingerprint(method: string, path: string, body: string): string {
  return bytesToHex(sha256(utf8ToBytes(`${method.toUpperCase()}\n${path}\n${canonicalBody(body)}`)));
}

function canonicalBody(body: string): string {
  if (body.trim() === '') return '';
  try {
    return canonicalJson(JSON.parse(body));
  } catch {
    return body;
  }
}

/** Deletes keys past their retention (cron); a bounded batch per call. */
export async function purgeExpiredIdempotencyKeys(db: Db, realNow: number, limit = 500): Promise<void> {
  // Stored times are platform times (never behind the wall clock), so this never purges early.
  await db.run(
    sql`DELETE FROM ${idempotencyKeys} WHERE rowid IN (SELECT rowid FROM ${idempotencyKeys} WHERE ${idempotencyKeys.expiresAt} < ${realNow} LIMIT ${limit})`,
  );
}
