// Idempotency-Key: the protocol a route's runner follows (claim, act, record with the change, replay) and the
// store behind it (claim, record, replay, release on `idempotency_keys`), with fingerprints and the purge.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { loadTogether, namedGuard, type Db, type Loaded, type Statement } from '../db/client';
import { errorText, isNamedGuardFailure } from '../db/errors';
import { insertSelect } from '../db/insert-select';
import { canonicalJson } from '../crypto/canonical';
import { idempotencyKeys, platforms, type IdempotencyKeyRow } from '../db/schema';
import { randomToken } from '../crypto/secrets';
import { ApiError, badRequest, errorResponse, FINAL_CONFLICT_HEADERS } from './errors';
import { commitChange, isChange, type Change } from './change';
import type { Logger } from './log';
import { json } from './responses';

/** Request header of the IETF Idempotency-Key draft. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const MAX_KEY_LENGTH = 255;
/** An Idempotency-Key is remembered this long; afterwards a request with it acts again. */
export const KEY_TTL_MS = 24 * 60 * 60_000;
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
  /** Key namespace inside the platform: `platform` for API-token callers, `agent:<id>` for an agent. */
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

/** What a route declares as `idempotent`: whose keys these are, and which answers replay. */
export interface IdempotentOption {
  /** `platform`: one key space per platform; `agent`: one per agent of the platform. */
  scope: 'platform' | 'agent';
  /** Whether an answer is kept for replays; default: every status below 500 (a 5xx releases the key). */
  replays?: (status: number) => boolean;
}

/** The key a request holds, once claimed (`token` fences every write made under it). */
export interface HeldKey {
  platformId: string;
  scope: string;
  key: string;
  token: string;
}

/**
 * Where keys live: claim a key (statements for the request's first round trip: authentication's, when the
 * route loads with it), take over an expired or abandoned claim, record the answer (statements for the batch
 * that does the work, fenced on the claim), replay a held key's answer, release a claim.
 */
export interface IdempotencyStore {
  claim(db: Db, r: ClaimInput): ClaimLoads;
  takeOver(
    db: Db,
    r: ClaimInput & { scope: string; now: number },
    held: IdempotencyKeyRow,
  ): Promise<{ token: string } | { held?: IdempotencyKeyRow }>;
  record(db: Db, key: HeldKey, status: number, body: string): Statement[];
  replay(held: IdempotencyKeyRow | undefined, fingerprint: string): Response;
  release(db: Db, key: HeldKey): Promise<void>;
}

interface ClaimInput {
  platformId: string | SQL;
  /** SQL in an authentication batch (an agent's scope names its id). */
  scope: string | SQL;
  key: string;
  fingerprint: string;
  /** The platform's time: a number, or SQL in an authentication batch. */
  at: number | SQL;
}

/** The claim round trip's results: the token when this request claimed the key, and whoever holds it. */
export type ClaimLoads = ReturnType<typeof claimLoads>;

/** A request's parsed Idempotency-Key and the fingerprint of what it asks. */
export interface Keyed {
  key: string;
  fingerprint: string;
}

/** The parsed key and fingerprint of a request that sent the header, or the 400 its key earns. */
export function keyOf(request: Request, rawBody: string): Keyed | { error: ApiError } | undefined {
  if (!request.headers.has(IDEMPOTENCY_HEADER)) return undefined;
  try {
    const key = parseKey(request.headers.get(IDEMPOTENCY_HEADER));
    const url = new URL(request.url);
    return { key, fingerprint: requestFingerprint(request.method, url.pathname + url.search, rawBody) };
  } catch (error) {
    return { error: error as ApiError };
  }
}

/**
 * The key space of a route's Idempotency-Key: the agent's own (`agent:<id>`), or the platform's. In the
 * authentication batch the agent's id is SQL; after it, a string: the claim and its release name the same space.
 */
