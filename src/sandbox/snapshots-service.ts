// Sandbox snapshots: capture a platform's sandbox data (D1 rows, wallet Durable Objects, documents' files) and restore it.
import { and, eq, getTableColumns, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Env } from '../env';
import type { Db, Statement } from '../db/client';
import { namedGuard } from '../db/client';
import { errorText, isNamedGuardFailure } from '../db/errors';
import { storedValue } from '../db/insert-select';
import { MAX_JSON_BYTES } from '../db/json-rows';
import {
  agentDeviceCodes,
  agents,
  agentTokens,
  internalAccounts,
  platforms,
  sandboxSnapshotRows,
  sandboxSnapshots,
  type SandboxSnapshotRow,
} from '../db/schema';
import { newId } from '../crypto/ids';
import { badRequest, notFound } from '../http/errors';
import { keysetList } from '../http/pagination';
import { iso } from '../common/time';
import type { StoreState } from '../wallet/account-store';
import { deleteFiles, documentsPrefix } from './reset';
import { PLATFORM_DATA } from '../db/platform-data';

/** Snapshots a platform may keep (hidden ones, a fixtures load's rollback points, are not counted). */
export const MAX_SNAPSHOTS = 10;
/**
 * Rows one snapshot may hold, all kinds together: room for the bench's platform (1,000 customers, 10,000
 * transactions with their history, ledger, quotes, events and deliveries: about 63,000 rows) several times over.
 */
export const MAX_SNAPSHOT_ROWS = 500_000;

/** What the snapshot functions need: D1, the wallets' Durable Objects, the documents' bucket, and the time. */
export interface SnapshotDeps {
  db: Db;
  env: Pick<Env, 'ACCOUNT' | 'DOCUMENTS'>;
  now: number;
}

const SNAPSHOT_CAP = 'snapshot_cap';
const SNAPSHOT_SIZE = 'snapshot_size';
const SNAPSHOT_GONE = 'snapshot_gone';
/** Kind of the rows holding a wallet Durable Object's state: `{accountId, state}`. */
const WALLET = 'wallet';
/** Columns per inner JSON array of a captured row (D1 allows few arguments per SQL function). */
const GROUP = 32;

const snapshotNotFound = () => notFound('SANDBOX_SNAPSHOT_NOT_FOUND', 'Sandbox snapshot not found');

type PlatformTableDef = (typeof PLATFORM_DATA)[number]['table'];
const columnsOf = (table: PlatformTableDef) => Object.values(getTableColumns(table)) as SQLiteColumn[];

// A table of a kind SQLite's JSON cannot carry as is would not round-trip: refuse at load, not at restore.
for (const { kind, table } of PLATFORM_DATA) {
  for (const column of columnsOf(table)) {
    if (/Blob|BigInt/.test(column.columnType)) throw new Error(`snapshots cannot capture ${kind}.${column.name} (${column.columnType})`);
  }
}

/**
 * A column's value as captured: REAL as text of 17 significant digits (JSON's rendering of a double may round;
 * the column's REAL affinity reads the text back to the same double), the rest as stored.
 */
function captured(column: SQLiteColumn): SQL {
  const ref = sql.identifier(column.name);
  return column.columnType === 'SQLiteReal' ? sql`CASE WHEN ${ref} IS NULL THEN NULL ELSE printf('%!.17g', ${ref}) END` : sql`${ref}`;
}

/** `json_array(json_array(c1…c32), json_array(c33…)…)` of a table's columns, in `getTableColumns` order. */
function rowJson(columns: SQLiteColumn[]): SQL {
  const groups: SQL[] = [];
  for (let i = 0; i < columns.length; i += GROUP) {
    groups.push(sql`json_array(${sql.join(columns.slice(i, i + GROUP).map(captured), sql`, `)})`);
  }
  return sql`json_array(${sql.join(groups, sql`, `)})`;
}

/** The platform's embedded-wallet accounts, each with its Durable Object. */
const walletAccountsQuery = (db: Db, platformId: string) =>
  db
    .select({ id: internalAccounts.id })
    .from(internalAccounts)
    .where(and(eq(internalAccounts.platformId, platformId), eq(internalAccounts.type, 'EMBEDDED_WALLET')));

