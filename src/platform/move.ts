// Moving a platform to another home (the operator's): hold its writes, copy its rows, switch the directory,
// delete the old copy behind forwards for its credentials, release. Each step can be repeated, so a move that
// stopped anywhere is finished by asking for it again.
import { and, count, eq, getTableColumns, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { database, type Db, type Statement } from '../db/client';
import { FIRST_HOME, homeD1, homesOf } from '../db/homes';
import { PLATFORM_DATA, type PlatformTable } from '../db/platform-data';
import {
  agentDeviceCodes,
  agentTokens,
  apiTokens,
  homeForwards,
  internalAccounts,
  invitations,
  kycLinks,
  listCounts,
  platformHomes,
  platforms,
  sandboxFaultFirings,
  sandboxFaults,
  sandboxSnapshotRows,
  sandboxSnapshots,
  transactions,
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
 * fault rules and snapshots. Not here: what triggers derive from these rows (list counts, which are then set to
 * the old home's exactly; the customer search index and currencies; quotes' status).
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
];

// Rows a round trip: one statement each (D1 binds at most 100 values a statement; a wide row takes ~40).
const PAGE = 100;

/** A table's key, in the order pages are read: its primary key, or its rowid when it declares none. */
function keyOf(table: SQLiteTable): SQL[] {
  const config = getTableConfig(table);
  const composite = config.primaryKeys[0]?.columns;
  const single = config.columns.filter((c) => c.primary);
  const columns = composite ?? (single.length ? single : undefined);
  return columns ? columns.map((c) => sql`${table}.${sql.identifier(c.name)}`) : [sql`${table}.rowid`];
}

const tuple = (parts: SQL[]) => sql`(${sql.join(parts, sql`, `)})`;

/** Copies one table's rows of the platform, a page at a time in key order. */
async function copyTable(from: Db, to: Db, { table, rowsOf }: PlatformTable, platformId: string): Promise<number> {
  const key = keyOf(table);
  const keyFields = Object.fromEntries(key.map((k, i) => [`_k${i}`, k]));
  let after: unknown[] | undefined;
  let copied = 0;
  for (;;) {
    const rows = (await from
      .select({ ...getTableColumns(table), ...keyFields })
      .from(table)
      .where(and(rowsOf(platformId), after ? sql`${tuple(key)} > ${tuple(after.map((v) => sql`${v}`))}` : undefined))
      .orderBy(...key)
      .limit(PAGE)) as Record<string, unknown>[];
    if (rows.length === 0) return copied;
    const inserts = rows.map((row) => {
      const values = Object.fromEntries(Object.entries(row).filter(([k]) => !(k in keyFields)));
      return to.insert(table).values(values as never);
    });
    await to.batch(inserts as unknown as [Statement, ...Statement[]]);
    copied += rows.length;
    const last = rows[rows.length - 1]!;
    after = key.map((_, i) => last[`_k${i}`]);
  }
}

/** Deletes one table's rows of the platform, a page at a time (no statement grows with the platform). */
async function deleteTable(db: Db, { table, rowsOf }: PlatformTable, platformId: string): Promise<void> {
  const columns = keyOf(table);
  const key = tuple(columns);
  for (;;) {
    const page = sql`SELECT ${sql.join(columns, sql`, `)} FROM ${table} WHERE ${rowsOf(platformId)} LIMIT ${PAGE * 10}`;
    const result = await db.run(sql`DELETE FROM ${table} WHERE ${key} IN (${page})`);
    if ((result.meta.changes ?? 0) === 0) return;
  }
}

async function deleteAll(db: Db, platformId: string): Promise<void> {
  for (const t of [...MOVED].reverse()) await deleteTable(db, t, platformId);
  // The customer search's range of the platform (a trigger makes one with the platform row, none deletes it).
  await db.run(sql`DELETE FROM customer_search_ranges WHERE platform_id = ${platformId}`);
}

/**
 * What the copy is checked by: each table's count of the platform's rows and, where its rows have one, the sum
 * of their `updated_at` (a change of such a row moves it); the sum of its balances and of its transactions'
 * versions (every change of a transaction bumps its version). A write that authenticated before the hold and
 * committed in the source after its table was copied shows here, and the copy is made again.
 */
async function fingerprint(db: Db, platformId: string): Promise<string> {
  const statements = [
    ...MOVED.map(({ table, rowsOf }) => {
      const updatedAt = (getTableColumns(table) as Record<string, SQLiteColumn>).updatedAt;
      const changed = updatedAt ? sql<number>`coalesce(sum(${updatedAt}), 0)` : sql<number>`0`;
      return db
        .select({ n: sql<string>`${count()} || ':' || ${changed}` })
        .from(table)
        .where(rowsOf(platformId));
    }),
    db
      .select({ n: sql<number>`coalesce(sum(${internalAccounts.balance}), 0)` })
      .from(internalAccounts)
      .where(eq(internalAccounts.platformId, platformId)),
    db
      .select({ n: sql<number>`coalesce(sum(${transactions.version}), 0)` })
      .from(transactions)
      .where(eq(transactions.platformId, platformId)),
  ];
  const results = (await db.batch(statements as unknown as [Statement, ...Statement[]])) as { n: number | string }[][];
  return results.map((r) => r[0]?.n ?? 0).join(',');
}

// Copies made again when the source changed meanwhile, before the move gives up (409: asking again retries).
const COPY_ATTEMPTS = 3;

const moving = (home: string) => retryableConflict(`A move of this platform to ${home} is under way: ask for that one to finish it`);

export interface MoveOptions {
  drainMs: number;
  /** Stops the move after this step, as a timeout or a deploy would (tests). */
  stopAfter?: MoveStep;
  /** Runs after each copy, before it is checked (tests write to the source there, as a late write would). */
  copied?: () => Promise<void>;
}

export interface MoveResult {
  platformId: string;
  home: string;
  from: string;
  /** Rows copied (0 when the move had copied them before it stopped). */
  rowsCopied: number;
}

/**
 * Moves a platform to `target`, or finishes the move that stopped: the directory says where it stands
 * (`moving_to` until the switch, `moved_from` until the end).
 *
 * 1. held: the platform's writes are refused with a retryable 409 (`held_since`, read with its credentials);
 *    reads go on. The move waits `drainMs` for writes that authenticated just before.
 * 2. copied: whatever a stopped copy left in the target is deleted, then every row is copied, and the list
 *    counts are set to the source's; the copy is made again if the source changed meanwhile (`fingerprint`).
 * 3. switched: the directory names the target; the source's copy is still whole, so a request that reaches it
 *    (its credentials name it) reads what it read before.
 * 4. cleaned: the source keeps forwards for the platform's credentials and secrets, deleted with them in one
 *    batch (a request naming the source then finds its forward, never a half-deleted platform), then the rest.
 * 5. released: the target's writes are accepted again.
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
  const dbOf = (home: string) => (home === FIRST_HOME ? directory : database(homeD1(env, home)));
  const stop = (step: MoveStep) => options.stopAfter === step;
  let from = entry.movedFrom ?? entry.home;
  let rowsCopied = 0;

  if (entry.movedFrom === null) {
    if (entry.movingTo === null && entry.home === target) return { platformId, home: target, from: target, rowsCopied };
    if (entry.movingTo !== null && entry.movingTo !== target) throw moving(entry.movingTo);
    from = entry.home;
    const source = dbOf(from);
    const to = dbOf(target);
    // 1. Hold.
    await directory.update(platformHomes).set({ movingTo: target }).where(eq(platformHomes.platformId, platformId));
    await source
      .update(platforms)
      .set({ heldSince: sql`coalesce(${platforms.heldSince}, ${now})` })
      .where(eq(platforms.id, platformId));
    if (stop('held')) return { platformId, home: from, from, rowsCopied };
    await new Promise((resolve) => setTimeout(resolve, options.drainMs));
    // 2. Copy, over whatever a stopped copy left, until the source did not change meanwhile.
    for (let attempt = 1; ; attempt++) {
      const before = await fingerprint(source, platformId);
      await deleteAll(to, platformId);
      await to.delete(homeForwards).where(eq(homeForwards.platformId, platformId));
      rowsCopied = 0;
      for (const t of MOVED) rowsCopied += await copyTable(source, to, t, platformId);
      const counts = await source.select().from(listCounts).where(eq(listCounts.platformId, platformId));
      await to.batch([
        to.delete(listCounts).where(eq(listCounts.platformId, platformId)),
        ...counts.map((c) => to.insert(listCounts).values(c)),
      ] as [Statement, ...Statement[]]);
      await options.copied?.();
      const [after, copied] = await Promise.all([fingerprint(source, platformId), fingerprint(to, platformId)]);
      if (after === before && copied === after) break;
      if (attempt === COPY_ATTEMPTS)
        throw retryableConflict('The platform kept changing while its rows were copied: ask again to finish the move');
      await new Promise((resolve) => setTimeout(resolve, options.drainMs));
    }
    if (stop('copied')) return { platformId, home: from, from, rowsCopied };
    // 3. Switch.
    await directory
      .update(platformHomes)
      .set({ home: target, movingTo: null, movedFrom: from })
      .where(eq(platformHomes.platformId, platformId));
    if (stop('switched')) return { platformId, home: target, from, rowsCopied };
  } else if (entry.home !== target) {
    throw moving(entry.home);
  }

  // 4. Clean the source: forwards and the credentials they replace in one batch, then the rest.
  const source = dbOf(from);
  await source.batch(forwardsReplacing(source, platformId, target));
  await deleteAll(source, platformId);
  await source.delete(listCounts).where(eq(listCounts.platformId, platformId));
  if (stop('cleaned')) return { platformId, home: target, from, rowsCopied };
  // 5. Release.
  await dbOf(target).update(platforms).set({ heldSince: null }).where(eq(platforms.id, platformId));
  await directory.update(platformHomes).set({ movedFrom: null }).where(eq(platformHomes.platformId, platformId));
  return { platformId, home: target, from, rowsCopied };
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
