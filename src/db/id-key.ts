// Index keys of ids: the money tables' list indexes hold a `<Type>:<uuid>` id (45-52 bytes of text, in every entry
// of every index of a payment) as 8 bytes of its UUID.
import { and, eq, SQL, sql, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * The key of an id: the last 8 bytes of its UUID (the hex of its last 17 characters, dashes left out: random
 * bits in every UUID this service makes). Text that is not such hex keys as itself, so every id has one. A key
 * finds an id's index entries and nothing decides on it alone: every query compares the ids themselves
 * (`idIs`), so ids of one key (another spelling of the UUID, or a UUID made to end alike) never match each
 * other; a filter by such a made-up id reads the rows of the id it mimics, within the platform's own index
 * entries, as a second filter on a large list does. The list indexes are built on this very expression
 * (migration 0040), and SQLite uses such an index only for a query that writes the same expression: build both
 * from here.
 */
export const idKey = (id: SQLWrapper) => sql`coalesce(unhex(replace(substr(${id}, -17), '-', '')), ${id})`;

/** The key of a value, `value` evaluated once (a platform given as its authentication's subquery runs once). */
const keyOf = (value: SQL | string) => sql`(SELECT ${idKey(sql.raw('v'))} FROM (SELECT ${value} AS v))`;

/**
 * `column = value` through an index on `idKey(column)`: the keys find the entries, the ids compare exactly (two
 * ids of one key, such as one UUID in upper and in lower case, are different ids).
 */
export const idIs = (column: SQLiteColumn | SQL, value: SQL | string): SQL =>
  and(sql`${idKey(column)} = ${keyOf(value)}`, column instanceof SQL ? sql`${column} = ${value}` : eq(column, value))!;

/** `column IS value` (NULL matches NULL) through the same index. */
export const idIsOrNull = (column: SQLiteColumn | SQL, value: SQL): SQL =>
  sql`${idKey(column)} IS ${keyOf(value)} AND ${column} IS ${value}`;