const walletStub = (deps: SnapshotDeps, accountId: string) => deps.env.ACCOUNT.get(deps.env.ACCOUNT.idFromName(accountId));

/** Where a snapshot keeps its copies of the documents' files. */
const filesPrefix = (snapshotId: string) => `sandbox-snapshots/${snapshotId}/`;

/** Copies every file under `from` to the same key with `from` replaced by `to`. */
async function copyFiles(bucket: R2Bucket, from: string, to: string): Promise<string[]> {
  const copied: string[] = [];
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix: from, cursor, limit: 1000 });
    await Promise.all(
      listed.objects.map(async (o) => {
        const object = await bucket.get(o.key);
        if (!object) return;
        const key = to + o.key.slice(from.length);
        await bucket.put(key, await object.arrayBuffer(), { httpMetadata: object.httpMetadata, customMetadata: object.customMetadata });
        copied.push(key);
      }),
    );
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return copied;
}

/** Statements inserting wallet states as rows of `snapshotId`, each JSON parameter under MAX_JSON_BYTES. */
function walletRowStatements(db: Db, snapshotId: string, wallets: { accountId: string; state: StoreState }[]): Statement[] {
  const statements: Statement[] = [];
  let group: string[] = [];
  let size = 0;
  const flush = () => {
    if (group.length === 0) return;
    statements.push(
      db.insert(sandboxSnapshotRows).select(sql`SELECT ${snapshotId}, ${WALLET}, value FROM json_each(${`[${group.join(',')}]`})`),
    );
    group = [];
    size = 0;
  };
  for (const wallet of wallets) {
    const json = JSON.stringify(wallet);
    if (size + json.length > MAX_JSON_BYTES) flush();
    group.push(json);
    size += json.length + 1;
  }
  flush();
  return statements;
}

/**
 * Captures the platform's sandbox data as a new snapshot: every PLATFORM_DATA table's rows and the clock in one
 * D1 batch (one transaction, copied inside D1 by INSERT … SELECT), each wallet Durable Object's whole state
 * (read just before), and the documents' files (copied just before). `hidden`: not listed, not counted toward
 * MAX_SNAPSHOTS. Refused (400, nothing kept) past MAX_SNAPSHOTS or MAX_SNAPSHOT_ROWS.
 */
