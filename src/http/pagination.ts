// Pagination: limit and cursor parameters, keyset pages and their maintained totals.
import * as z from 'zod';
import { and, asc, count, desc, getTableName, gt, gte, inArray, lt, lte, or, eq, sql, type SQL } from 'drizzle-orm';
import type { SelectedFields, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { loadTogether, type Db, type Loaded, type Statement } from '../db/client';
import { listCounts } from '../db/schema';
import { textFromBase64url, toBase64url } from '../crypto/base64';
import { badRequest } from './errors';

export const limitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .meta({ description: 'Maximum number of results to return (1 to 100)' });
export const cursorParam = z.string().max(512).optional().meta({ description: 'Opaque cursor from a previous response (`nextCursor`)' });
/** `sortOrder` of a list: newest (or last) first unless `asc`. */
export const sortOrderParam = z.enum(['asc', 'desc'], { error: 'Must be asc or desc' }).default('desc');

/** The list envelope `{data, hasMore, nextCursor?, totalCount?}`: `nextCursor` only when `hasMore`. */
export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      hasMore: z.boolean(),
      nextCursor: z.string().optional(),
      totalCount: z.int().min(0).optional(),
    })
    .meta({ id });
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount?: number;
}

/** A keyset position: the sort key (when not the id itself) and the id as the tiebreaker. */
interface Position {
  k?: string | number;
  id: string;
}

function encodeCursor(pos: Position): string {
  return toBase64url(new TextEncoder().encode(JSON.stringify(pos)));
}

export function decodeCursor(cursor: string): Position {
  try {
    // UTF-8, as encoded: a sort key such as "Zürich Pay" comes back as it went out.
    const pos = JSON.parse(textFromBase64url(cursor)) as Position;
    if (typeof pos?.id === 'string' && (pos.k === undefined || ['string', 'number'].includes(typeof pos.k))) return pos;
  } catch {
    // fall through
  }
  throw badRequest('Invalid cursor', { fields: [{ field: 'cursor', message: 'Not a cursor from a previous response' }] });
}

export interface KeysetQuery<Row> {
  table: SQLiteTable;
  /**
   * A 1:1 table joined for filtering and reading: rows are then `fields` (name them: a batch reads rows by
   * column name, so two tables' same-named columns would collide in `select()` of both).
   */
  join?: { table: SQLiteTable; on: SQL; fields: SelectedFields };
  idColumn: SQLiteColumn;
  /** The id of a row; given when rows are not the table's own (a join). */
  rowId?: (row: Row) => string;
  /** Secondary sort column; omitted means the id alone orders (ids are time-ordered UUIDv7). */
  sortColumn?: SQLiteColumn;
  sortKey?: (row: Row) => string | number;
  order?: 'asc' | 'desc';
  where: SQL | undefined;
  /**
   * Disjoint conditions of which a row meets one (each with `where`), where one index cannot serve their OR
   * (two columns): read as a UNION ALL of one select per branch, each in the page's order from its own index,
   * which SQLite merges (no sort) and stops at the page. Counted only by `counted`.
   */
  branches?: SQL[];
  limit: number;
  cursor?: string;
  /** The total by counting the matching rows: only for a scope whose size is bounded (never a tenant's table). */
  withTotal?: boolean;
  /** The total from a maintained counter (`list_counts`), for the set `where` selects: see `listCounts`. */
  /** The maintained counter of the list, or several whose sum it is (a list counted per status). */
  counted?: { platformId: SQL; list: string | readonly string[] };
}

/**
 * One page by keyset (never OFFSET) as named loads, with the total when asked, for one round trip (possibly
 * authentication's: see `RouteSpec.load`); `pageFrom` reads them. Cost does not grow with the page's depth.
 * An invalid cursor is 400.
 */
export function keysetLoads<Row>(db: Db, q: KeysetQuery<Row>) {
  const { where, orderBy, limit } = keysetParts(q);
  const plain = () => db.select().from(q.table).$dynamic();
  // Rows take the shape of the join's fields (the caller's Row says which); the count does not. A new builder
  // per select: a dynamic one is changed by `where`.
  const rowsFrom = () =>
    q.join
      ? (db.select(q.join.fields).from(q.table).innerJoin(q.join.table, q.join.on).$dynamic() as unknown as ReturnType<typeof plain>)
      : plain();
  let countFrom = db.select({ n: count() }).from(q.table).$dynamic();
  if (q.join) countFrom = countFrom.innerJoin(q.join.table, q.join.on);
  const rows = q.branches?.length
    ? q.branches
        .map((branch) => rowsFrom().where(and(where, branch)))
        .reduce((union, select) => union.unionAll(select) as unknown as typeof union)
        .orderBy(...(q.join ? compoundOrder(q) : orderBy))
        .limit(limit)
    : rowsFrom()
        .where(where)
        .orderBy(...orderBy)
        .limit(limit);
  // Typed by the caller's Row in `pageFrom`; here only as statements.
  if (q.counted) return { rows, total: countedTotal(db, q.counted.platformId, q.counted.list) } as KeysetLoads;
  return (q.withTotal ? { rows, total: countFrom.where(q.where) } : { rows }) as KeysetLoads;
}

/**
 * A compound select's order names result columns: a join's are table-qualified (`"quotes"."id"`), which the
 * order must repeat (drizzle would write them bare).
 */
