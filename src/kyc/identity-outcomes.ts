// What the operator's identity provider reports (POST /providers/identity/outcomes), applied exactly once.
import { and, eq, exists, sql } from 'drizzle-orm';
import { loadTogether, namedGuard, type Db, type Statement } from '../db/client';
import type { Settings } from '../env';
import { beneficialOwners, customers, verifications, type CustomerRow, type VerificationRow, type VerificationStatus } from '../db/schema';
import { isNamedGuardFailure, errorText } from '../db/errors';
import { conflict, notFound, retryableConflict } from '../http/errors';
import { authenticateOutcome, IDENTITY_PROVIDER } from '../providers/channel';
import { customerStatusEvent, customerView } from '../customers/service';
import { dispatchEvents, eventStatements } from '../webhooks/outbox';
import type { IdentityOutcome, IdentityOutcomeResult, ProviderReason } from './identity-schema';
import type { VerificationErrorView } from './schema';
import { verificationView } from './views';
import { providerLinkLoads, reportLinkOutcome } from './links-service';

/**
 * An outcome applies to a subject the provider was asked about and that still waits for it: a verification
 * IN_PROGRESS, a beneficial owner whose KYC is PENDING, a hosted KYC link still open. Its change (the verification's status and reasons,
 * the customer's kycStatus/kybStatus, their VERIFICATION.* and CUSTOMER.* webhooks) commits in one batch
 * that holds only while the subject still waits, so of two deliveries one applies. The same outcome again
 * answers `applied: false`; another one for a decided subject is 409 (left to a person); an unknown id, or
 * another platform's, is 404.
 */

type VerificationOutcome = Extract<IdentityOutcome, { verificationId: string }>;
type OwnerOutcome = Extract<IdentityOutcome, { beneficialOwnerId: string }>;
type LinkOutcome = Extract<IdentityOutcome, { kycLinkId: string }>;

const STATUS_OF: Record<VerificationOutcome['status'], VerificationStatus> = {
  APPROVED: 'APPROVED',
  REJECTED: 'REJECTED',
  DOCUMENTS_REQUESTED: 'RESOLVE_ERRORS',
};
/** What the customer's kycStatus/kybStatus becomes (documents requested: it stays PENDING). */
const CUSTOMER_OF = { APPROVED: 'APPROVED', REJECTED: 'REJECTED', DOCUMENTS_REQUESTED: null } as const;

const STILL_IN_PROGRESS = 'VERIFICATION_IN_PROGRESS';
const ATTEMPTS = 4;

/** The provider's reasons as the verification shows them (about the customer unless they name another resource). */
const errorsOf = (customerId: string, reasons: ProviderReason[]): VerificationErrorView[] =>
  reasons.map((r) => ({ resourceId: r.resourceId ?? customerId, ...r }));

/**
 * POST /providers/identity/outcomes: authenticates the outcome (signed under IDENTITY_PROVIDER_SECRET: 401
 * otherwise, 503 without one) and applies it once.
 */
export async function receiveIdentityOutcome(
  deps: { db: Db; queue: Queue<unknown> },
  s: Pick<Settings, 'mode' | 'identityProvider'>,
  signature: string | null,
  rawBody: string,
  outcome: IdentityOutcome,
  now: number,
): Promise<IdentityOutcomeResult> {
  await authenticateOutcome(IDENTITY_PROVIDER, s.mode, s.identityProvider, signature, rawBody, Date.now());
  if ('verificationId' in outcome) return verificationOutcome(deps, outcome, now);
  if ('kycLinkId' in outcome) return linkOutcome(deps, outcome, now);
  return ownerOutcome(deps.db, outcome, now);
}

/** A hosted KYC link the customer completed or failed on the provider's page (links-service.ts applies it once). */
async function linkOutcome({ db, queue }: { db: Db; queue: Queue<unknown> }, outcome: LinkOutcome, now: number) {
  const loaded = await loadTogether(db, providerLinkLoads(db, outcome.platformId, outcome.kycLinkId));
  const customerId = loaded.customer[0]?.id ?? '';
  const errors = 'errors' in outcome ? errorsOf(customerId, outcome.errors) : [];
  const done = await reportLinkOutcome(db, queue, loaded, outcome.status, errors, now);
  return { id: outcome.kycLinkId, status: outcome.status, applied: done.applied, kycStatus: done.kycStatus };
}

