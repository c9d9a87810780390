// The D1 client (drizzle), its sessions, named loads run in one round trip, and guard statements.
import { sql, type SQL } from 'drizzle-orm';
import { drizzle, DrizzleD1Database, SQLiteD1Session } from 'drizzle-orm/d1';
import type { BatchItem } from 'drizzle-orm/batch';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { metering } from './meter';
import * as schema from './schema';

export type Db = ReturnType<typeof build>;

/** One statement of a D1 batch. */
export type Statement = BatchItem<'sqlite'>;

// Over the metering binding: each statement's rows read and written go to the meter of the work running it.
const build = (d1: D1Database) => drizzle(metering(d1), { schema });

// Building the client walks the whole schema (relational config): once per binding, not per request.
const clients = new WeakMap<D1Database, Db>();

/** The drizzle client over a D1 binding, built once per binding per isolate. */
export function database(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) {
    db = build(d1);
    clients.set(d1, db);
  }
  return db;
}

/** Where a D1 session starts: a constraint, or a bookmark the client sent back (D1 Sessions API). */
export type SessionStart = D1SessionConstraint | D1SessionBookmark;

const dialect = new SQLiteAsyncDialect();

/** A request's drizzle client over one D1 session, and the session's latest bookmark (for the response). */
export interface SessionDb {
  db: Db;
  bookmark(): string | null;
}

/**
 * A drizzle client over a new D1 session of `d1`. It reuses the binding's client's dialect and relational
 * config, so a session per request costs a few small objects (one query builder per table), not the schema walk.
 */
export function sessionDatabase(d1: D1Database, start: SessionStart): SessionDb {
  const base = database(d1);
  // Metered like the binding (db/meter.ts): the session's statements count toward the request's rows read.
  const session = metering(d1).withSession(start);
  const schemaConfig = { fullSchema: base._.fullSchema, schema: base._.schema!, tableNamesMap: base._.tableNamesMap };
  const db = new DrizzleD1Database(
    'async',
    dialect,
    new SQLiteD1Session(session as unknown as D1Database, dialect, schemaConfig),
    schemaConfig,
  );
  return { db: db as Db, bookmark: () => session.getBookmark() };
}

/** Named statements run together in one round trip. */
export type Loads = Record<string, Statement>;
/** The results of `Loads`, by name, each typed as its statement's own result. */
export type Loaded<L extends Loads> = { [K in keyof L]: Awaited<L[K]> };

/** The results of a batch whose statements began with `loads` (in their key order), by name. */
export function named<L extends Loads>(loads: L, results: readonly unknown[]): Loaded<L> {
  return Object.fromEntries(Object.keys(loads).map((key, i) => [key, results[i]])) as Loaded<L>;
}

/** Runs named statements in one batch (one round trip) and returns their results by name. */
export async function loadTogether<L extends Loads>(db: Db, loads: L): Promise<Loaded<L>> {
  const statements = Object.values(loads);
  if (statements.length === 0) return {} as Loaded<L>;
  return named(loads, await db.batch(statements as [Statement, ...Statement[]]));
}

/**
 * A statement that fails its whole batch, so nothing of it happens, unless `condition` holds at its point in
 * the batch (e.g. `changes() > 0` right after a conditional write). SQLite has no RAISE outside triggers: the
 * failure is json() of a text that is not JSON, which `isGuardFailure` (db/errors.ts) recognises.
 */
export function guard(db: Db, condition: SQL): Statement {
  // A select builder, not db.run: drizzle cannot batch a raw statement that has parameters.
  return db.select({ ok: sql`json(CASE WHEN ${condition} THEN '0' ELSE 'guard refused' END)` }).from(sql`(SELECT 1)`);
}

/**
 * `guard` whose failure names it, so a caller tells it from the batch's other guards (`isNamedGuardFailure`):
 * the failure is json_extract's error on a path that is not one, whose message quotes the path (`name`).
 */
export function namedGuard(db: Db, name: string, condition: SQL): Statement {
  return db.select({ ok: sql`json_extract('{}', CASE WHEN ${condition} THEN '$' ELSE ${name} END)` }).from(sql`(SELECT 1)`);
}
