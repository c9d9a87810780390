import { drizzle } from 'drizzle-orm/d1';
import type { BatchItem } from 'drizzle-orm/batch';
import * as schema from './schema';

export type Db = ReturnType<typeof build>;

/** One statement of a D1 batch. */
export type Statement = BatchItem<'sqlite'>;

const build = (d1: D1Database) => drizzle(d1, { schema });

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
