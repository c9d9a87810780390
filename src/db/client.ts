import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

export type Db = ReturnType<typeof database>;

/** A drizzle client over the D1 binding; cheap to build per request. */
export function database(d1: D1Database) {
  return drizzle(d1, { schema });
}