export async function takeSnapshot(
  deps: SnapshotDeps,
  platformId: string,
  name: string,
  opts: { hidden?: boolean } = {},
): Promise<SandboxSnapshotRow> {
  const { db } = deps;
  const hidden = opts.hidden ?? false;
  const id = newId('SandboxSnapshot', deps.now);
  const [accounts, files] = await Promise.all([
    walletAccountsQuery(db, platformId).then((rows) => rows.map((r) => r.id)),
    copyFiles(deps.env.DOCUMENTS, documentsPrefix(platformId), filesPrefix(id)),
  ]);
  const exported = await Promise.all(
    accounts.map(async (accountId) => ({ accountId, state: await walletStub(deps, accountId).exportState() })),
  );
  const wallets = exported.filter((w) => Object.keys(w.state).length > 0);
  const walletCounts = {
    wallets: wallets.length,
    walletCredentials: wallets.reduce((n, w) => n + (w.state.credentials?.length ?? 0), 0),
    walletSessions: wallets.reduce((n, w) => n + (w.state.sessions?.length ?? 0), 0),
    documentFiles: files.length,
  };
  const columns = Object.fromEntries(PLATFORM_DATA.map(({ kind, table }) => [kind, columnsOf(table).map((c) => c.name)]));
  const visible = sql`(SELECT count(*) FROM ${sandboxSnapshots} WHERE ${sandboxSnapshots.platformId} = ${platformId} AND ${sandboxSnapshots.hidden} = 0)`;
  const rowsOfSnapshot = sql`FROM ${sandboxSnapshotRows} WHERE ${sandboxSnapshotRows.snapshotId} = ${id}`;
  const statements: Statement[] = [
    ...(hidden ? [] : [namedGuard(db, SNAPSHOT_CAP, sql`${visible} < ${MAX_SNAPSHOTS}`)]),
    db.insert(sandboxSnapshots).select(
      sql`SELECT ${id}, ${platformId}, ${name}, ${hidden ? 1 : 0}, ${platforms.clockOffsetMs}, ${JSON.stringify(columns)},
        ${JSON.stringify(walletCounts)}, 0, ${deps.now} FROM ${platforms} WHERE ${platforms.id} = ${platformId}`,
    ),
    ...PLATFORM_DATA.map(({ kind, table, rowsOf }) =>
      db
        .insert(sandboxSnapshotRows)
        .select(sql`SELECT ${id}, ${kind}, ${rowJson(columnsOf(table))} FROM ${table} WHERE ${rowsOf(platformId)}`),
    ),
    ...walletRowStatements(db, id, wallets),
    db
      .update(sandboxSnapshots)
      .set({
        counts: sql`json_patch(${sandboxSnapshots.counts}, (SELECT json_group_object(kind, n) FROM (SELECT ${sandboxSnapshotRows.kind} AS kind, count(*) AS n ${rowsOfSnapshot} AND ${sandboxSnapshotRows.kind} <> ${WALLET} GROUP BY ${sandboxSnapshotRows.kind})))`,
      })
      .where(eq(sandboxSnapshots.id, id)),
    // The rows: those counted per table, and one per wallet (its credentials and sessions are inside it).
    db
      .update(sandboxSnapshots)
      .set({
        rowCount: sql`(SELECT sum(value) FROM json_each(${sandboxSnapshots.counts}) WHERE key NOT IN ('walletCredentials', 'walletSessions', 'documentFiles'))`,
      })
      .where(eq(sandboxSnapshots.id, id))
      .returning(),
    namedGuard(
      db,
      SNAPSHOT_SIZE,
      sql`(SELECT ${sandboxSnapshots.rowCount} FROM ${sandboxSnapshots} WHERE ${sandboxSnapshots.id} = ${id}) <= ${MAX_SNAPSHOT_ROWS}`,
    ),
  ];
  let results: unknown[];
  try {
    results = await db.batch(statements as [Statement, ...Statement[]]);
  } catch (error) {
    await deleteFiles(deps.env.DOCUMENTS, filesPrefix(id));
    const text = errorText(error);
    if (isNamedGuardFailure(text, SNAPSHOT_CAP)) {
      throw badRequest(`A platform keeps at most ${MAX_SNAPSHOTS} snapshots; delete one first`, {
        fields: [{ field: 'name', message: `At most ${MAX_SNAPSHOTS} snapshots` }],
      });
    }
    if (isNamedGuardFailure(text, SNAPSHOT_SIZE)) {
      throw badRequest(`A snapshot holds at most ${MAX_SNAPSHOT_ROWS} rows; this platform's data is larger`, {
        fields: [{ field: 'name', message: `At most ${MAX_SNAPSHOT_ROWS} rows` }],
      });
    }
    throw error;
  }
  // The counts' update, before the last guard, returned the row.
  return (results[results.length - 2] as SandboxSnapshotRow[])[0]!;
}

/** The columns of a table's primary key. */
function primaryKeyOf(table: PlatformTableDef): SQLiteColumn[] {
  const composite = getTableConfig(table).primaryKeys[0];
  if (composite) return composite.columns as SQLiteColumn[];
  const single = columnsOf(table).filter((c) => c.primary);
  if (single.length === 0) throw new Error(`${getTableConfig(table).name} has no primary key`);
  return single;
}

/** A column's value read back from a captured row (`columns`: the captured order), or its default when it was not captured. */
function restored(column: SQLiteColumn, columns: string[]): SQL {
  const i = columns.indexOf(column.name);
  if (i >= 0) return sql.raw(`json_extract("sandbox_snapshot_rows"."row", '$[${Math.floor(i / GROUP)}][${i % GROUP}]')`);
  const value = storedValue(column, undefined);
  return value === null ? sql`NULL` : sql`${value}`;
}

