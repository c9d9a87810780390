// Sandbox fault rules in the request runner (the hook router.ts installs in sandbox mode): match a request against its
// platform's live rules, fire one, and shape the answer it gives (ERROR, LATENCY, AFTER_COMMIT, DISCONNECT); plus the
// SQL that keeps the rules' copy on the platform row.
import { and, eq, gt, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db, Statement } from '../db/client';
import type { AroundHandling, HandlingRequest } from '../http/hooks';
import { insertSelect } from '../db/insert-select';
import {
  quoteParties,
  transactionAccounts,
  agents,
  beneficialOwners,
  documents,
  externalAccounts,
  internalAccounts,
  platforms,
  quotes,
  sandboxFaultFirings,
  sandboxFaults,
  transactions,
  verifications,
  type FaultEffect,
  type LiveFault,
  type PlatformRow,
} from '../db/schema';
import { CLOSED_STATUSES, ERRORS, type ErrorCode } from '../http/errors';
import { json } from '../http/responses';
import { openApiPath } from '../http/route-order';

/** Response header naming the rule that produced or changed an answer. */
export const FAULT_HEADER = 'X-Sandbox-Fault';
/** Response header of a faulted answer: the id its firing is recorded under (GET /sandbox/faults/{id}). */
export const REQUEST_ID_HEADER = 'X-Request-Id';
/** Firings kept per rule, the newest. */
export const FIRINGS_KEPT = 20;
/** The routes that manage the rules: no rule ever applies to them. */
export const FAULTS_PATH = '/sandbox/faults';

/** A rule that fired on this request. */
export interface Fired {
  id: string;
  effect: FaultEffect;
  requestId: string;
}

/** The request as matching sees it: its operation, its validated input, and an agent's customer. */
interface Matched {
  method: string;
  /** The route's itty-router path. */
  route: string;
  input: { params: unknown; query: unknown; body: unknown };
  /** The customer an agent acts for (agent-bearer requests). */
  customerId?: string;
}

/** How a firing records the request's path: as log lines show it, a secret parameter (a device code) by its `:name`. */
export type ShownPath = (path: string) => string;

/**
 * The oldest live rule of `platform` matching the request, evaluated (one round trip, only when one matches:
 * a platform without rules, or with rules for other operations, costs nothing; a rule narrowed to a customer or
 * account the request does not name costs one more, see requestScope); the rule if it fired.
 */
export async function fireFault(
  db: Db,
  platform: PlatformRow,
  request: Request,
  req: Matched,
  now: number,
  shown: ShownPath,
): Promise<Fired | undefined> {
  const rules = platform.sandboxFaults;
  if (!rules || req.route.startsWith(FAULTS_PATH)) return undefined;
  const template = openApiPath(req.route);
  const candidates = rules.filter((r) => r.match.method === req.method && r.match.path === template);
  if (!candidates.length) return undefined;
  const scope = await requestScope(db, platform.id, req, candidates);
  const rule = candidates.find(
    (r) => (!r.match.customerId || scope.has(r.match.customerId)) && (!r.match.accountId || scope.has(r.match.accountId)),
  );
  if (!rule) return undefined;
  const requestId = crypto.randomUUID();
  const path = shown(new URL(request.url).pathname);
  const [, fired] = (await db.batch(firingStatements(db, platform.id, rule.id, { at: now, method: req.method, path, requestId }))) as [
    unknown,
    { effect: FaultEffect }[],
  ];
  return fired[0] ? { id: rule.id, effect: fired[0].effect, requestId } : undefined;
}

/** Ids of records a request names, anywhere in its path parameters, query and body (at most a few). */
function namedIds(value: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (typeof value === 'string' && /^[A-Z][A-Za-z]+:[^\s]+$/.test(value) && out.size < 10) out.add(value);
  else if (depth <= 8 && value !== null && typeof value === 'object') for (const v of Object.values(value)) namedIds(v, out, depth + 1);
  return out;
}

/**
 * The customers and accounts a request acts on, for the rules narrowed to one: those it names, an agent's
 * customer, and when it names no customer (or no account) the ones its named records belong to: a quote's
 * customer and accounts (`POST /quotes/{quoteId}/execute` names only the quote), a transaction's, an account's,
 * a beneficial owner's, an agent's, a document's holder, a verification's. That look-up is one round trip, sent only
 * for a rule of this operation narrowed to a customer or account the request does not name.
 */
