// Platforms: the configuration view and update, the sandbox clock as SQL, the operator's create and list.
import { and, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { apiTokens, platformHomes, platforms, PLATFORM_HOMES_UMA_DOMAIN_UQ, PLATFORMS_UMA_DOMAIN_UQ, type PlatformRow } from '../db/schema';
import { database } from '../db/client';
import { directoryOf, FIRST_HOME, homeD1, homesOf, leastFullHome } from '../db/homes';
import { idTime, newId } from '../crypto/ids';
import { currencyInfo } from '../common/currencies';
import { endpointProblem } from '../common/endpoint-url';
import { iso } from '../common/time';
import { keysetPage } from '../http/pagination';
import { ApiError, conflict, invalidFields } from '../http/errors';
import { errorText } from '../db/errors';
import type { Settings } from '../env';
import { webhookPublicKeyPem } from '../crypto/webhook-signature';
import { newToken } from './tokens-service';
import {
  WALLET_DEFAULTS,
  type CurrencyConfig,
  type PlatformConfigView,
  type PlatformConfigUpdate,
  type PlatformCreate,
  type WalletConfig,
} from './schema';

/** Parts of a PlatformConfig view that come from the settings rather than the platform row. */

/**
 * The platform's time as SQL, for loads that run before the platform row is read (see `RouteSpec.load`):
 * the wall clock plus its sandbox clock offset, exactly as a handler's `c.now` is.
 */
export function platformClock(platformId: SQL, wall: number): SQL {
  return sql`(${wall} + (SELECT ${platforms.clockOffsetMs} FROM ${platforms} WHERE ${platforms.id} = ${platformId}))`;
}

interface ConfigExtras {
  webhookPublicKey: string;
  sandboxUmaDomain?: string;
}

/** The platform's webhook verification key (derived once per isolate) and, in sandbox mode, the sandbox UMA domain. */
export async function configExtras(s: Settings, platformId: string): Promise<ConfigExtras> {
  if (!s.webhookSigningKey) throw new Error('WEBHOOK_SIGNING_KEY is not set');
  const extras: ConfigExtras = { webhookPublicKey: await webhookPublicKeyPem(s.webhookSigningKey, platformId) };
  if (s.mode === 'sandbox') extras.sandboxUmaDomain = s.sandboxUmaDomain;
  return extras;
}

/** 400 naming `webhookEndpoint` when the mode's endpoint rules refuse it (checked again at each delivery). */
function checkWebhookEndpoint(url: string | null | undefined, s: Settings) {
  const problem = url === undefined || url === null ? undefined : endpointProblem(url, s.mode === 'production');
  if (problem) throw invalidFields('request body', [{ field: 'webhookEndpoint', message: problem }]);
}

/** The PlatformConfig view of a platform row, with the provider-required fields filled in. */
export function configView(p: PlatformRow, extras: ConfigExtras): PlatformConfigView {
  const view: PlatformConfigView = {
    id: p.configId,
    umaDomain: p.umaDomain,
    supportedCurrencies: p.supportedCurrencies.map(currencyView),
    isRegulatedFinancialInstitution: p.isRegulatedFinancialInstitution,
    webhookPublicKey: extras.webhookPublicKey,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
  if (extras.sandboxUmaDomain) view.sandboxUmaDomain = extras.sandboxUmaDomain;
  if (p.proxyUmaSubdomain) view.proxyUmaSubdomain = p.proxyUmaSubdomain;
  if (p.webhookEndpoint) view.webhookEndpoint = p.webhookEndpoint;
  if (p.embeddedWalletConfig) view.embeddedWalletConfig = { ...WALLET_DEFAULTS, ...p.embeddedWalletConfig };
  return view;
}

function currencyView(c: CurrencyConfig) {
  const info = currencyInfo(c.currencyCode);
  return {
    ...c,
    providerRequiredCustomerFields: info.customerFields,
    providerRequiredCounterpartyCustomerFields: info.counterpartyFields,
  };
}

/**
 * Runs a write that sets `umaDomain`. The unique index decides, not a read before it, so of two platforms
 * claiming one domain at once exactly one wins; the other gets 409 and its write is not applied.
 */
async function claimingUmaDomain<T>(umaDomain: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const text = errorText(error);
    const taken = [PLATFORMS_UMA_DOMAIN_UQ, PLATFORM_HOMES_UMA_DOMAIN_UQ].some((index) =>
      text.includes(`UNIQUE constraint failed: index '${index}'`),
    );
    if (umaDomain !== undefined && taken) {
      throw conflict(`The UMA domain ${umaDomain} is already used by another platform`, 'UMA_DOMAIN_TAKEN');
    }
    throw error;
  }
}

/**
 * How old a directory entry must be before its home's lack of a platform row means a creation stopped between
 * the two writes (a Worker ended), not one still under way: its UMA domain is then given to the next claim.
 */
export const ORPHAN_ENTRY_MS = 60_000;

/**
 * Frees `umaDomain` when the directory entry holding it is such a leftover: no platform row in its home, no move
 * under way, older than ORPHAN_ENTRY_MS (its platform id's time). True when it did.
 */
async function releaseLeftoverClaim(env: object, directory: Db, umaDomain: string): Promise<boolean> {
  const [entry] = await directory
    .select()
    .from(platformHomes)
    .where(sql`lower(${platformHomes.umaDomain}) = lower(${umaDomain})`)
    .limit(1);
  if (!entry || entry.movingTo !== null || entry.movedFrom !== null) return false;
  // The wall clock, not a platform's sandbox clock: time travel must not age an entry a creation is writing.
  if (Date.now() - idTime(entry.platformId) < ORPHAN_ENTRY_MS || !homesOf(env).includes(entry.home)) return false;
  const home = entry.home === FIRST_HOME ? directory : database(homeD1(env, entry.home));
  const [row] = await home.select({ id: platforms.id }).from(platforms).where(eq(platforms.id, entry.platformId)).limit(1);
  if (row) return false;
  await directory
    .delete(platformHomes)
    .where(and(eq(platformHomes.platformId, entry.platformId), isNull(platformHomes.movingTo), isNull(platformHomes.movedFrom)));
  return true;
}

/** claimingUmaDomain, once more after a leftover entry (releaseLeftoverClaim) gave the domain back. */
async function claimingUmaDomainOf<T>(env: object, directory: Db, umaDomain: string, write: () => Promise<T>) {
  try {
    return await claimingUmaDomain(umaDomain, write);
  } catch (error) {
    if (!(error instanceof ApiError && error.is('UMA_DOMAIN_TAKEN'))) throw error;
    if (!(await releaseLeftoverClaim(env, directory, umaDomain))) throw error;
    return claimingUmaDomain(umaDomain, write);
  }
}

/** PATCH /config merge: omitted top-level fields unchanged; wallet config merged field by field. */
export async function updateConfig(env: object, db: Db, platform: PlatformRow, patch: PlatformConfigUpdate, now: number, s: Settings) {
  checkWebhookEndpoint(patch.webhookEndpoint, s);
  // The operator's fields come back with a whole GET /config answer: as they are, they change nothing.
  const operatorSet = {
    isRegulatedFinancialInstitution: platform.isRegulatedFinancialInstitution,
    proxyUmaSubdomain: platform.proxyUmaSubdomain,
  };
  const changed = (Object.keys(operatorSet) as (keyof typeof operatorSet)[]).filter(
    (k) => patch[k] !== undefined && patch[k] !== operatorSet[k],
  );
  if (changed.length) {
    throw invalidFields(
      'request body',
      changed.map((field) => ({ field, message: `${field} is set by the operator; only its current value may be sent` })),
    );
  }
  const extras = await configExtras(s, platform.id);
  const changes: Partial<PlatformRow> = { updatedAt: now };
  if (patch.umaDomain !== undefined) changes.umaDomain = patch.umaDomain;
  if (patch.webhookEndpoint !== undefined) changes.webhookEndpoint = patch.webhookEndpoint;
  if (patch.supportedCurrencies !== undefined) changes.supportedCurrencies = patch.supportedCurrencies;
  if (patch.embeddedWalletConfig !== undefined) {
    changes.embeddedWalletConfig = mergeWalletConfig(platform.embeddedWalletConfig, patch.embeddedWalletConfig);
  }
  const update = () => db.update(platforms).set(changes).where(eq(platforms.id, platform.id)).returning();
  const domainChanged = patch.umaDomain !== undefined && patch.umaDomain !== platform.umaDomain;
  const [row] = domainChanged
    ? await claimingDomainEverywhere(env, platform.id, patch.umaDomain!, platform.umaDomain, update)
    : await update();
  return configView(row!, extras);
}

/**
 * Runs a home's write that gives a platform a new UMA domain: the directory claims it across homes first (its
 * index decides between two homes as a home's does within it); if the home's write fails, the directory gets
 * the old domain back, so neither is left half-changed.
 */
async function claimingDomainEverywhere<T>(env: object, platformId: string, umaDomain: string, previous: string, write: () => Promise<T>) {
  const directory = directoryOf(env);
  const setDomain = (domain: string) =>
    directory.update(platformHomes).set({ umaDomain: domain }).where(eq(platformHomes.platformId, platformId));
  await claimingUmaDomainOf(env, directory, umaDomain, () => setDomain(umaDomain));
  try {
    return await claimingUmaDomain(umaDomain, write);
  } catch (error) {
    await setDomain(previous);
    throw error;
  }
}

function mergeWalletConfig(current: WalletConfig | null, patch: WalletConfig): WalletConfig {
  const merged: WalletConfig = { ...WALLET_DEFAULTS, ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

function platformView(p: PlatformRow, home: string, extras: ConfigExtras) {
  return { id: p.id, name: p.name, home, config: configView(p, extras), createdAt: iso(p.createdAt) };
}

/**
 * Creates a platform and its first token (VIEW, TRANSACT, MANAGE) atomically in its home: the one the operator
 * names, or the bound home with the fewest platforms. The directory records it first (claiming its UMA domain
 * across homes), in the same batch when the home is the directory's; if another home refuses the platform, the
 * record goes again.
 */
export async function createPlatform(env: object, directory: Db, input: PlatformCreate, now: number, s: Settings) {
  checkWebhookEndpoint(input.webhookEndpoint, s);
  if (input.home !== undefined && !homesOf(env).includes(input.home)) {
    throw invalidFields('request body', [
      { field: 'home', message: `No data database is bound as ${input.home}: one of ${homesOf(env).join(', ')}` },
    ]);
  }
  const home = input.home ?? (await leastFullHome(env, directory));
  const db = home === FIRST_HOME ? directory : database(homeD1(env, home));
  const id = newId('Platform', now);
  const extras = await configExtras(s, id);
  const row: PlatformRow = {
    id,
    configId: newId('PlatformConfig', now),
    name: input.name,
    umaDomain: input.umaDomain,
    proxyUmaSubdomain: input.proxyUmaSubdomain ?? null,
    webhookEndpoint: input.webhookEndpoint ?? null,
    supportedCurrencies: input.supportedCurrencies,
    embeddedWalletConfig: input.embeddedWalletConfig ? mergeWalletConfig(null, input.embeddedWalletConfig) : null,
    isRegulatedFinancialInstitution: input.isRegulatedFinancialInstitution,
    clockOffsetMs: 0,
    sandboxFaults: null,
    heldSince: null,
    moveProgress: null,
    createdAt: now,
    updatedAt: now,
  };
  const token = newToken(row.id, home, 'Initial token', ['VIEW', 'TRANSACT', 'MANAGE'], now);
  const entry = directory.insert(platformHomes).values({ platformId: id, home, umaDomain: input.umaDomain });
  const rows = [db.insert(platforms).values(row), db.insert(apiTokens).values(token.row)] as const;
  if (home === FIRST_HOME) {
    // The directory's home too: one batch.
    await claimingUmaDomainOf(env, directory, input.umaDomain, () => db.batch([entry, ...rows]));
  } else {
    await claimingUmaDomainOf(env, directory, input.umaDomain, () => entry);
    try {
      await claimingUmaDomain(input.umaDomain, () => db.batch(rows));
    } catch (error) {
      await directory.delete(platformHomes).where(eq(platformHomes.platformId, id));
      throw error;
    }
  }
  return { platform: platformView(row, home, extras), token: token.view };
}

/**
 * The operator's list: a page of the directory (every home's platforms, in id order, with its maintained count),
 * then each home's rows of that page, one read a home, side by side.
 */
export async function listPlatforms(env: object, directory: Db, q: { limit: number; cursor?: string }, s: Settings) {
  const page = await keysetPage<typeof platformHomes.$inferSelect>(directory, {
    table: platformHomes,
    idColumn: platformHomes.platformId,
    where: undefined,
    limit: q.limit,
    cursor: q.cursor,
    // The service-wide maintained count (platform_id '*'), kept by the directory's rows.
    counted: { platformId: sql`'*'`, list: 'platforms' },
    rowId: (r) => r.platformId,
  });
  const homes = [...new Set(page.data.map((d) => d.home))];
  const rows = new Map<string, PlatformRow>();
  await Promise.all(
    homes.map(async (home) => {
      const ids = page.data.filter((d) => d.home === home).map((d) => d.platformId);
      const db = home === FIRST_HOME ? directory : database(homeD1(env, home));
      for (const row of await db.select().from(platforms).where(inArray(platforms.id, ids))) rows.set(row.id, row);
    }),
  );
  // A directory entry whose home has no row yet (a creation under way, or one that stopped halfway: its domain
  // goes to the next claim) is not listed.
  const listed = page.data.filter((d) => rows.has(d.platformId));
  return {
    ...page,
    data: await Promise.all(listed.map(async (d) => platformView(rows.get(d.platformId)!, d.home, await configExtras(s, d.platformId)))),
  };
}