/**
 * Returns the platform's data to snapshot `id`: first each wallet Durable Object (the captured state, or
 * emptied for a wallet the snapshot did not hold) and the documents' files; then one D1 batch (one
 * transaction: a concurrent request sees all of the before or all of the after) that deletes the platform's
 * rows, inserts the captured ones (triggers rebuild counts, search and quotes' status) and sets the clock back.
 * Due transitions created after the snapshot are gone with it; their queue messages find nothing to apply.
 */
export async function restoreSnapshot(deps: SnapshotDeps, platformId: string, id: string): Promise<SandboxSnapshotRow> {
  const { db, env } = deps;
  // One round trip: the snapshot, its wallets' states and the platform's wallets now.
  const [snapshots, walletRows, accounts] = await db.batch([
    db
      .select()
      .from(sandboxSnapshots)
      .where(and(eq(sandboxSnapshots.id, id), eq(sandboxSnapshots.platformId, platformId))),
    db
      .select({ row: sandboxSnapshotRows.row })
      .from(sandboxSnapshotRows)
      .where(
        and(
          eq(sandboxSnapshotRows.snapshotId, id),
          eq(sandboxSnapshotRows.kind, WALLET),
          sql`EXISTS (SELECT 1 FROM ${sandboxSnapshots} WHERE ${sandboxSnapshots.id} = ${id} AND ${sandboxSnapshots.platformId} = ${platformId})`,
        ),
      ),
    walletAccountsQuery(db, platformId),
  ]);
  const snapshot = snapshots[0];
  if (!snapshot) throw snapshotNotFound();
  const states = new Map<string, StoreState>();
  for (const { row } of walletRows) {
    const wallet = JSON.parse(row) as { accountId: string; state: StoreState };
    states.set(wallet.accountId, wallet.state);
  }
  const kept = new Set(await copyFiles(env.DOCUMENTS, filesPrefix(id), documentsPrefix(platformId)));
  await Promise.all(
    [...new Set([...accounts.map((a) => a.id), ...states.keys()])].map((accountId) =>
      walletStub(deps, accountId).importState(states.get(accountId) ?? {}),
    ),
  );
  const fromSnapshot = (kind: string) =>
    sql`FROM ${sandboxSnapshotRows} WHERE ${sandboxSnapshotRows.snapshotId} = ${id} AND ${sandboxSnapshotRows.kind} = ${kind}`;
  // Only what differs is written: a row whose captured form is in the snapshot stays, the others are deleted,
  // and captured rows not in the table are inserted (a changed row is both). Writes, with their triggers and
  // indexes, are what costs; reads of both sides are cheap. A table whose columns changed since the capture
  // (a migration) is replaced whole.
  const tables = PLATFORM_DATA.map((t) => {
    const columns = columnsOf(t.table);
    const captured = snapshot.columns[t.kind] ?? [];
    const same = captured.length === columns.length && columns.every((c, i) => c.name === captured[i]);
    return { ...t, columns, captured, same };
  });
  const revocations = keepRevocations(db, platformId, id, deps.now);
  const statements: Statement[] = [
    namedGuard(db, SNAPSHOT_GONE, sql`EXISTS (SELECT 1 FROM ${sandboxSnapshots} WHERE ${sandboxSnapshots.id} = ${id})`),
    // Foreign keys are checked at the commit: a changed parent is deleted and inserted again under unchanged children.
    db.run(sql`PRAGMA defer_foreign_keys = on`),
    ...revocations.before,
    ...tables.map(({ kind, table, rowsOf, columns, same }) =>
      db
        .delete(table)
        .where(
          and(
            rowsOf(platformId),
            same ? sql`${rowJson(columns)} NOT IN (SELECT ${sandboxSnapshotRows.row} ${fromSnapshot(kind)})` : undefined,
          ),
        ),
    ),
    ...[...tables].reverse().map(({ kind, table, rowsOf, columns, captured, same }) => {
      const values = columns.map((c) => restored(c, captured));
      // What stayed equals its captured row, so a captured row is missing exactly when its key is not in the table.
      const present = sql.join(
        primaryKeyOf(table).map((c) => sql`${table}.${sql.identifier(c.name)} = ${restored(c, captured)}`),
        sql` AND `,
      );
      const missing = same ? sql` AND NOT EXISTS (SELECT 1 FROM ${table} WHERE ${present})` : sql``;
      return db.insert(table).select(sql`SELECT ${sql.join(values, sql`, `)} ${fromSnapshot(kind)}${missing}`);
    }),
    ...revocations.after,
    db.update(platforms).set({ clockOffsetMs: snapshot.clockOffsetMs }).where(eq(platforms.id, platformId)),
  ];
  try {
    await db.batch(statements as [Statement, ...Statement[]]);
  } catch (error) {
    if (isNamedGuardFailure(errorText(error), SNAPSHOT_GONE)) throw snapshotNotFound();
    throw error;
  }
  // Files of documents the snapshot did not hold: their rows are gone now.
  await deleteFilesExcept(env.DOCUMENTS, documentsPrefix(platformId), kept);
  return snapshot;
}