async function requestScope(db: Db, platformId: string, req: Matched, rules: LiveFault[]): Promise<Set<string>> {
  const scope = namedIds(req.input);
  if (req.customerId) scope.add(req.customerId);
  const named = (prefix: string) => [...scope].some((id) => id.startsWith(prefix));
  const unresolved = rules.some(
    (r) =>
      (r.match.customerId && !scope.has(r.match.customerId) && !named('Customer:')) ||
      (r.match.accountId && !scope.has(r.match.accountId) && !named('InternalAccount:') && !named('ExternalAccount:')),
  );
  const ids = [...scope].filter((id) => !id.startsWith('Customer:'));
  if (!unresolved || !ids.length) return scope;
  const listed = sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  // One select per table in one batch (D1 takes at most five terms in a compound SELECT).
  const of = (table: SQLiteTable & { id: SQLiteColumn; platformId: SQLiteColumn }, ...columns: (SQLiteColumn | SQL)[]) =>
    db
      .select(Object.fromEntries(columns.map((c, i) => [`c${i}`, sql<string | null>`${c}`])))
      .from(table)
      .where(and(eq(table.platformId, platformId), sql`${table.id} IN ${listed}`));
  const related = (await db.batch([
    of(quotes, quoteParties.customer, quoteParties.sourceAccount, quoteParties.receivingAccount),
    of(transactions, transactions.customerId, transactionAccounts.source, transactionAccounts.destination),
    of(internalAccounts, internalAccounts.customerId),
    of(externalAccounts, externalAccounts.customerId),
    of(beneficialOwners, beneficialOwners.customerId),
    of(agents, agents.customerId),
    of(documents, documents.documentHolder),
    of(verifications, verifications.customerId),
  ] as unknown as [Statement, ...Statement[]])) as unknown as Record<string, string | null>[][];
  for (const row of related.flat()) for (const id of Object.values(row)) if (id) scope.add(id);
  return scope;
}

/**
 * A rule's draw for its evaluation number `n`, in [0, 1): a fixed function of (seed, n), so the same rule
 * fires on the same evaluations in every run. Integer arithmetic below 2^63, as SQLite keeps integers.
 */
const drawSql = (seed: SQL | unknown, n: SQL | unknown) => {
  const P = 2147483647;
  const x = sql`((${seed} + ${n} * 1327217885) % ${P})`;
  const y = sql`((${x} * ${x} + ${seed}) % ${P})`;
  return sql`(((${y} * 48271) % ${P}) * 1.0 / ${P})`;
};

/**
 * One evaluation of rule `id`: count it; fire it if its draw is below its probability and it has firings left
 * (its effect is returned), recording the firing (the newest FIRINGS_KEPT are kept) and, when that was its
 * last, refreshing the platform's live rules.
 */
function firingStatements(
  db: Db,
  platformId: string,
  id: string,
  f: { at: number; method: string; path: string; requestId: string },
): [Statement, ...Statement[]] {
  const live = and(eq(sandboxFaults.id, id), eq(sandboxFaults.platformId, platformId), gt(sandboxFaults.remaining, 0));
  return [
    db
      .update(sandboxFaults)
      .set({ evaluations: sql`${sandboxFaults.evaluations} + 1` })
      .where(live),
    db
      .update(sandboxFaults)
      .set({ remaining: sql`${sandboxFaults.remaining} - 1`, firedCount: sql`${sandboxFaults.firedCount} + 1` })
      .where(and(live, sql`${drawSql(sandboxFaults.seed, sandboxFaults.evaluations)} < ${sandboxFaults.probability}`))
      .returning({ effect: sandboxFaults.effect }),
    // changes(): the firing above happened.
    insertSelect(
      db,
      sandboxFaultFirings,
      { ...f, faultId: id, platformId, evaluation: sandboxFaults.evaluations },
      sql`FROM ${sandboxFaults} WHERE ${sandboxFaults.id} = ${id} AND changes() > 0`,
    ),
    db
      .delete(sandboxFaultFirings)
      .where(
        and(
          eq(sandboxFaultFirings.faultId, id),
          sql`${sandboxFaultFirings.evaluation} < (SELECT ${sandboxFaultFirings.evaluation} FROM ${sandboxFaultFirings} WHERE ${sandboxFaultFirings.faultId} = ${id} ORDER BY ${sandboxFaultFirings.evaluation} DESC LIMIT 1 OFFSET ${FIRINGS_KEPT - 1})`,
        ),
      ),
    refreshLiveFaults(
      db,
      platformId,
      sql`EXISTS (SELECT 1 FROM ${sandboxFaults} WHERE ${sandboxFaults.id} = ${id} AND ${sandboxFaults.remaining} = 0)`,
    ),
  ];
}

/**
 * Rewrites the platform's copy of its live rules (remaining > 0, oldest first; NULL when none), where `when`
 * holds: every batch that creates, deletes or exhausts a rule ends with it.
 */