async function verificationOutcome(deps: { db: Db; queue: Queue<unknown> }, outcome: VerificationOutcome, now: number) {
  const { db } = deps;
  const target = STATUS_OF[outcome.status];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const mine = and(eq(verifications.id, outcome.verificationId), eq(verifications.platformId, outcome.platformId));
    const loaded = await loadTogether(db, {
      verification: db.select().from(verifications).where(mine).limit(1),
      customer: db
        .select()
        .from(customers)
        .where(eq(customers.id, db.select({ id: verifications.customerId }).from(verifications).where(mine)))
        .limit(1),
      owners: db
        .select()
        .from(beneficialOwners)
        .where(eq(beneficialOwners.customerId, db.select({ id: verifications.customerId }).from(verifications).where(mine)))
        .orderBy(beneficialOwners.id),
    });
    const [row, customer] = [loaded.verification[0], loaded.customer[0]];
    if (!row || !customer) throw notFound('VERIFICATION_NOT_FOUND', 'No verification of this platform has this id');
    const errors = 'errors' in outcome ? errorsOf(customer.id, outcome.errors) : [];
    const result = (applied: boolean, v: VerificationRow, c: CustomerRow): IdentityOutcomeResult => ({
      id: v.id,
      status: outcome.status,
      applied,
      verificationStatus: v.verificationStatus,
      kycStatus: c.verificationStatus,
    });
    if (row.verificationStatus !== 'IN_PROGRESS') {
      if (row.verificationStatus === target && JSON.stringify(row.errors) === JSON.stringify(errors)) return result(false, row, customer);
      throw conflict(`The verification is ${row.verificationStatus}: it was not waiting for the identity provider`);
    }
    const next: VerificationRow = { ...row, verificationStatus: target, errors, updatedAt: Math.max(now, row.updatedAt) };
    const statements: Statement[] = [
      namedGuard(db, STILL_IN_PROGRESS, stillInProgress(db, row.id)),
      db.update(verifications).set({ verificationStatus: target, errors, updatedAt: next.updatedAt }).where(eq(verifications.id, row.id)),
    ];
    const event = eventStatements(db, { platformId: row.platformId, type: `VERIFICATION.${target}`, data: verificationView(next), now });
    statements.push(...event.statements);
    const eventIds = [event.eventId];
    const status = CUSTOMER_OF[outcome.status];
    let updatedCustomer = customer;
    // A deleted customer's verification still records its outcome; the customer itself is left as it is.
    if (status && !customer.isDeleted && status !== customer.verificationStatus) {
      updatedCustomer = { ...customer, verificationStatus: status, updatedAt: Math.max(now, customer.updatedAt) };
      statements.push(
        db
          .update(customers)
          .set({ verificationStatus: status, updatedAt: updatedCustomer.updatedAt })
          .where(and(eq(customers.id, customer.id), eq(customers.isDeleted, false))),
      );
      const e = eventStatements(db, {
        platformId: row.platformId,
        type: customerStatusEvent(updatedCustomer)!,
        data: customerView(updatedCustomer, loaded.owners),
        now,
      });
      statements.push(...e.statements);
      eventIds.push(e.eventId);
    }
    try {
      await db.batch(statements as [Statement, ...Statement[]]);
    } catch (error) {
      // Another delivery decided it first: read it again.
      if (isNamedGuardFailure(errorText(error), STILL_IN_PROGRESS)) continue;
      throw error;
    }
    await dispatchEvents(deps.queue, eventIds);
    return result(true, next, updatedCustomer);
  }
  throw retryableConflict('The verification changed concurrently; retry');
}

/** The verification is still waiting for the provider (the guard that lets one of two deliveries commit). */
function stillInProgress(db: Db, id: string) {
  return exists(
    db
      .select({ id: verifications.id })
      .from(verifications)
      .where(and(eq(verifications.id, id), eq(verifications.verificationStatus, 'IN_PROGRESS'))),
  );
}

/** An owner's KYC: one conditional write (PENDING to the outcome), so a repeat or a race changes it once. */
async function ownerOutcome(db: Db, outcome: OwnerOutcome, now: number): Promise<IdentityOutcomeResult> {
  const mine = and(eq(beneficialOwners.id, outcome.beneficialOwnerId), eq(beneficialOwners.platformId, outcome.platformId));
  const [updated] = await db
    .update(beneficialOwners)
    .set({ kycStatus: outcome.status, updatedAt: sql`max(${now}, ${beneficialOwners.updatedAt})` })
    .where(and(mine, eq(beneficialOwners.kycStatus, 'PENDING')))
    .returning();
  const result = (applied: boolean, kycStatus: IdentityOutcomeResult['kycStatus']) => ({
    id: outcome.beneficialOwnerId,
    status: outcome.status,
    applied,
    kycStatus,
  });
  if (updated) return result(true, updated.kycStatus);
  const [owner] = await db.select().from(beneficialOwners).where(mine).limit(1);
  if (!owner) throw notFound('BENEFICIAL_OWNER_NOT_FOUND', 'No beneficial owner of this platform has this id');
  if (owner.kycStatus === outcome.status) return result(false, owner.kycStatus);
  throw conflict(`The beneficial owner's KYC is ${owner.kycStatus}: it was not waiting for the identity provider`);
}