/** Kinds of the rows a restore keeps its platform's revocations in while it runs (never a table's kind). */
const REVOKED_AGENT = '~revokedAgent';
const REVOKED_TOKEN = '~revokedToken';
const SPENT_CODE = '~spentCode';

/**
 * Revocations and spent one-time codes outlive a restore: `before` (in the restore's batch, ahead of its
 * deletes) keeps the platform's deleted agents, revoked agent tokens and redeemed or cut-short device codes as
 * rows of the snapshot being restored; `after` (once the rows are back) deletes again each agent deleted now,
 * revokes again each token revoked now, and gives each device code the redemption and the earlier expiry of now
 * (these only ever move one way), then drops the kept rows. One transaction with the restore, so a revocation
 * made while it runs is either kept or made after it. API tokens are not in a snapshot: a restore never touches them.
 */
function keepRevocations(db: Db, platformId: string, snapshotId: string, now: number): { before: Statement[]; after: Statement[] } {
  const rows = sandboxSnapshotRows;
  const keep = (kind: string, select: SQL) => db.insert(rows).select(sql`SELECT ${snapshotId}, ${kind}, ${select}`);
  /** The kept value at `index` of the row of `kind` whose first value is `key`. */
  const kept = (kind: string, key: SQLiteColumn, index: number) =>
    sql`(SELECT ${rows.row} ->> ${`$[${index}]`} FROM ${rows} WHERE ${rows.snapshotId} = ${snapshotId} AND ${rows.kind} = ${kind} AND ${rows.row} ->> '$[0]' = ${key})`;
  const keys = (kind: string, key: SQLiteColumn) =>
    sql`${key} IN (SELECT ${rows.row} ->> '$[0]' FROM ${rows} WHERE ${rows.snapshotId} = ${snapshotId} AND ${rows.kind} = ${kind})`;
  return {
    before: [
      keep(REVOKED_AGENT, sql`json_array(id, deleted_at) FROM agents WHERE platform_id = ${platformId} AND deleted_at IS NOT NULL`),
      keep(REVOKED_TOKEN, sql`json_array(id, revoked_at) FROM agent_tokens WHERE platform_id = ${platformId} AND revoked_at IS NOT NULL`),
      keep(
        SPENT_CODE,
        sql`json_array(code_hash, redeemed_at, expires_at) FROM agent_device_codes WHERE platform_id = ${platformId} AND (redeemed_at IS NOT NULL OR expires_at <= ${now})`,
      ),
    ],
    after: [
      db
        .update(agents)
        .set({ deletedAt: kept(REVOKED_AGENT, agents.id, 1), updatedAt: kept(REVOKED_AGENT, agents.id, 1) })
        .where(and(eq(agents.platformId, platformId), isNull(agents.deletedAt), keys(REVOKED_AGENT, agents.id))),
      db
        .update(agentTokens)
        .set({ revokedAt: kept(REVOKED_TOKEN, agentTokens.id, 1) })
        .where(and(eq(agentTokens.platformId, platformId), isNull(agentTokens.revokedAt), keys(REVOKED_TOKEN, agentTokens.id))),
      db
        .update(agentDeviceCodes)
        .set({
          redeemedAt: sql`coalesce(${agentDeviceCodes.redeemedAt}, ${kept(SPENT_CODE, agentDeviceCodes.codeHash, 1)})`,
          expiresAt: sql`min(${agentDeviceCodes.expiresAt}, ${kept(SPENT_CODE, agentDeviceCodes.codeHash, 2)})`,
        })
        .where(and(eq(agentDeviceCodes.platformId, platformId), keys(SPENT_CODE, agentDeviceCodes.codeHash))),
      db.delete(rows).where(and(eq(rows.snapshotId, snapshotId), inArray(rows.kind, [REVOKED_AGENT, REVOKED_TOKEN, SPENT_CODE]))),
    ],
  };
}