export function refreshLiveFaults(db: Db, platformId: string, when: SQL = sql`1`): Statement {
  const t = sandboxFaults;
  const live = sql`(SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_group_array(json_object('id', id, 'match', json(match))) END FROM (SELECT ${t.id} AS id, ${t.match} AS match FROM ${t} WHERE ${t.platformId} = ${platformId} AND ${t.remaining} > 0 ORDER BY ${t.createdAt}, ${t.id}))`;
  return db
    .update(platforms)
    .set({ sandboxFaults: live })
    .where(and(eq(platforms.id, platformId), when));
}

/** The reason a DISCONNECT's body is cut with: what a client inside workerd (SELF.fetch) reads the body's failure as. */
export const DISCONNECT_REASON = 'Sandbox fault: connection dropped';

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What a fired rule does before the request is handled: LATENCY waits; ERROR answers instead (the request is
 * not handled at all). Undefined: handle the request.
 */
export async function beforeHandling(fired: Fired): Promise<Response | undefined> {
  const e = fired.effect;
  if (e.type === 'LATENCY') await wait(e.delayMs);
  if (e.type !== 'ERROR') return undefined;
  const headers: Record<string, string> = e.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(e.retryAfterSeconds) };
  return faultError(fired, e.status, 'answered without handling the request', headers);
}

/**
 * What a fired rule does to the real answer: AFTER_COMMIT replaces it with its error (what was done stays done,
 * and an Idempotency-Key replays the real answer); DISCONNECT sends its status and headers with the real
 * Content-Length, then half the body, then aborts the stream: workerd cannot drop a connection before the
 * headers, but an aborted fixed-length body makes it cut the connection, and the client sees a truncated answer.
 * Every way of cutting a body is an exception to workerd; the abort's reason is marked `retryable`, which makes it a
 * disconnection (kj DISCONNECTED) that workerd's HTTP server lets pass quietly instead of printing
 * "Uncaught exception" with a stack at each firing (a plain Error would).
 */
export async function afterHandling(fired: Fired, response: Response): Promise<Response> {
  const e = fired.effect;
  if (e.type === 'AFTER_COMMIT') return faultError(fired, e.status, 'the request was handled and committed; its answer is replaced');
  const headers = new Headers(response.headers);
  headers.set(FAULT_HEADER, fired.id);
  headers.set(REQUEST_ID_HEADER, fired.requestId);
  if (e.type !== 'DISCONNECT') return new Response(response.body, { status: response.status, headers });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const { readable, writable } = new FixedLengthStream(Math.max(bytes.length, 1));
  const writer = writable.getWriter();
  void writer
    .write(bytes.slice(0, Math.floor(bytes.length / 2)))
    .then(() => writer.abort(Object.assign(new Error(DISCONNECT_REASON), { retryable: true })))
    .catch(() => {});
  // Compressed on its way (a client accepting gzip), the aborted body would arrive as a complete empty one.
  headers.set('Content-Encoding', 'identity');
  return new Response(readable, { status: response.status, headers });
}

/**
 * The code a fault answers `status` with: INTERNAL_ERROR for 5xx, else the API's generic code for it (the first
 * of the status in the table: 404 REFERENCE_NOT_FOUND, 412 UNSUPPORTED_UMA_VERSION, 424 LNURLP_REQUEST_FAILED,
 * 429 RATE_LIMITED), else INVALID_INPUT. A status the reference closes without such a code (501) is refused when
 * the rule is made.
 */
export function faultCode(status: number): ErrorCode {
  if (status >= 500) return 'INTERNAL_ERROR';
  const own = (Object.keys(ERRORS) as ErrorCode[]).find((code) => ERRORS[code] === status);
  return own ?? 'INVALID_INPUT';
}

/** Whether a fault may answer `status`: with a code inside the reference's enum where the reference closes it. */
export const faultAnswerable = (status: number): boolean =>
  !CLOSED_STATUSES.includes(status) || (Object.values(ERRORS) as number[]).includes(status);

function faultError(fired: Fired, status: number, what: string, headers: Record<string, string> = {}): Response {
  const body = { status, code: faultCode(status), message: `Sandbox fault ${fired.id}: ${what}`, details: { sandboxFault: fired.id } };
  return json(body, status, { ...headers, [FAULT_HEADER]: fired.id, [REQUEST_ID_HEADER]: fired.requestId });
}

/**
 * The runner's hook (router.ts installs it in sandbox mode only): a rule of the platform that fires on the
 * request answers instead of it (ERROR), delays it (LATENCY) or changes its answer (AFTER_COMMIT, DISCONNECT).
 */
export async function faultsAround(r: HandlingRequest, shown: ShownPath): Promise<AroundHandling | undefined> {
  const fired = await fireFault(
    r.db,
    r.platform,
    r.request,
    { method: r.method, route: r.route, input: r.input, customerId: r.customerId },
    r.now,
    shown,
  );
  if (!fired) return undefined;
  const instead = await beforeHandling(fired);
  return instead ? { instead } : { after: (response) => afterHandling(fired, response) };
}