export function keyScope(option: IdempotentOption, agentId: string | undefined): string;
export function keyScope(option: IdempotentOption, agentId: SQL): SQL | string;
export function keyScope(option: IdempotentOption, agentId: SQL | string | undefined): SQL | string {
  if (option.scope !== 'agent' || agentId === undefined) return 'platform';
  return typeof agentId === 'string' ? `agent:${agentId}` : sql`'agent:' || ${agentId}`;
}

/** The claim as loads for an authentication batch: `platformId` is SQL for the authenticated platform (NULL: nothing claimed). */
export function claimInAuthBatch(db: Db, scope: SQL | string, keyed: Keyed, platformId: SQL, wall: number) {
  // The platform's time, as `c.now` will be: the wall clock plus its sandbox offset.
  return claimLoads(db, {
    platformId,
    scope: scope as string,
    key: keyed.key,
    fingerprint: keyed.fingerprint,
    at: sql`(${wall} + ${platforms.clockOffsetMs})`,
  });
}

/** Claim the key if free, and read whoever holds it. */
function claimLoads(db: Db, r: ClaimInput) {
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
      : insertSelect(
          db,
          idempotencyKeys,
          {
            platformId: platforms.id,
            scope: r.scope,
            key: r.key,
            fingerprint: r.fingerprint,
            state: 'IN_FLIGHT',
            claimToken,
            lockedUntil: sql`${r.at} + ${IN_FLIGHT_LEASE_MS}`,
            createdAt: r.at,
            expiresAt: sql`${r.at} + ${KEY_TTL_MS}`,
          },
          sql`FROM ${platforms} WHERE ${platforms.id} = ${r.platformId}`,
        );
  return {
    idempotencyClaim: claim.onConflictDoNothing().returning({ claimToken: idempotencyKeys.claimToken }),
    idempotencyHolder: db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.platformId, r.platformId), eq(idempotencyKeys.scope, r.scope), eq(idempotencyKeys.key, r.key))),
  };
}

const keyWhere = (k: { platformId: string; scope: string; key: string }) =>
  and(eq(idempotencyKeys.platformId, k.platformId), eq(idempotencyKeys.scope, k.scope), eq(idempotencyKeys.key, k.key));

/** A failed fence: the claim lapsed and another attempt of the request holds the key now. */
const FENCE = 'IDEMPOTENCY_CLAIM_HELD';

/** The Idempotency-Key store on D1's `idempotency_keys`. */
export const d1Store: IdempotencyStore = {
  claim: claimLoads,
  async takeOver(db, r, held) {
    const token = randomToken(16);
    const k = { platformId: r.platformId as string, scope: r.scope, key: r.key };
    const taken = await db
      .update(idempotencyKeys)
      .set({
        fingerprint: r.fingerprint,
        state: 'IN_FLIGHT',
        claimToken: token,
        lockedUntil: r.now + IN_FLIGHT_LEASE_MS,
        responseStatus: null,
        responseBody: null,
        createdAt: r.now,
        expiresAt: r.now + KEY_TTL_MS,
      })
      .where(and(keyWhere(k), eq(idempotencyKeys.claimToken, held.claimToken)))
      .returning({ key: idempotencyKeys.key });
    if (taken.length > 0) return { token };
    return { held: (await db.select().from(idempotencyKeys).where(keyWhere(k)))[0] };
  },
  record(db, k, status, body) {
    // Fenced: if the claim lapsed and another attempt took the key over, the whole batch fails and nothing
    // of this attempt happens (the other attempt's answer is the key's).
    return [
      db
        .update(idempotencyKeys)
        .set({ state: 'DONE', responseStatus: status, responseBody: body })
        .where(and(keyWhere(k), eq(idempotencyKeys.claimToken, k.token))),
      namedGuard(db, FENCE, sql`changes() > 0`),
    ];
  },
  replay: answerRepeat,
  async release(db, k) {
    try {
      await db.delete(idempotencyKeys).where(and(keyWhere(k), eq(idempotencyKeys.claimToken, k.token)));
    } catch {
      // the in-flight lease expires on its own
    }
  },
};

