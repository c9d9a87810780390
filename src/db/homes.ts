// The data databases ("homes"): the D1 bindings DB, DB_2, DB_3…; each platform lives in one. The directory
// (platform_homes, in the first home) records which, and every credential or secret issued for a platform names
// its home too, so a request reaches its database in its first round trip without asking the directory.
import { count, eq } from 'drizzle-orm';
import { database, type Db } from './client';
import { homeForwards, platformHomes } from './schema';

/** The first home: the database of releases before homes, and the one that keeps the directory. */
export const FIRST_HOME = 'DB';

// DB, then DB_2, DB_3…: a home's number is what its secrets carry.
const HOME_BINDING = /^DB(?:_([2-9]|[1-9][0-9]+))?$/;

function numberOf(home: string): number {
  const m = HOME_BINDING.exec(home);
  if (!m) throw new Error(`Not a home binding: ${home}`);
  return m[1] ? Number(m[1]) : 1;
}

const homeNamed = (n: number) => (n === 1 ? FIRST_HOME : `DB_${n}`);

function isD1(value: unknown): value is D1Database {
  return typeof value === 'object' && value !== null && typeof (value as D1Database).prepare === 'function';
}

/** The homes this deployment binds, first home first. */
export function homesOf(env: object): string[] {
  return Object.entries(env)
    .filter(([name, value]) => HOME_BINDING.test(name) && isD1(value))
    .map(([name]) => name)
    .sort((a, b) => numberOf(a) - numberOf(b));
}

/** The D1 binding of a home. */
export function homeD1(env: object, home: string): D1Database {
  const d1 = (env as Record<string, unknown>)[home];
  if (!HOME_BINDING.test(home) || !isD1(d1)) throw new Error(`No data database is bound as ${home}`);
  return d1;
}

/** The directory's database. */
export const directoryOf = (env: object) => database(homeD1(env, FIRST_HOME));

// A home's mark on a secret: `.<n>`. No secret here has a dot of its own (hex, base64url, device-code letters).
const MARK = /\.([1-9][0-9]*)$/;

/**
 * A secret (an API token's client id, an agent token, a device code, a KYC link's secret, an invitation code)
 * issued for a platform of `home`: the first home's carry no mark, as before homes; the others end in `.<n>`.
 */
export function issuedIn(secret: string, home: string): string {
  const n = numberOf(home);
  return n === 1 ? secret : `${secret}.${n}`;
}

/**
 * The home a credential or secret names. Without a mark, or with the number of a home this deployment does
 * not bind, it is the first home, where such a secret is simply not found.
 */
export function homeNamedBy(env: object, secret: string | undefined): string {
  const m = secret ? MARK.exec(secret) : null;
  if (!m) return FIRST_HOME;
  const home = homeNamed(Number(m[1]));
  return homesOf(env).includes(home) ? home : FIRST_HOME;
}

/**
 * Where a platform moved away from this home now lives, for one of the credentials or secrets this home issued
 * (`home_forwards`, left by the move; the key names its kind, e.g. `token:<clientId>`). Read only after it was
 * not found here.
 */
export async function forwardOf(db: Db, key: string): Promise<string | undefined> {
  const [row] = await db.select({ home: homeForwards.home }).from(homeForwards).where(eq(homeForwards.key, key)).limit(1);
  return row?.home;
}

/** The home of a secret this service issued: the one it names, or where that home forwards it (`key`). */
export async function homeOfSecret(env: object, secret: string, key: string): Promise<string> {
  const named = homeNamedBy(env, secret);
  return (await forwardOf(database(homeD1(env, named)), key)) ?? named;
}

/** A platform's directory entry: its home, and whether a move of it is under way (platform/move.ts). */
export async function directoryEntry(env: object, platformId: string) {
  const [row] = await directoryOf(env).select().from(platformHomes).where(eq(platformHomes.platformId, platformId)).limit(1);
  return row && { home: row.home, moving: row.movingTo !== null || row.movedFrom !== null };
}

/** The home a new platform goes to: the bound home with the fewest platforms (the first on a tie). */
export async function leastFullHome(env: object, directory: Db = directoryOf(env)): Promise<string> {
  const homes = homesOf(env);
  if (homes.length === 1) return homes[0]!;
  const rows = await directory.select({ home: platformHomes.home, n: count() }).from(platformHomes).groupBy(platformHomes.home);
  const held = new Map(rows.map((r) => [r.home, r.n]));
  return homes.reduce((best, home) => ((held.get(home) ?? 0) < (held.get(best) ?? 0) ? home : best));
}