async function deleteFilesExcept(bucket: R2Bucket, prefix: string, kept: Set<string>): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, cursor, limit: 1000 });
    const gone = listed.objects.map((o) => o.key).filter((key) => !kept.has(key));
    if (gone.length > 0) await bucket.delete(gone);
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}

/** Deletes snapshot `id` of the platform (404 if none), its rows and its files. */
export async function deleteSnapshot(deps: SnapshotDeps, platformId: string, id: string): Promise<void> {
  const { db } = deps;
  const [deleted] = await db.batch([
    db
      .delete(sandboxSnapshots)
      .where(and(eq(sandboxSnapshots.id, id), eq(sandboxSnapshots.platformId, platformId)))
      .returning({ id: sandboxSnapshots.id }),
    db.delete(sandboxSnapshotRows).where(
      and(
        eq(sandboxSnapshotRows.snapshotId, id),
        // Only once the first statement deleted it (not another platform's snapshot of that id).
        sql`NOT EXISTS (SELECT 1 FROM ${sandboxSnapshots} WHERE ${sandboxSnapshots.id} = ${id})`,
      ),
    ),
  ]);
  if (deleted.length === 0) throw snapshotNotFound();
  await deleteFiles(deps.env.DOCUMENTS, filesPrefix(id));
}

/** How long a hidden snapshot (a fixtures load's rollback point) may outlive its load: far past the longest load. */
export const ROLLBACK_POINT_TTL_MS = 60 * 60_000;

/**
 * The sweep: deletes rollback points a fixtures load left behind when its Worker stopped mid-call (a finished
 * load deletes its own), a few per tick, found through the index of hidden snapshots.
 */
export async function purgeAbandonedRollbackPoints(deps: SnapshotDeps): Promise<number> {
  const stale = await deps.db
    .select({ id: sandboxSnapshots.id, platformId: sandboxSnapshots.platformId })
    .from(sandboxSnapshots)
    .where(and(eq(sandboxSnapshots.hidden, true), lt(sandboxSnapshots.createdAt, deps.now - ROLLBACK_POINT_TTL_MS)))
    .limit(10);
  for (const { id, platformId } of stale) await deleteSnapshot(deps, platformId, id);
  return stale.length;
}

/** A snapshot as the API shows it. */
export const snapshotView = (row: SandboxSnapshotRow) => ({
  id: row.id,
  name: row.name,
  createdAt: iso(row.createdAt),
  counts: row.counts,
});

/** GET /sandbox/snapshots: the platform's snapshots (not hidden ones), newest first. */
export const snapshotList = keysetList(
  (platformId: SQL, q: { limit: number; cursor?: string }) => ({
    table: sandboxSnapshots,
    idColumn: sandboxSnapshots.id,
    where: and(eq(sandboxSnapshots.platformId, platformId), eq(sandboxSnapshots.hidden, false)),
    order: 'desc' as const,
    limit: q.limit,
    cursor: q.cursor,
    // At most MAX_SNAPSHOTS rows: counting them is bounded.
    withTotal: true,
  }),
  snapshotView,
);

/** One snapshot of the platform, read in the authentication round trip. */
export const snapshotLoads = (db: Db, platformId: SQL, id: string) => ({
  snapshot: db
    .select()
    .from(sandboxSnapshots)
    .where(and(eq(sandboxSnapshots.id, id), eq(sandboxSnapshots.platformId, platformId))),
});

/** The loaded snapshot's view, or 404. */
export function loadedSnapshot(loaded: { snapshot: SandboxSnapshotRow[] }) {
  const row = loaded.snapshot[0];
  if (!row) throw snapshotNotFound();
  return snapshotView(row);
}