function compoundOrder<Row>(q: KeysetQuery<Row>): SQL[] {
  const dir = sql.raw(q.order === 'desc' ? 'desc' : 'asc');
  const named = (column: SQLiteColumn) => sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)} ${dir}`;
  return q.sortColumn ? [named(q.sortColumn), named(q.idColumn)] : [named(q.idColumn)];
}

/** A maintained count (`list_counts`), or the sum of several, read as `{ n }` rows like a counted total; no row is 0. */
function countedTotal(db: Db, platformId: SQL | string, list: string | readonly string[]) {
  if (typeof list === 'string') {
    return db
      .select({ n: listCounts.n })
      .from(listCounts)
      .where(and(eq(listCounts.platformId, platformId), eq(listCounts.list, list)));
  }
  return db
    .select({ n: sql<number>`coalesce(sum(${listCounts.n}), 0)`.mapWith(Number) })
    .from(listCounts)
    .where(and(eq(listCounts.platformId, platformId), inArray(listCounts.list, [...list])));
}

/** SQL for the ids of the rows `keysetLoads` reads, to load what belongs to them in the same batch. */
export function keysetIds<Row>(db: Db, q: KeysetQuery<Row>) {
  const { where, orderBy, limit } = keysetParts(q);
  const from = db.select({ id: q.idColumn }).from(q.table).$dynamic();
  return (q.join ? from.innerJoin(q.join.table, q.join.on) : from)
    .where(where)
    .orderBy(...orderBy)
    .limit(limit);
}

/** The page's condition (the filter and the cursor's position), order and limit (one more, to know `hasMore`). */
function keysetParts<Row>(q: KeysetQuery<Row>) {
  const order = q.order ?? 'asc';
  const after = order === 'asc' ? gt : lt;
  const by = order === 'asc' ? asc : desc;
  let position: SQL | undefined;
  if (q.cursor) {
    const pos = decodeCursor(q.cursor);
    if (q.sortColumn) {
      if (pos.k === undefined) throw badRequest('Invalid cursor', { fields: [{ field: 'cursor', message: 'Not a cursor of this list' }] });
      // The bound on the sort column alone lets its index start at the position (an OR of the two would not).
      const from = order === 'asc' ? gte : lte;
      position = and(from(q.sortColumn, pos.k), or(after(q.sortColumn, pos.k), after(q.idColumn, pos.id)));
    } else {
      position = after(q.idColumn, pos.id);
    }
  }
  const orderBy = q.sortColumn ? [by(q.sortColumn), by(q.idColumn)] : [by(q.idColumn)];
  return { where: and(q.where, position), orderBy, limit: q.limit + 1 };
}
/** What `keysetLoads` reads: the page's rows (one more than the limit), and the total when asked. */
export type KeysetLoads = { rows: Statement } | { rows: Statement; total: Statement };

/** The page `keysetLoads` read. */
export function pageFrom<Row>(q: Pick<KeysetQuery<Row>, 'limit' | 'rowId' | 'sortKey'>, loaded: Loaded<KeysetLoads>): Page<Row> {
  const rows = loaded.rows as unknown as Row[];
  const hasMore = rows.length > q.limit;
  const data = hasMore ? rows.slice(0, q.limit) : rows;
  const page: Page<Row> = { data, hasMore };
  if (hasMore) {
    const last = data[data.length - 1]!;
    const id = q.rowId ? q.rowId(last) : (last as Row & { id: string }).id;
    page.nextCursor = encodeCursor(q.sortKey ? { k: q.sortKey(last), id } : { id });
  }
  if ('total' in loaded) page.totalCount = (loaded.total as unknown as { n: number }[])[0]?.n ?? 0;
  return page;
}

/** One page by keyset, read in one round trip. */
export async function keysetPage<Row>(db: Db, q: KeysetQuery<Row>): Promise<Page<Row>> {
  return pageFrom(q, await loadTogether(db, keysetLoads(db, q)));
}

/**
 * A list ordered by id, as loads and their reading: `loads` for a route's `load` (the page and its total ride
 * on authentication) or `loadTogether`, `from` in the handler. `query` builds the keyset query for the
 * platform (SQL: see `RouteSpec.load`) and the request's filters.
 */
export function keysetList<Q extends { limit: number }, Row, View>(
  query: (platformId: SQL, q: Q) => KeysetQuery<Row>,
  view: (row: Row) => View,
) {
  return {
    loads: (db: Db, platformId: SQL, q: Q) => keysetLoads(db, query(platformId, q)),
    from: (q: Q, loaded: Loaded<KeysetLoads>): Page<View> => {
      // The cursor's sort key (a date-range order) depends on the filters, not on the platform.
      const { sortKey, rowId } = query(sql`NULL`, q);
      return mapPage(pageFrom<Row>({ limit: q.limit, sortKey, rowId }, loaded), view);
    },
  };
}

/**
 * The order of a list filtered by a date range: by that date, then id, so one index (platform, date, id)
 * serves both the range and the page's order (ids and creation times sort alike; an update-time range pages
 * in update order). The first range given wins; none keeps the id order.
 */
export function dateRangeOrder<Row>(
  ranges: [SQLiteColumn, (row: Row) => number, boolean][],
): Pick<KeysetQuery<Row>, 'sortColumn' | 'sortKey'> {
  const range = ranges.find(([, , given]) => given);
  return range ? { sortColumn: range[0], sortKey: range[1] } : {};
}

export function mapPage<A, B>(page: Page<A>, f: (a: A) => B): Page<B> {
  return { ...page, data: page.data.map(f) };
}