/** The request a route's runner runs under its key (`scope`: `keyScope`), at the platform's time `now`. */
export function idempotentRequest(request: Request, platformId: string, scope: string, rawBody: string, now: number): IdempotentRequest {
  const url = new URL(request.url);
  const key = request.headers.get(IDEMPOTENCY_HEADER);
  return { platformId, scope, key, method: request.method, path: url.pathname + url.search, body: rawBody, now };
}

/** Gives back a key this request claimed (none: nothing to do): it was refused before it acted, so a retry acts. */
export async function releaseClaim(db: Db, held: HeldKey | undefined, store: IdempotencyStore = d1Store): Promise<void> {
  if (held) await store.release(db, held);
}

export interface RunOptions {
  /** Which answers are kept for replays (`IdempotentOption.replays`). */
  replays?: (status: number) => boolean;
  /** The claim round trip's results when it ran with authentication; without them the claim runs now. */
  claimed?: Loaded<ClaimLoads>;
  store?: IdempotencyStore;
}

/**
 * Runs `action` at most once per (platform, scope, Idempotency-Key), per the IETF Idempotency-Key draft:
 * the first request claims the key; a repeat of the same request replays the stored answer
 * (`Idempotent-Replayed: true`) without acting; the same key with a different request is 422; a repeat while
 * the first is in flight is 409. An action returning a Change commits it with its answer's record in one
 * batch; a Response (or a 4xx error) is recorded after it. 5xx answers are not kept: the key is released so
 * the client may retry.
 */
export async function runIdempotent(
  deps: { db: Db; queue: Queue<unknown>; log?: Logger },
  req: IdempotentRequest,
  action: () => Promise<Response | Change>,
  opts: RunOptions = {},
): Promise<Response> {
  const { db } = deps;
  const store = opts.store ?? d1Store;
  const key = parseKey(req.key);
  const fingerprint = requestFingerprint(req.method, req.path, req.body);
  const input = { platformId: req.platformId, scope: req.scope, key, fingerprint, at: req.now, now: req.now };
  const loaded = opts.claimed ?? (await loadTogether(db, store.claim(db, input)));
  let token = loaded.idempotencyClaim[0]?.claimToken;
  let held: IdempotencyKeyRow | undefined = loaded.idempotencyHolder[0];
  if (!token && held && (held.expiresAt <= req.now || (held.state === 'IN_FLIGHT' && held.lockedUntil <= req.now))) {
    // Expired key, or a claimant that died: take it over, unless someone else just did.
    const taken = await store.takeOver(db, input, held);
    if ('token' in taken) token = taken.token;
    else held = taken.held;
  }
  if (!token) return store.replay(held, fingerprint);
  const mine: HeldKey = { platformId: req.platformId, scope: req.scope, key, token };

  const keep = opts.replays ?? ((status: number) => status < 500);
  let response: Response;
  try {
    const result = await action();
    if (isChange(result)) {
      const change = { ...result, refusals: { ...result.refusals, [FENCE]: inFlight() } };
      // The change commits together with its answer's record: a repeat replays that, whatever fails after.
      const done = await commitChange(deps, change, (c) => store.record(db, mine, c.status, JSON.stringify(c.body)));
      return json(done.body, done.status);
    }
    response = result;
  } catch (error) {
    // Another attempt holds the key now: it answers for the key.
    if (error instanceof ApiError && error.is('IDEMPOTENCY_REQUEST_IN_PROGRESS')) throw error;
    if (!(error instanceof ApiError) || error.status >= 500) {
      await store.release(db, mine);
      throw error;
    }
    response = errorResponse(error);
  }
  if (!keep(response.status)) {
    await store.release(db, mine);
    return response;
  }
  const body = await response.text();
  await db.batch(store.record(db, mine, response.status, body) as [Statement, ...Statement[]]).catch((error: unknown) => {
    if (!isNamedGuardFailure(errorText(error), FENCE)) throw error;
  });
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
