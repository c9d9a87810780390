// Beneficial owners of business customers: create (with their KYC), read, list, update.
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import type { ServiceMode } from '../env';
import { beneficialOwners, type BeneficialOwnerRow, type VerificationState } from '../db/schema';
import { newId } from '../crypto/ids';
import { invalidFields, notFound, retryableConflict } from '../http/errors';
import { keysetLoads, mapPage, pageFrom } from '../http/pagination';
import { customerLoads, customerNotFound, loadActiveCustomer } from '../customers/service';
import { sandboxKycStatus } from './sandbox';
import type { BeneficialOwnerCreate, BeneficialOwnerUpdate, PersonalInfo } from '../customers/beneficial-owners';
import { beneficialOwnerView } from '../customers/beneficial-owners';

const ownerNotFound = () => notFound('BENEFICIAL_OWNER_NOT_FOUND', 'Beneficial owner not found');

/** KYC of an owner: sandbox by the last 3 characters of the last name; production waits for review. */
function kycOutcome(info: PersonalInfo, mode: ServiceMode): VerificationState {
  return mode === 'sandbox' ? sandboxKycStatus(info.lastName) : 'PENDING';
}

/** Creates an owner of a business customer; its KYC outcome is written in the same statement. */
export async function createBeneficialOwner(db: Db, platformId: string, input: BeneficialOwnerCreate, mode: ServiceMode, now: number) {
  const customer = await loadActiveCustomer(db, platformId, input.customerId);
  if (customer.customerType !== 'BUSINESS') {
    throw invalidFields('request body', [{ field: 'customerId', message: 'Beneficial owners belong to BUSINESS customers' }]);
  }
  const row: BeneficialOwnerRow = {
    id: newId('BeneficialOwner', now),
    platformId,
    customerId: customer.id,
    roles: input.roles,
    ownershipPercentage: input.ownershipPercentage,
    personalInfo: input.personalInfo,
    kycStatus: kycOutcome(input.personalInfo, mode),
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(beneficialOwners).values(row);
  return beneficialOwnerView(row);
}

export async function loadBeneficialOwner(db: Db, platformId: string, id: string): Promise<BeneficialOwnerRow> {
  const row = await db.query.beneficialOwners.findFirst({
    where: and(eq(beneficialOwners.id, id), eq(beneficialOwners.platformId, platformId)),
  });
  if (!row) throw ownerNotFound();
  return row;
}

/** GET /beneficial-owners/{id} as a load (`platformId` SQL: see `RouteSpec.load`); `ownerFrom` reads it. */
export function ownerLoads(db: Db, platformId: SQL, id: string) {
  return {
    owner: db
      .select()
      .from(beneficialOwners)
      .where(and(eq(beneficialOwners.id, id), eq(beneficialOwners.platformId, platformId)))
      .limit(1),
  };
}

export function ownerFrom(loaded: Loaded<ReturnType<typeof ownerLoads>>) {
  const row = loaded.owner[0];
  if (!row) throw ownerNotFound();
  return beneficialOwnerView(row);
}

type OwnerListQuery = { customerId: string; limit: number; cursor?: string };

/** GET /beneficial-owners as loads: the customer (404 when it is not the platform's) and the page of its owners. */
export function ownerListLoads(db: Db, platformId: SQL, q: OwnerListQuery) {
  return {
    customer: customerLoads(db, platformId, q.customerId).customer,
    ...keysetLoads(db, {
      table: beneficialOwners,
      idColumn: beneficialOwners.id,
      where: and(eq(beneficialOwners.platformId, platformId), eq(beneficialOwners.customerId, q.customerId)),
      limit: q.limit,
      cursor: q.cursor,
      counted: { platformId, list: `beneficial_owners:${q.customerId}` },
    }),
  };
}

export function ownerListFrom(q: OwnerListQuery, loaded: Loaded<ReturnType<typeof ownerListLoads>>) {
  if (!loaded.customer[0]) throw customerNotFound();
  return mapPage(pageFrom<BeneficialOwnerRow>(q, loaded), beneficialOwnerView);
}

/**
 * Partial update: personalInfo merged field by field. A changed last name re-runs KYC (the sandbox outcome
 * depends on it), in the same conditional write.
 */
export async function updateBeneficialOwner(
  db: Db,
  platformId: string,
  id: string,
  patch: BeneficialOwnerUpdate,
  mode: ServiceMode,
  now: number,
) {
  for (let attempt = 0; ; attempt++) {
    const row = await loadBeneficialOwner(db, platformId, id);
    const info = { ...(row.personalInfo as PersonalInfo), ...patch.personalInfo };
    const changes: Partial<BeneficialOwnerRow> = { personalInfo: info, updatedAt: Math.max(now, row.updatedAt) };
    if (patch.roles !== undefined) changes.roles = patch.roles;
    if (patch.ownershipPercentage !== undefined) changes.ownershipPercentage = patch.ownershipPercentage;
    if (patch.personalInfo?.lastName !== undefined && patch.personalInfo.lastName !== (row.personalInfo as PersonalInfo).lastName) {
      changes.kycStatus = kycOutcome(info, mode);
    }
    const [updated] = await db
      .update(beneficialOwners)
      .set(changes)
      .where(
        and(
          eq(beneficialOwners.id, row.id),
          eq(beneficialOwners.updatedAt, row.updatedAt),
          eq(beneficialOwners.personalInfo, row.personalInfo),
        ),
      )
      .returning();
    if (updated) return beneficialOwnerView(updated);
    if (attempt >= 4) throw retryableConflict('The beneficial owner changed concurrently; retry the request');
  }
}
