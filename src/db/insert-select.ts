// INSERT … SELECT of one row built from a table's columns: the column list is the table's, never spelled out.
import { getTableColumns, is, sql, SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';

/** A row to insert: each value as the table types it, or SQL computed in the statement (a column it reads, a sum). */
export type SelectRow<T extends SQLiteTable> = { [K in keyof T['$inferInsert']]: T['$inferInsert'][K] | SQLWrapper };

const isSql = (v: unknown): v is SQLWrapper => typeof v === 'object' && v !== null && 'getSQL' in v;

/**
 * A value as the column stores it (JSON as text, booleans as 0/1, as the column's driver maps it); a missing one
 * takes the column's default (its SQL default stays SQL), else NULL.
 */
export function storedValue(column: SQLiteColumn, value: unknown): unknown {
  if (value === undefined) value = column.default;
  if (value === undefined || value === null) return null;
  return isSql(value) || is(value, SQL) ? value : column.mapToDriverValue(value);
}

/**
 * `INSERT INTO table (every column) SELECT <row's values, in the table's column order> <tail>`: the row is
 * written only where `tail`'s WHERE holds (a limit, a guard), or with values read by `tail`'s FROM. drizzle
 * names every column of the table in such an insert, so the values follow `getTableColumns`' order.
 */
export function insertSelect<T extends SQLiteTable>(db: Db, table: T, row: SelectRow<T>, tail: SQL) {
  return db.insert(table).select(sql`SELECT ${selectValues(table, row)} ${tail}`);
}

/** A row's values as a SELECT list, in the table's column order (what `insertSelect` selects). */
export function selectValues<T extends SQLiteTable>(table: T, row: SelectRow<T>): SQL {
  const values = Object.entries(getTableColumns(table)).map(([key, column]) => {
    const v = storedValue(column as SQLiteColumn, (row as Record<string, unknown>)[key]);
    return v === null ? sql`NULL` : isSql(v) ? v.getSQL() : sql`${v}`;
  });
  return sql.join(values, sql`, `);
}
