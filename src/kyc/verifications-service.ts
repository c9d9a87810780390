// Verifications: what must be on file, the submission (KYC or KYB outcome), read and list.
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import {
  customers,
  verifications,
  type CustomerRow,
  type PlatformRow,
  type VerificationRow,
  type VerificationState,
  type VerificationStatus,
} from '../db/schema';
import { newId } from '../crypto/ids';
import { notFound } from '../http/errors';
import { keysetList } from '../http/pagination';
import { customerEventData, customerStatusEvent, loadActiveCustomer } from '../customers/service';
import type { Statement } from '../db/client';
import { dispatchEvents, eventStatements } from '../webhooks/outbox';
import { dispatchTransitions } from '../transitions/schedule';
import type { IdentityProvider } from './identity-provider';
import type { VerificationErrorView, VerificationView } from './schema';
import { verificationView } from './views';

const missing = (customer: Pick<CustomerRow, 'id'>, field: string, reason: string): VerificationErrorView => ({
  resourceId: customer.id,
  type: 'MISSING_FIELD',
  field: `customer.${field}`,
  reason,
});

/** What must be on file before KYC (individuals) or KYB (businesses) can run. */
export function missingInformation(customer: Pick<CustomerRow, 'id' | 'customerType' | 'info'>): VerificationErrorView[] {
  const info = customer.info as Record<string, any>;
  const errors: VerificationErrorView[] = [];
  if (!info.address) errors.push(missing(customer, 'address', 'Address is required'));
  if (customer.customerType === 'INDIVIDUAL') {
    if (!info.fullName) errors.push(missing(customer, 'fullName', 'Full name is required'));
    if (!info.birthDate) errors.push(missing(customer, 'birthDate', 'Date of birth is required'));
  } else {
    const business = info.businessInfo ?? {};
    if (!business.legalName) errors.push(missing(customer, 'businessInfo.legalName', 'Legal name is required'));
    if (!business.registrationNumber)
      errors.push(missing(customer, 'businessInfo.registrationNumber', 'Business registration number is required'));
    if (!business.taxId) errors.push(missing(customer, 'businessInfo.taxId', 'Tax identification number is required'));
    if (!business.incorporatedOn) errors.push(missing(customer, 'businessInfo.incorporatedOn', 'Date of incorporation is required'));
  }
  return errors;
}

const STATUS_OF: Record<Outcome, VerificationStatus> = {
  PENDING: 'IN_PROGRESS',
  APPROVED: 'APPROVED',
  REJECTED: 'REJECTED',
};

/**
 * POST /verifications: checks the customer's information and submits it to the identity provider. Sandbox:
 * KYB outcome by the registration number suffix (the sandbox's magic values); production: IN_PROGRESS (the
 * customer PENDING) until the operator's provider reports. An individual of a platform that is not a regulated
 * financial institution is KYC'd by the service operator, through the hosted KYC link, never by this call: with
 * nothing missing it is READY_FOR_VERIFICATION and its kycStatus stays. The verification row, the customer's
 * kycStatus/kybStatus, their webhooks and the provider's instruction are one batch.
 */
export async function submitVerification(
  db: Db,
  queue: Queue<unknown>,
  platform: Pick<PlatformRow, 'id' | 'isRegulatedFinancialInstitution'>,
  customerId: string,
  provider: IdentityProvider,
  now: number,
) {
  const customer = await loadActiveCustomer(db, platform.id, customerId);
  const errors = missingInformation(customer);
  const result = { ...submission(customer, platform, errors.length === 0, provider), errors };
  const change = await verificationChange(db, platform.id, customer, result, now);
  const submitted = result.outcome === 'PENDING' ? provider.submit(db, platform.id, { type: 'VERIFICATION', id: change.view.id }, now) : [];
  await db.batch([...change.statements, ...submitted.map((t) => t.statement)] as [Statement, ...Statement[]]);
  await dispatchEvents(queue, change.eventIds);
  await dispatchTransitions(queue, submitted);
  return change.view;
}

type Outcome = Exclude<VerificationState, 'UNVERIFIED'>;

