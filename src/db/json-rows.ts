// INSERTs of many rows carried as JSON parameters, and IN lists as one JSON parameter (D1's 100-parameter limit).
import { getTableColumns, is, sql, SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db, Statement } from './client';
import { storedValue } from './insert-select';

/** Characters of JSON per bound parameter or stored value: far below D1's 2 MB value limit. */
export const MAX_JSON_BYTES = 400_000;

/**
 * INSERT statements that carry their rows as one JSON parameter each (`INSERT ... SELECT ... FROM json_each(?)`).
 * D1 allows 100 bound parameters per statement, so a multi-row VALUES list stops working at a few rows;
 * this form inserts hundreds of rows per statement. Rows pass through each column's driver mapping (JSON, boolean).
 * `where` filters the rows inside the statement (it may read a row's fields with `json_extract(value, '$.<column>')`).
 */
export function insertJsonRows<T extends SQLiteTable>(db: Db, table: T, rows: T['$inferInsert'][], where?: SQL): Statement[] {
  const columns = Object.entries(getTableColumns(table)) as [string, SQLiteColumn][];
  const encoded: string[] = rows.map((row) => {
    const out: Record<string, unknown> = {};
    // A column whose default is SQL cannot take it through JSON: it is left NULL (no table has one).
    for (const [key, column] of columns) {
      const value = storedValue(column, (row as Record<string, unknown>)[key]);
      out[column.name] = is(value, SQL) ? null : value;
    }
    return JSON.stringify(out);
  });
  // The insert lists every column in table order, so the SELECT yields them in that order.
  const values = sql.raw(columns.map(([, c]) => `json_extract(value, '$.${c.name}')`).join(', '));
  const stmts: Statement[] = [];
  let group: string[] = [];
  let size = 0;
  const flush = () => {
    if (group.length === 0) return;
    const source = sql`SELECT ${values} FROM json_each(${`[${group.join(',')}]`})`;
    stmts.push(db.insert(table).select(where ? sql`${source} WHERE ${where}` : source));
    group = [];
    size = 0;
  };
  for (const row of encoded) {
    if (size + row.length > MAX_JSON_BYTES) flush();
    group.push(row);
    size += row.length + 1;
  }
  flush();
  return stmts;
}

/** `column IN (values)` with the values as one JSON parameter, for lists longer than D1's parameter limit. */
export function inJson(column: SQLiteColumn | SQL, values: readonly (string | number)[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
