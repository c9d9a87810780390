// The UMA provider directory: view, list and the operator's load.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { database, type Db, type Loaded } from '../db/client';
import { homeD1, homesOf } from '../db/homes';
import { umaProviders, type UmaProviderRow } from '../db/schema';
import { newId } from '../crypto/ids';
import { inJson } from '../db/json-rows';
import { keysetLoads, pageFrom, type KeysetQuery } from '../http/pagination';
import type { Statement } from '../db/client';
import type { UmaProviderInput, UmaProviderListQuery, UmaProviderView } from './schema';

function umaProviderView(row: UmaProviderRow): UmaProviderView {
  return {
    name: row.name,
    supportedRegions: row.supportedRegions,
    domain: row.domain,
    ...(row.logoUrl ? { logoUrl: row.logoUrl } : {}),
    supportedCurrencies: row.supportedCurrencies,
    ...(row.lei ? { lei: row.lei } : {}),
    allowListStatus: row.allowListStatus,
  };
}

/**
 * GET /uma-providers as loads: filters by region and currency, blocked providers included unless
 * `hasBlockedProviders=false`, ordered by name (ties by id) in `sortOrder`, keyset-paged, with the total.
 * The directory is shared; `platformId` (SQL, see `RouteSpec.load`) only makes an unauthenticated
 * request read nothing.
 */
export function umaProviderLoads(db: Db, platformId: SQL, q: UmaProviderListQuery) {
  return keysetLoads(db, providerPage(platformId, q));
}

const byName = (r: UmaProviderRow) => r.name;

function providerPage(platformId: SQL, q: UmaProviderListQuery): KeysetQuery<UmaProviderRow> {
  const where: SQL[] = [sql`${platformId} IS NOT NULL`];
  if (q.countryCode) where.push(sql`EXISTS (SELECT 1 FROM json_each(${umaProviders.supportedRegions}) WHERE value = ${q.countryCode})`);
  if (q.currencyCode) {
    where.push(
      sql`EXISTS (SELECT 1 FROM json_each(${umaProviders.supportedCurrencies}) WHERE json_extract(value, '$.code') = ${q.currencyCode})`,
    );
  }
  if (q.hasBlockedProviders === false) where.push(eq(umaProviders.allowListStatus, true));
  return {
    table: umaProviders,
    idColumn: umaProviders.id,
    sortColumn: umaProviders.name,
    sortKey: byName,
    order: q.sortOrder,
    where: and(...where),
    limit: q.limit,
    cursor: q.cursor,
    // The spec requires the total. The directory's maintained counts (all, allow-listed) serve those views; a
    // region or currency filter counts the directory, which is service-wide and small (operator-loaded
    // providers, not a tenant's data).
    ...(q.countryCode || q.currencyCode
      ? { withTotal: true }
      : {
          counted: {
            platformId: sql`CASE WHEN ${platformId} IS NOT NULL THEN '*' END`,
            list: q.hasBlockedProviders === false ? 'uma_providers_allowed' : 'uma_providers',
          },
        }),
  };
}

export function umaProvidersFrom(q: UmaProviderListQuery, loaded: Loaded<ReturnType<typeof umaProviderLoads>>) {
  const page = pageFrom<UmaProviderRow>({ limit: q.limit, sortKey: byName }, loaded);
  return {
    data: page.data.map(umaProviderView),
    hasMore: page.hasMore,
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    totalCount: page.totalCount ?? 0,
  };
}

/**
 * Operator load, into every home: the directory of providers is every platform's to read, so each home keeps its
 * copy, written in turn (the same load again is the same result, so a load that failed halfway is repeated).
 * The counts are the first home's.
 */
export async function loadUmaProviders(env: object, providers: UmaProviderInput[], now: number) {
  // One id a new provider in every home, so a page's cursor reads the same in each (a platform may move).
  const ids = providers.map(() => newId('UmaProvider', now));
  const results = [];
  for (const home of homesOf(env)) results.push(await loadInto(database(homeD1(env, home)), providers, ids, now));
  return results[0]!;
}

/** Adds providers to one home's directory, or replaces those whose domain is already listed, in one batch. */
async function loadInto(db: Db, providers: UmaProviderInput[], ids: string[], now: number) {
  const domains = providers.map((p) => p.domain.toLowerCase());
  const existing = await db.select({ domain: umaProviders.domain }).from(umaProviders).where(inJson(umaProviders.domain, domains));
  const stmts: Statement[] = providers.map((p, i) => {
    const values = {
      name: p.name,
      domain: p.domain.toLowerCase(),
      logoUrl: p.logoUrl ?? null,
      supportedRegions: p.supportedRegions,
      supportedCurrencies: p.supportedCurrencies,
      lei: p.lei ?? null,
      allowListStatus: p.allowListStatus,
      updatedAt: now,
    };
    return db
      .insert(umaProviders)
      .values({ id: ids[i]!, createdAt: now, ...values })
      .onConflictDoUpdate({ target: umaProviders.domain, set: values });
  });
  await db.batch(stmts as [Statement, ...Statement[]]);
  const updated = existing.length;
  return { created: providers.length - updated, updated };
}
