// Moving a platform to another home (the operator's): hold its writes, copy its rows, switch the directory,
// delete the old copy behind forwards for its credentials, release. Each step can be repeated, so a move that
// stopped anywhere is finished by asking for it again.
import { and, count, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { database, namedGuard, type Db, type Statement } from '../db/client';
import { errorText, isNamedGuardFailure } from '../db/errors';
import { FIRST_HOME, homeD1, homesOf } from '../db/homes';
import { PLATFORM_DATA, type PlatformTable } from '../db/platform-data';
import {
  agentDeviceCodes,
  agentTokens,
  apiTokens,
  beneficialOwners,
  externalAccounts,
  homeForwards,
  internalAccounts,
  invitations,
  kycLinks,
  listCounts,
  otpEmailSends,
  platformHomes,
  platforms,
  quotes,
  receiverLookups,
  sandboxFaultFirings,
  sandboxFaults,
  sandboxSnapshotRows,
  sandboxSnapshots,
  transactions,
  webhookDeliveries,
  type MoveProgress,
} from '../db/schema';
import { invalidFields, notFound, retryableConflict } from '../http/errors';

/** The steps of a move, in order; a test stops a move after one to see that asking again finishes it. */
export const MOVE_STEPS = ['held', 'copied', 'switched', 'cleaned', 'released'] as const;
export type MoveStep = (typeof MOVE_STEPS)[number];

/**
 * How long a move waits, once the platform's writes are refused, before it copies: a write that authenticated
 * just before the hold commits within its own request, well inside this.
 */
export const DRAIN_MS = 2_000;

const byPlatform = (table: SQLiteTable & { platformId: SQLiteColumn }): PlatformTable => ({
  kind: getTableConfig(table).name,
  table,
  rowsOf: (platformId) => eq(table.platformId, platformId),
});

/**
 * Everything of a platform in its home, parents before children (the order rows are inserted in; deletes go
 * backwards): its row, its API tokens, its data (PLATFORM_DATA, whose order is children first), its sandbox
 * fault rules and snapshots, and last its list counts: the rows copied before made counts through triggers,
 * which the first page of the old home's counts replaces (one list per customer: paged like any table). Not
 * here: what else triggers derive from these rows (the customer search index and currencies; quotes' status).
 */
const MOVED: readonly PlatformTable[] = [
  { kind: 'platforms', table: platforms, rowsOf: (id) => eq(platforms.id, id) },
  byPlatform(apiTokens),
  ...[...PLATFORM_DATA].reverse(),
  byPlatform(sandboxFaults),
  byPlatform(sandboxFaultFirings),
  byPlatform(sandboxSnapshots),
  {
    kind: 'sandbox_snapshot_rows',
    table: sandboxSnapshotRows,
    rowsOf: (id) =>
      sql`${sandboxSnapshotRows.snapshotId} IN (SELECT ${sandboxSnapshots.id} FROM ${sandboxSnapshots} WHERE ${sandboxSnapshots.platformId} = ${id})`,
  },
  byPlatform(listCounts),
];

// Rows a copy page: one statement each (D1 binds at most 100 values a statement; a wide row takes ~40).
const PAGE = 100;

/**
 * Database round trips one move request may use (a Worker invocation may send at most 1,000 queries): a larger
 * platform is moved over several requests, each going on where the last stopped.
 */
export const MOVE_ROUND_TRIPS = 500;

/** Thrown when the request's round trips run out: everything done so far is kept, and asking again goes on. */
class OutOfRoundTrips extends Error {}

/** The round trips left to this request; `take` before each one. One is kept for `last`. */
class RoundTrips {
  private left: number;
  constructor(budget: number) {
    this.left = budget - 1;
  }
  take(n = 1) {
    if (this.left < n) throw new OutOfRoundTrips();
    this.left -= n;
  }
  /** The kept one: the write that saves how far the request got before it stops. */
  last() {
    this.left = 0;
  }
}

/** A table's primary key columns (none when it declares none). */
function primaryColumns(table: SQLiteTable): SQLiteColumn[] {
  const config = getTableConfig(table);
  return config.primaryKeys[0]?.columns ?? config.columns.filter((c) => c.primary);
}

/** A table's key, in the order pages are read: its primary key, or its rowid when it declares none. */
function keyOf(table: SQLiteTable): SQL[] {
  const columns = primaryColumns(table);
  return columns.length ? columns.map((c) => sql`${table}.${sql.identifier(c.name)}`) : [sql`${table}.rowid`];
}

/**
 * The tables copied in the order of a platform index rather than by their primary key, by that index's columns
 * after `platform_id`: columns set once (so a row keeps its place while the copy goes on), NOT NULL but the first
 * (a row-value comparison passes no NULL: `afterKey` pages a NULL first column apart), ending in the primary key
 * (so the key is unique, and longer than the primary key a place saved by an earlier release names). A page then
 * reads its rows from that index in order. Transactions, quotes and webhook deliveries, a platform's largest
 * tables, go by created_at then id (the id, not the rowid, which a VACUUM may renumber; rows of one created_at
 * are read in id order); accounts by their customer (NULL, first, for the platform's own) then id.
 */
const INDEX_KEYS = new Map<SQLiteTable, SQLiteColumn[]>([
  [transactions, [transactions.createdAt, transactions.id]],
  [quotes, [quotes.createdAt, quotes.id]],
  [webhookDeliveries, [webhookDeliveries.createdAt, webhookDeliveries.id]],
  [invitations, [invitations.createdAt, invitations.code]],
  [beneficialOwners, [beneficialOwners.customerId, beneficialOwners.id]],
  [sandboxFaults, [sandboxFaults.createdAt, sandboxFaults.id]],
  [internalAccounts, [internalAccounts.customerId, internalAccounts.id]],
  [externalAccounts, [externalAccounts.customerId, externalAccounts.id]],
  // Indexes that end before the key: a page sorts only the rows of its first value of their last column.
  [kycLinks, [kycLinks.customerId, kycLinks.id]],
  [receiverLookups, [receiverLookups.expiresAt, receiverLookups.id]],
  [otpEmailSends, [otpEmailSends.address, otpEmailSends.sentAt, otpEmailSends.id]],
]);
for (const [table, columns] of INDEX_KEYS) {
  const primary = primaryColumns(table);
  if (columns.slice(1).some((c) => !c.notNull) || columns.length <= primary.length || primary.some((c) => !columns.includes(c)))
    throw new Error(
      `${getTableConfig(table).name}: a copy's page key must be NOT NULL but its first column, and hold the primary key, and more`,
    );
}

/**
 * The rows after the place `after` in `key` order (ascending, NULLs first). A NULL first column (an account of the
 * platform itself) compares as nothing in a row value, so its rows go by the rest of the key, then every row
 * whose first column is set.
 */
function afterKey(key: SQL[], after: unknown[]): SQL {
  const values = after.map((v) => sql`${v}`);
  if (after[0] !== null) return sql`${tuple(key)} > ${tuple(values)}`;
  const [first, ...rest] = key;
  return sql`((${first} IS NULL AND ${tuple(rest)} > ${tuple(values.slice(1))}) OR ${first} IS NOT NULL)`;
}

/**
 * The key a table's copy pages by: its index key (INDEX_KEYS), else its primary key, which its platform index
 * may not order (each page then sorts the platform's rows of that table) or no platform index holds (each page
 * walks the table's key).
 */
function pageKeyOf(table: SQLiteTable): SQL[] {
  const indexed = INDEX_KEYS.get(table);
  return indexed ? indexed.map((c) => sql`${table}.${sql.identifier(c.name)}`) : keyOf(table);
}

const tuple = (parts: SQL[]) => sql`(${sql.join(parts, sql`, `)})`;

const progressOf = (to: Db, platformId: string, progress: MoveProgress) =>
  to.update(platforms).set({ moveProgress: progress }).where(eq(platforms.id, platformId));

/**
 * The target's progress as a request last saw it saved: null while the target has no platform row, else the
 * column's JSON text (null when an earlier release's copy saved none). Every write of the copy names the progress
 * it goes on from, so of two requests going on with one move at the same time only one advances; the other's
 * batch fails on `unchanged` and changes nothing (409: ask again).
 */
type Saved = { text: string | null } | null;
const savedOf = (progress: MoveProgress | null): Saved => ({ text: progress === null ? null : JSON.stringify(progress) });
const MOVED_ON_MEANWHILE = 'move-went-on-in-another-request';
const progressIs = (platformId: string, saved: Saved) =>
  saved === null
    ? sql`NOT EXISTS (SELECT 1 FROM ${platforms} WHERE ${platforms.id} = ${platformId})`
    : sql`EXISTS (SELECT 1 FROM ${platforms} WHERE ${platforms.id} = ${platformId} AND ${platforms.moveProgress} IS ${saved.text})`;
const unchanged = (to: Db, platformId: string, saved: Saved) => namedGuard(to, MOVED_ON_MEANWHILE, progressIs(platformId, saved));

/** Saves `progress` unless another request moved the saved progress on meanwhile; true when it saved. */
async function saveIfUnchanged(to: Db, platformId: string, saved: Saved, progress: MoveProgress): Promise<boolean> {
  if (saved === null) return false;
  const result = await to
    .update(platforms)
    .set({ moveProgress: progress })
    .where(and(eq(platforms.id, platformId), sql`${platforms.moveProgress} IS ${saved.text}`));
  return (result.meta.changes ?? 0) > 0;
}

/** What a request's copy did: the rows it copied, the progress it last saw saved, and what it made since unsaved. */
interface CopyRun {
  rowsCopied: number;
  saved: Saved;
  unsaved?: MoveProgress;
}

/**
 * Copies the platform's rows from `progress` on, table by table in MOVED's order, a page at a time in key
 * order. Each page's rows go in one batch with the progress they make (in the target's platform row, which
 * the first page brings), so a copy that stops anywhere goes on from its last page, none twice.
 */
async function copyFrom(from: Db, to: Db, platformId: string, progress: MoveProgress, page: number, trips: RoundTrips, copied: CopyRun) {
  for (let index = progress.table, after = progress.after; index < MOVED.length; index++, after = null) {
    await copyTable(from, to, platformId, index, after, page, trips, copied);
    // Tables found whole or empty since the last page written: saved by the next write, or as the request stops.
    copied.unsaved = { table: index + 1, after: null };
  }
}

/**
 * The copy's read of one page: `MOVED[index]`'s rows of the platform after the key `after`, in key order, each
 * value as stored (no column's mapping runs, so a row an earlier release wrote, a JSON object this release would
 * pack, arrives byte for byte, as the copy check expects) with its key as `_k0`, `_k1`, ….
 */
export function copyPage(from: Db, index: number, platformId: string, after: unknown[] | null, page: number) {
  const { table, rowsOf } = MOVED[index]!;
  const key = pageKeyOf(table);
  const keyFields = Object.fromEntries(key.map((k, i) => [`_k${i}`, k]));
  const stored = Object.fromEntries(Object.entries(getTableColumns(table)).map(([name, column]) => [name, sql`${column}`]));
  return from
    .select({ ...stored, ...keyFields })
    .from(table)
    .where(and(rowsOf(platformId), after ? afterKey(key, after) : undefined))
    .orderBy(...key)
    .limit(page);
}

/** The tables a move copies, in order (`copyPage`'s indexes), with the length of each one's page key. */
export const movedTables = () => MOVED.map(({ table }) => ({ name: getTableConfig(table).name, keyLength: pageKeyOf(table).length }));

/** One table's rows from the key `after` on (see copyFrom); a page's batch saves the progress it makes. */
async function copyTable(
  from: Db,
  to: Db,
  platformId: string,
  index: number,
  after: unknown[] | null,
  page: number,
  trips: RoundTrips,
  copied: CopyRun,
): Promise<void> {
  const { table } = MOVED[index]!;
  const key = pageKeyOf(table);
  const isKey = (field: string) => /^_k\d+$/.test(field);
  if (after && after.length !== key.length) {
    // A place an earlier release saved in another key's order: this table's copy starts over.
    await deleteTable(to, MOVED[index]!, platformId, trips);
    after = null;
  }
  let first = after === null;
  for (;;) {
    trips.take();
    const rows = (await copyPage(from, index, platformId, after, page)) as Record<string, unknown>[];
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    after = key.map((_, i) => last[`_k${i}`]);
    // Written back as read, each value as stored.
    const inserts = rows.map((row) =>
      to.insert(table).values(Object.fromEntries(Object.entries(row).flatMap(([k, v]) => (isKey(k) ? [] : [[k, sql`${v}`]])))),
    );
    const progress: MoveProgress = { table: index, after };
    // The counts' first page also takes away what the triggers counted here, in the same batch.
    const replaced = table === listCounts && first ? [to.delete(listCounts).where(eq(listCounts.platformId, platformId))] : [];
    first = false;
    trips.take();
    await to.batch([unchanged(to, platformId, copied.saved), ...replaced, ...inserts, progressOf(to, platformId, progress)] as unknown as [
      Statement,
      ...Statement[],
    ]);
    copied.saved = savedOf(progress);
    copied.rowsCopied += rows.length;
    copied.unsaved = undefined;
    if (rows.length < page) return;
  }
}

/** Deletes one table's rows of the platform, a page at a time (no statement grows with the platform). */
async function deleteTable(db: Db, { table, rowsOf }: PlatformTable, platformId: string, trips: RoundTrips): Promise<void> {
  const columns = keyOf(table);
  const key = tuple(columns);
  for (;;) {
    trips.take();
    const page = sql`SELECT ${sql.join(columns, sql`, `)} FROM ${table} WHERE ${rowsOf(platformId)} LIMIT ${PAGE * 10}`;
    const result = await db.run(sql`DELETE FROM ${table} WHERE ${key} IN (${page})`);
    if ((result.meta.changes ?? 0) === 0) return;
  }
}

/**
 * Deletes everything of the platform in `db`, children first and its platform row last (with the customer
 * search's range and the list counts just before it, which triggers made), so a home without the platform's
 * row holds nothing of it. A request that stops saves, in that row, the tables it emptied; the next goes on.
 * With `claim` (a copy to make again, see moveSteps), its saves and the last delete are made only while the
 * claim is still the saved progress: else another request took the clearing over, and this one stops (409).
 */
async function deleteAll(db: Db, platformId: string, trips: RoundTrips, claim?: Saved, cleared?: () => Promise<void>): Promise<void> {
  const [platformRow, ...rest] = MOVED;
  const children = [...rest].reverse();
  trips.take();
  const [row] = await db.select({ progress: platforms.moveProgress }).from(platforms).where(eq(platforms.id, platformId)).limit(1);
  if (!row) return;
  const start = row.progress?.clearing ? row.progress.table : 0;
  let index = start;
  try {
    for (; index < children.length; index++) await deleteTable(db, children[index]!, platformId, trips);
    trips.take(2);
    await db.run(sql`DELETE FROM customer_search_ranges WHERE platform_id = ${platformId}`);
    await db.delete(listCounts).where(eq(listCounts.platformId, platformId));
    if (claim === undefined) return await deleteTable(db, platformRow!, platformId, trips);
    await cleared?.();
    trips.take();
    const gone = await db.run(sql`DELETE FROM ${platforms} WHERE ${progressIs(platformId, claim)} AND ${platforms.id} = ${platformId}`);
    if ((gone.meta.changes ?? 0) === 0) throw alongside();
  } catch (error) {
    // Saved also when every child table is empty and only the last steps are left (index is then past them):
    // otherwise a request whose round trips end there would leave the next one to start over from the same place.
    if (error instanceof OutOfRoundTrips && index > start) {
      trips.last();
      const progress: MoveProgress = { table: index, after: null, clearing: true };
      await (claim === undefined ? progressOf(db, platformId, progress) : saveIfUnchanged(db, platformId, claim, progress));
    }
    throw error;
  }
}

/**
 * What the copy is checked by, for each table: the count of the platform's rows and sums over every column of
 * them, whatever the table (integers as residues, so no sum overflows; reals as a float total; text, JSON and
 * blobs by length; a NULL apart from 0 and ''). A write that authenticated before the hold and committed in the
 * source after its table was copied changes a count, a number (a balance, a version, an `updated_at`, a counter,
 * a timestamp set) or a length (a status, a JSON body, a value set where there was none), and the copy is made
 * again. Only the move's own bookkeeping on the platform row is left out.
 */
async function fingerprint(db: Db, platformId: string): Promise<string> {
  const statements = MOVED.map(({ table, rowsOf }) =>
    db
      .select({ n: sql<string>`${count()} || ':' || ${contentSums(table)}` })
      .from(table)
      .where(rowsOf(platformId)),
  );
  const results = (await db.batch(statements as unknown as [Statement, ...Statement[]])) as { n: string }[][];
  return results.map((r) => r[0]?.n ?? 0).join(',');
}

// Below 2^31: a row's residues add up to less than 2^37, so a table of 10^8 rows sums inside 64 bits.
const RESIDUE = 2_147_483_647;
const BOOKKEEPING = new Set<SQLiteColumn>([platforms.heldSince, platforms.moveProgress]);

/** `integers:reals:lengths` summed over the rows a select reads (see `fingerprint`). */
function contentSums(table: SQLiteTable): SQL {
  const columns = Object.values(getTableColumns(table) as Record<string, SQLiteColumn>).filter((c) => !BOOKKEEPING.has(c));
  const kind = (c: SQLiteColumn) =>
    ['SQLiteInteger', 'SQLiteTimestamp', 'SQLiteBoolean'].includes(c.columnType)
      ? 'integer'
      : c.columnType === 'SQLiteReal'
        ? 'real'
        : 'length';
  const terms = (k: string, term: (c: SQLiteColumn) => SQL) => {
    const of = columns.filter((c) => kind(c) === k).map(term);
    return of.length ? sql.join(of, sql` + `) : sql`0`;
  };
  const integers = terms('integer', (c) => sql`coalesce(${c} % ${sql.raw(String(RESIDUE))} + 1, 0)`);
  const reals = terms('real', (c) => sql`coalesce(${c} + 1, 0)`);
  const lengths = terms('length', (c) => sql`coalesce(length(${c}) + 1, 0)`);
  return sql`coalesce(sum(${integers}), 0) || ':' || total(${reals}) || ':' || coalesce(sum(${lengths}), 0)`;
}

// Copies made again in one request when the source changed meanwhile, before it gives up (409: asking again retries).
const COPY_ATTEMPTS = 3;

const alongside = () => retryableConflict('Another request is going on with this move right now: ask again once it has answered');

const moving = (home: string) => retryableConflict(`A move of this platform to ${home} is under way: ask for that one to finish it`);

export interface MoveOptions {
  drainMs: number;
  /** Round trips this request may use (MOVE_ROUND_TRIPS); the move answers `done: false` when they run out. */
  roundTrips?: number;
  /** Rows a copy page (tests make it small, to stop a copy inside a table). */
  pageRows?: number;
  /** Stops the move after this step, as a timeout or a deploy would (tests). */
  stopAfter?: MoveStep;
  /** Runs after each copy, before it is checked (tests write to the source there, as a late write would). */
  copied?: () => Promise<void>;
  /** Runs when a copy to make again is cleared, before its platform row goes (tests change the claim there). */
  cleared?: () => Promise<void>;
}

export interface MoveResult {
  platformId: string;
  home: string;
  from: string;
  /** Rows copied by this request. */
  rowsCopied: number;
  /** False when this request ran out of round trips (or stopped): asking again goes on from there. */
  done: boolean;
}

/**
 * Moves a platform to `target`, or goes on with the move that stopped: the directory says where it stands
 * (`moving_to` until the switch, `moved_from` until the end), the target's platform row how far the copy got.
 *
 * 1. held: the platform's writes are refused with a retryable 409 (`held_since`, read with its credentials), and
 *    so is its background work; reads go on. The move waits `drainMs` from the hold for writes that
 *    authenticated just before.
 * 2. copied: every row is copied, page by page, from where an earlier request stopped; the list counts are set
 *    to the source's; the copy is checked (`fingerprint`) and made again if the source changed meanwhile.
 * 3. switched: the directory names the target; the source's copy is still whole, so a request that reaches it
 *    (its credentials name it) reads what it read before.
 * 4. cleaned: the source keeps forwards for the platform's credentials and secrets, deleted with them in one
 *    batch (a request naming the source then finds its forward, never a half-deleted platform), then the rest.
 * 5. released: the target's writes are accepted again.
 *
 * A request uses at most `roundTrips` database round trips; the move then answers `done: false` and the next
 * request goes on (each step is kept as it is made).
 */
export async function movePlatform(
  env: object,
  directory: Db,
  platformId: string,
  target: string,
  now: number,
  options: MoveOptions = { drainMs: DRAIN_MS },
): Promise<MoveResult> {
  if (!homesOf(env).includes(target)) {
    throw invalidFields('request body', [
      { field: 'home', message: `No data database is bound as ${target}: one of ${homesOf(env).join(', ')}` },
    ]);
  }
  const [entry] = await directory.select().from(platformHomes).where(eq(platformHomes.platformId, platformId)).limit(1);
  if (!entry) throw notFound('PLATFORM_NOT_FOUND', 'Platform not found');
  if (entry.movedFrom === null && entry.movingTo === null && entry.home === target) {
    return { platformId, home: target, from: target, rowsCopied: 0, done: true };
  }
  if (entry.movedFrom === null && entry.movingTo !== null && entry.movingTo !== target) throw moving(entry.movingTo);
  if (entry.movedFrom !== null && entry.home !== target) throw moving(entry.home);
  const from = entry.movedFrom ?? entry.home;
  const trips = new RoundTrips(options.roundTrips ?? MOVE_ROUND_TRIPS);
  // Where the platform lives as the steps go, and the rows this request copied.
  const state: CopyRun & { home: string } = { home: entry.home, rowsCopied: 0, saved: null };
  const result = (done: boolean): MoveResult => ({ platformId, home: state.home, from, rowsCopied: state.rowsCopied, done });
  try {
    return await moveSteps(env, directory, entry, target, now, options, trips, state, result);
  } catch (error) {
    if (error instanceof OutOfRoundTrips) return result(false);
    if (isNamedGuardFailure(errorText(error), MOVED_ON_MEANWHILE)) throw alongside();
    throw error;
  }
}

async function moveSteps(
  env: object,
  directory: Db,
  entry: typeof platformHomes.$inferSelect,
  target: string,
  now: number,
  options: MoveOptions,
  trips: RoundTrips,
  state: CopyRun & { home: string },
  result: (done: boolean) => MoveResult,
): Promise<MoveResult> {
  const { platformId } = entry;
  const dbOf = (home: string) => (home === FIRST_HOME ? directory : database(homeD1(env, home)));
  const stop = (step: MoveStep) => options.stopAfter === step;
  const from = entry.movedFrom ?? entry.home;
  const source = dbOf(from);
  const to = dbOf(target);

  if (entry.movedFrom === null) {
    // 1. Hold (again, when a move stopped: the first hold's time stays).
    trips.take(2);
    await directory.update(platformHomes).set({ movingTo: target }).where(eq(platformHomes.platformId, platformId));
    const [held] = await source
      .update(platforms)
      .set({ heldSince: sql`coalesce(${platforms.heldSince}, ${now})` })
      .where(eq(platforms.id, platformId))
      .returning({ since: platforms.heldSince });
    if (stop('held')) return result(false);
    const drained = (held?.since ?? now) + options.drainMs - now;
    if (drained > 0) await new Promise((resolve) => setTimeout(resolve, drained));
    // 2. Copy, from where it got, until the copy is whole and the source did not change meanwhile.
    for (let attempt = 1; ; attempt++) {
      trips.take();
      const [there] = await to.select({ progress: platforms.moveProgress }).from(platforms).where(eq(platforms.id, platformId)).limit(1);
      let at: MoveProgress = there?.progress ?? { table: 0, after: null, clearing: there !== undefined };
      state.saved = there ? savedOf(there.progress) : null;
      if (at.clearing) {
        // A copy to make again, or one of unknown extent: deleted first, its platform row last. Claimed first, so
        // a request still copying into it stops at its next page, and one clearing it too stops before the end.
        const claim: MoveProgress = { ...at, by: crypto.randomUUID() };
        trips.take();
        if (!(await saveIfUnchanged(to, platformId, state.saved, claim))) throw alongside();
        await deleteAll(to, platformId, trips, savedOf(claim), options.cleared);
        at = { table: 0, after: null };
        state.saved = null;
      }
      if (at.table === 0 && at.after === null) {
        // Forwards this home kept from an earlier stay of the platform would lead its credentials away.
        trips.take();
        await to.delete(homeForwards).where(eq(homeForwards.platformId, platformId));
      }
      try {
        await copyFrom(source, to, platformId, at, options.pageRows ?? PAGE, trips, state);
        trips.take();
        const whole: MoveProgress = { table: MOVED.length, after: null };
        await to.batch([unchanged(to, platformId, state.saved), progressOf(to, platformId, whole)]);
        state.saved = savedOf(whole);
        state.unsaved = undefined;
      } catch (error) {
        if (error instanceof OutOfRoundTrips && state.unsaved) {
          trips.last();
          await saveIfUnchanged(to, platformId, state.saved, state.unsaved);
        }
        throw error;
      }
      await options.copied?.();
      trips.take(2);
      const [inSource, copied] = await Promise.all([fingerprint(source, platformId), fingerprint(to, platformId)]);
      if (copied === inSource) break;
      trips.take();
      await saveIfUnchanged(to, platformId, state.saved, { table: 0, after: null, clearing: true });
      if (attempt === COPY_ATTEMPTS)
        throw retryableConflict('The platform kept changing while its rows were copied: ask again to finish the move');
      await new Promise((resolve) => setTimeout(resolve, options.drainMs));
    }
    if (stop('copied')) return result(false);
    // 3. Switch.
    trips.take();
    await directory
      .update(platformHomes)
      .set({ home: target, movingTo: null, movedFrom: from })
      .where(eq(platformHomes.platformId, platformId));
    state.home = target;
    if (stop('switched')) return result(false);
  }

  // 4. Clean the source: forwards and the credentials they replace in one batch, then the rest.
  trips.take();
  await source.batch(forwardsReplacing(source, platformId, target));
  await deleteAll(source, platformId, trips);
  if (stop('cleaned')) return result(false);
  // 5. Release.
  trips.take(2);
  await to.update(platforms).set({ heldSince: null, moveProgress: null }).where(eq(platforms.id, platformId));
  await directory.update(platformHomes).set({ movedFrom: null }).where(eq(platformHomes.platformId, platformId));
  return result(true);
}

/**
 * The source's forwards for everything that names it (API token client ids, agent tokens, device codes, KYC
 * links' secrets, invitation codes) and the deletes of those rows, as one batch. A repeat finds the rows gone
 * and keeps the forwards the first wrote (those of an earlier stay here went when the platform came back).
 */
function forwardsReplacing(db: Db, platformId: string, home: string): [Statement, ...Statement[]] {
  const forward = (key: SQL, table: SQLiteTable, where: SQL) =>
    db
      .insert(homeForwards)
      .select(
        db
          .select({
            key: sql<string>`${key}`.as('key'),
            home: sql<string>`${home}`.as('home'),
            platformId: sql<string>`${platformId}`.as('platform_id'),
          })
          .from(table)
          .where(where),
      )
      .onConflictDoUpdate({ target: homeForwards.key, set: { home } });
  return [
    forward(sql`'token:' || ${apiTokens.clientId}`, apiTokens, eq(apiTokens.platformId, platformId)),
    forward(sql`'agent:' || ${agentTokens.tokenHash}`, agentTokens, eq(agentTokens.platformId, platformId)),
    forward(sql`'device:' || ${agentDeviceCodes.codeHash}`, agentDeviceCodes, eq(agentDeviceCodes.platformId, platformId)),
    forward(sql`'kyc:' || ${kycLinks.secretHash}`, kycLinks, eq(kycLinks.platformId, platformId)),
    forward(sql`'invitation:' || ${invitations.code}`, invitations, eq(invitations.platformId, platformId)),
    db.delete(apiTokens).where(eq(apiTokens.platformId, platformId)),
    db.delete(agentTokens).where(eq(agentTokens.platformId, platformId)),
    db.delete(agentDeviceCodes).where(eq(agentDeviceCodes.platformId, platformId)),
    db.delete(kycLinks).where(eq(kycLinks.platformId, platformId)),
    db.delete(invitations).where(eq(invitations.platformId, platformId)),
  ] as unknown as [Statement, ...Statement[]];
}
