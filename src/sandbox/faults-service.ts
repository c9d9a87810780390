// Sandbox fault rules: create (checked against the route table), list, read with firings, delete; each change
// refreshes the platform row's copy of its live rules in the same batch (faults.ts reads that copy).
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { namedGuard, type Db, type Loaded } from '../db/client';
import { errorText, isNamedGuardFailure } from '../db/errors';
import { insertSelect } from '../db/insert-select';
import {
  platforms,
  sandboxFaultFirings,
  sandboxFaults,
  type Permission,
  type SandboxFaultFiringRow,
  type SandboxFaultRow,
} from '../db/schema';
import { canonicalJson } from '../crypto/canonical';
import { newId } from '../crypto/ids';
import { iso } from '../common/time';
import { badRequest, forbidden, invalidFields, notFound } from '../http/errors';
import { FAULTS_PATH, FIRINGS_KEPT, refreshLiveFaults } from './faults';
import { openApiPath } from '../http/route-order';
import type { RouteDef } from '../http/route';
import { MAX_FAULTS, SEED_LIMIT, type FaultCreate, type SandboxFault } from './faults-schema';

const faultNotFound = () => notFound('SANDBOX_FAULT_NOT_FOUND', 'Sandbox fault not found');
const FAULT_CAP = 'SANDBOX_FAULT_CAP';

/**
 * 400 naming the field when the rule names no operation the API serves, or a revocation (the rules' own DELETEs
 * among them: a rule never stands between a caller and a revocation); 403 when the creating token may not call
 * the operation itself (a TRANSACT token cannot fault a MANAGE operation).
 */
function checkOperation(match: FaultCreate['match'], routes: readonly RouteDef[], permissions: readonly Permission[]): void {
  const served = routes.filter((r) => openApiPath(r.path) === match.path);
  if (served.length === 0 || match.path.startsWith(FAULTS_PATH)) {
    throw invalidFields('request body', [{ field: 'match.path', message: 'No operation has this path template (see /openapi.json)' }]);
  }
  if (!served.some((r) => r.method === match.method)) {
    const methods = served.map((r) => r.method).join(', ');
    throw invalidFields('request body', [{ field: 'match.method', message: `${match.path} serves ${methods}` }]);
  }
  const route = served.find((r) => r.method === match.method)!;
  if (route.revokes) {
    throw invalidFields('request body', [
      { field: 'match.path', message: `${match.method} ${match.path} revokes a credential: never faultable` },
    ]);
  }
  if (route.permission && !permissions.includes(route.permission)) {
    throw forbidden(`This API token lacks the ${route.permission} permission ${match.method} ${match.path} needs, so it may not fault it`, {
      missingPermissions: [route.permission],
    });
  }
}

/** The default seed: a function of the rule itself, so two identical rules draw alike. */
function seedOf(input: Omit<FaultCreate, 'seed'>): number {
  const digest = sha256(utf8ToBytes(canonicalJson(input)));
  return new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0) % SEED_LIMIT;
}

export function faultView(row: SandboxFaultRow): SandboxFault {
  return {
    id: row.id,
    match: row.match,
    effect: row.effect,
    times: row.times,
    remaining: row.remaining,
    firedCount: row.firedCount,
    probability: row.probability,
    seed: row.seed,
    evaluations: row.evaluations,
    createdAt: iso(row.createdAt),
  } as SandboxFault;
}

/** Creates a rule for the platform, at most MAX_FAULTS of them (one round trip). */
export async function createFault(
  db: Db,
  platformId: string,
  input: FaultCreate,
  routes: readonly RouteDef[],
  permissions: readonly Permission[],
  now: number,
) {
  checkOperation(input.match, routes, permissions);
  const { seed, ...rule } = input;
  const row: SandboxFaultRow = {
    id: newId('SandboxFault', now),
    platformId,
    match: input.match,
    effect: input.effect,
    times: input.times,
    remaining: input.times,
    firedCount: 0,
    probability: input.probability,
    seed: seed ?? seedOf(rule),
    evaluations: 0,
    createdAt: now,
  };
  const count = sql`(SELECT count(*) FROM ${sandboxFaults} WHERE ${sandboxFaults.platformId} = ${platformId})`;
  await db
    .batch([
      insertSelect(db, sandboxFaults, row, sql`WHERE ${count} < ${MAX_FAULTS}`),
      namedGuard(db, FAULT_CAP, sql`changes() > 0`),
      refreshLiveFaults(db, platformId),
    ])
    .catch((error: unknown) => {
      if (isNamedGuardFailure(errorText(error), FAULT_CAP)) {
        throw badRequest(`A platform holds at most ${MAX_FAULTS} fault rules; delete some first`, {
          fields: [{ field: 'match', message: `At most ${MAX_FAULTS} rules` }],
        });
      }
      throw error;
    });
  return faultView(row);
}

/** The platform's rules, oldest first, read in the authentication round trip. */
export const faultListLoads = (db: Db, platformId: SQL) => ({
  faults: db
    .select()
    .from(sandboxFaults)
    .where(eq(sandboxFaults.platformId, platformId))
    .orderBy(asc(sandboxFaults.createdAt), asc(sandboxFaults.id)),
});

/** One rule and its recent firings, read in the authentication round trip. */
export const faultLoads = (db: Db, platformId: SQL, id: string) => ({
  fault: db
    .select()
    .from(sandboxFaults)
    .where(and(eq(sandboxFaults.id, id), eq(sandboxFaults.platformId, platformId))),
  firings: db
    .select()
    .from(sandboxFaultFirings)
    .where(and(eq(sandboxFaultFirings.faultId, id), eq(sandboxFaultFirings.platformId, platformId)))
    .orderBy(desc(sandboxFaultFirings.evaluation))
    .limit(FIRINGS_KEPT),
});

export function faultDetail(loaded: Loaded<ReturnType<typeof faultLoads>>) {
  const row = loaded.fault[0];
  if (!row) throw faultNotFound();
  const firings = loaded.firings.map((f: SandboxFaultFiringRow) => ({
    at: iso(f.at),
    method: f.method,
    path: f.path,
    requestId: f.requestId,
  }));
  return { ...faultView(row), firings };
}

/** Deletes one rule of the platform with its firings (404 for another platform's). */
export async function deleteFault(db: Db, platformId: string, id: string): Promise<void> {
  const [deleted] = await db.batch([
    db
      .delete(sandboxFaults)
      .where(and(eq(sandboxFaults.id, id), eq(sandboxFaults.platformId, platformId)))
      .returning({ id: sandboxFaults.id }),
    db.delete(sandboxFaultFirings).where(and(eq(sandboxFaultFirings.faultId, id), eq(sandboxFaultFirings.platformId, platformId))),
    refreshLiveFaults(db, platformId),
  ]);
  if (deleted.length === 0) throw faultNotFound();
}

/** Deletes every rule of the platform, firings first: found by rule through their key, not by a walk of every platform's firings. */
export async function deleteFaults(db: Db, platformId: string): Promise<void> {
  const rules = db.select({ id: sandboxFaults.id }).from(sandboxFaults).where(eq(sandboxFaults.platformId, platformId));
  await db.batch([
    db.delete(sandboxFaultFirings).where(inArray(sandboxFaultFirings.faultId, rules)),
    db.delete(sandboxFaults).where(eq(sandboxFaults.platformId, platformId)),
    db.update(platforms).set({ sandboxFaults: null }).where(eq(platforms.id, platformId)),
  ]);
}