/** A submission's status and outcome: what is missing first, then who verifies the customer, then the provider's outcome. */
function submission(
  customer: CustomerRow,
  platform: Pick<PlatformRow, 'isRegulatedFinancialInstitution'>,
  complete: boolean,
  provider: IdentityProvider,
): { status: VerificationStatus; outcome: Outcome | null } {
  if (!complete) return { status: 'RESOLVE_ERRORS', outcome: null };
  if (customer.customerType === 'INDIVIDUAL' && !platform.isRegulatedFinancialInstitution)
    return { status: 'READY_FOR_VERIFICATION', outcome: null };
  const outcome = provider.verifyCustomer(customer);
  return { status: STATUS_OF[outcome], outcome };
}

/**
 * What a verification writes, in one batch: its row, the customer's kycStatus/kybStatus when it reached an
 * outcome, and their webhooks (VERIFICATION.*, and CUSTOMER.KYC_* or KYB_* when the status changes). POST
 * /verifications and a completed hosted KYC link both commit it; `eventIds` are dispatched after.
 */
export async function verificationChange(
  db: Db,
  platformId: string,
  customer: CustomerRow,
  result: { status: VerificationStatus; outcome: Outcome | null; errors: VerificationErrorView[] },
  now: number,
): Promise<{ statements: Statement[]; eventIds: string[]; view: VerificationView }> {
  const row: VerificationRow = {
    id: newId('Verification', now),
    platformId,
    customerId: customer.id,
    verificationStatus: result.status,
    errors: result.errors,
    createdAt: now,
    updatedAt: now,
  };
  const statements: Statement[] = [db.insert(verifications).values(row)];
  const verificationEvent = eventStatements(db, {
    platformId,
    type: `VERIFICATION.${row.verificationStatus}`,
    data: verificationView(row),
    now,
  });
  statements.push(...verificationEvent.statements);
  const eventIds = [verificationEvent.eventId];
  const { outcome } = result;
  if (outcome) {
    const updated: CustomerRow = { ...customer, verificationStatus: outcome, updatedAt: Math.max(now, customer.updatedAt) };
    statements.push(
      db
        .update(customers)
        .set({ verificationStatus: outcome, updatedAt: updated.updatedAt })
        .where(and(eq(customers.id, customer.id), eq(customers.platformId, platformId))),
    );
    if (outcome !== customer.verificationStatus) {
      const e = eventStatements(db, { platformId, type: customerStatusEvent(updated)!, data: await customerEventData(db, updated), now });
      statements.push(...e.statements);
      eventIds.push(e.eventId);
    }
  }
  return { statements, eventIds, view: verificationView(row) };
}

/** GET /verifications/{id} as a load (`platformId` SQL: see `RouteSpec.load`); `verificationFrom` reads it. */
export function verificationLoads(db: Db, platformId: SQL, id: string) {
  return {
    verification: db
      .select()
      .from(verifications)
      .where(and(eq(verifications.id, id), eq(verifications.platformId, platformId)))
      .limit(1),
  };
}

export function verificationFrom(loaded: Loaded<ReturnType<typeof verificationLoads>>) {
  const row = loaded.verification[0];
  if (!row) throw notFound('VERIFICATION_NOT_FOUND', 'Verification not found');
  return verificationView(row);
}

/**
 * GET /verifications: by id, with the filters; the total unfiltered or of one customer, from the platform's or the
 * customer's maintained count (with a status filter, none).
 */
export const verificationList = keysetList(
  (platformId: SQL, q: { customerId?: string; verificationStatus?: VerificationStatus; limit: number; cursor?: string }) => {
    const where: SQL[] = [eq(verifications.platformId, platformId)];
    if (q.customerId) where.push(eq(verifications.customerId, q.customerId));
    if (q.verificationStatus) where.push(eq(verifications.verificationStatus, q.verificationStatus));
    const list = q.verificationStatus ? undefined : q.customerId ? `verifications:${q.customerId}` : 'verifications';
    const counted = list ? { platformId, list } : undefined;
    return { table: verifications, idColumn: verifications.id, where: and(...where), limit: q.limit, cursor: q.cursor, counted };
  },
  verificationView,
);
