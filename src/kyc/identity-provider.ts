// The identity-provider port: who decides KYC and KYB (the sandbox's rules, or the operator's provider).
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { Env, Settings } from '../env';
import { beneficialOwners, customers, kycLinks, verifications, type CustomerRow, type VerificationState } from '../db/schema';
import type { Logger } from '../http/log';
import { iso } from '../common/time';
import { IDENTITY_PROVIDER, providerChannel, providerNotConfigured } from '../providers/channel';
import { deliveryHandler, scheduleInstruction, type InstructionBuilder } from '../providers/delivery';
import { customerEventData } from '../customers/service';
import { beneficialOwnerView, type PersonalInfo } from '../customers/beneficial-owners';
import type { ScheduledTransition, TransitionHandlers } from '../transitions/schedule';
import { SANDBOX_INDIVIDUAL_KYC, sandboxKybStatus, sandboxKycStatus } from './sandbox';
import type { IdentityInstruction } from './identity-schema';

/**
 * Verifications (KYC of individuals, KYB of businesses) and the KYC of beneficial owners are decided by an
 * identity provider. The sandbox's is its rules (magic suffixes), deciding at once. In production
 * it is the operator's: the subject is submitted PENDING with an instruction in the same batch, and stays
 * so until the provider reports through POST /providers/identity/outcomes (identity-outcomes.ts). Without
 * one, production refuses to verify (503) rather than leave anything pending forever.
 */

type Decided = Exclude<VerificationState, 'UNVERIFIED'>;
type Subject = { type: 'VERIFICATION' | 'BENEFICIAL_OWNER' | 'KYC_LINK'; id: string };

export interface IdentityProvider {
  /** The KYC/KYB of a customer whose information is complete: decided now, or PENDING until reported. */
  verifyCustomer(customer: CustomerRow): Decided;
  /** The KYC of a beneficial owner: decided now, or PENDING until reported. */
  verifyOwner(info: PersonalInfo): Decided;
  /** The outbox rows that submit `subject` to the provider, for the batch that records it PENDING (none when decided). */
  submit(db: Db, platformId: string, subject: Subject, now: number): ScheduledTransition[];
}

/** The kind of the outbox rows that deliver identity instructions. */
export const IDENTITY_INSTRUCTION = 'identity.instruct';

/** The sandbox's rules: KYB by the registration number's suffix, owners' KYC by the last name's; individuals pass. */
export const sandboxIdentityProvider: IdentityProvider = {
  verifyCustomer: (customer) =>
    customer.customerType === 'BUSINESS'
      ? sandboxKybStatus((customer.info as { businessInfo: { registrationNumber: string } }).businessInfo.registrationNumber)
      : SANDBOX_INDIVIDUAL_KYC,
  verifyOwner: (info) => sandboxKycStatus(info.lastName),
  submit: () => [],
};

const operatorIdentityProvider: IdentityProvider = {
  verifyCustomer: () => 'PENDING',
  verifyOwner: () => 'PENDING',
  submit: (db, platformId, subject, now) => [
    scheduleInstruction(db, { platformId, subjectId: subject.id, kind: IDENTITY_INSTRUCTION, type: subject.type, now }),
  ],
};

type IdentitySettings = Pick<Settings, 'mode' | 'identityProvider'>;

/**
 * Where a hosted KYC link's customer goes: null for the sandbox's own page; in production the provider's page
 * (IDENTITY_PROVIDER_KYC_URL), 503 SERVICE_NOT_CONFIGURED naming what is missing without it or the provider.
 */
export function hostedKycPage(s: Pick<Settings, 'mode' | 'identityProvider' | 'identityKycPage'>): string | null {
  if (s.mode === 'sandbox') return null;
  identityProvider(s);
  if (s.identityKycPage.url) return s.identityKycPage.url;
  throw providerNotConfigured(IDENTITY_PROVIDER, { ...s.identityProvider, problem: s.identityKycPage.problem });
}

/** Whether this deployment can verify anyone: always in the sandbox; in production once the identity provider is configured. */
export function identityProviderConfigured(s: IdentitySettings): boolean {
  return s.mode === 'sandbox' || s.identityProvider.problem === undefined;
}

/** The identity provider of this deployment; 503 SERVICE_NOT_CONFIGURED in production without one. */
export function identityProvider(s: IdentitySettings): IdentityProvider {
  if (s.mode === 'sandbox') return sandboxIdentityProvider;
  if (!identityProviderConfigured(s)) throw providerNotConfigured(IDENTITY_PROVIDER, s.identityProvider);
  return operatorIdentityProvider;
}

/** The instruction an outbox row names, built from what is stored now (the customer or owner as they are). */
const buildInstruction: InstructionBuilder = async (ctx, type) => {
  const { db, row } = ctx;
  const body =
    type === 'VERIFICATION'
      ? await verificationInstruction(db, row.platformId, row.subjectId)
      : type === 'KYC_LINK'
        ? await linkInstruction(db, row.platformId, row.subjectId, ctx.now)
        : await ownerInstruction(db, row.platformId, row.subjectId);
  return body && { id: body.id, body: JSON.stringify(body) };
};

async function verificationInstruction(db: Db, platformId: string, id: string): Promise<IdentityInstruction | null> {
  const [found] = await db
    .select({ verification: verifications, customer: customers })
    .from(verifications)
    .innerJoin(customers, eq(customers.id, verifications.customerId))
    .where(and(eq(verifications.id, id), eq(verifications.platformId, platformId)))
    .limit(1);
  // Decided meanwhile (or its customer deleted): nothing to ask any more.
  if (!found || found.verification.verificationStatus !== 'IN_PROGRESS' || found.customer.isDeleted) return null;
  return {
    type: 'VERIFICATION',
    id: `${id}/VERIFICATION`,
    platformId,
    createdAt: iso(found.verification.createdAt),
    verificationId: id,
    customer: await customerEventData(db, found.customer),
  };
}

async function linkInstruction(db: Db, platformId: string, id: string, now: number): Promise<IdentityInstruction | null> {
  const [found] = await db
    .select({ link: kycLinks, customer: customers })
    .from(kycLinks)
    .innerJoin(customers, eq(customers.id, kycLinks.customerId))
    .where(and(eq(kycLinks.id, id), eq(kycLinks.platformId, platformId)))
    .limit(1);
  // Completed, expired, or its customer deleted meanwhile: the page has nothing left to do.
  if (!found || found.link.completedAt !== null || found.link.expiresAt <= now || found.customer.isDeleted) return null;
  return {
    type: 'KYC_LINK',
    id: `${id}/KYC_LINK`,
    platformId,
    createdAt: iso(found.link.createdAt),
    kycLinkId: id,
    customer: await customerEventData(db, found.customer),
    ...(found.link.redirectUri ? { redirectUri: found.link.redirectUri } : {}),
    expiresAt: iso(found.link.expiresAt),
  };
}

async function ownerInstruction(db: Db, platformId: string, id: string): Promise<IdentityInstruction | null> {
  const [owner] = await db
    .select()
    .from(beneficialOwners)
    .where(and(eq(beneficialOwners.id, id), eq(beneficialOwners.platformId, platformId)))
    .limit(1);
  if (!owner || owner.kycStatus !== 'PENDING') return null;
  // One id per version of the owner: a change that re-runs KYC is a new submission, a redelivery is not.
  return {
    type: 'BENEFICIAL_OWNER',
    id: `${id}/BENEFICIAL_OWNER/${owner.updatedAt}`,
    platformId,
    createdAt: iso(owner.updatedAt),
    beneficialOwnerId: id,
    beneficialOwner: beneficialOwnerView(owner),
  };
}

/** The delivery of identity instructions, through this deployment's provider (waiting while none is configured). */
export function identityDelivery(
  env: Pick<Env, 'IDENTITY_PROVIDER'>,
  s: Pick<Settings, 'identityProvider'>,
  log: Logger,
): TransitionHandlers {
  const channel = providerChannel(IDENTITY_PROVIDER, s.identityProvider, env.IDENTITY_PROVIDER);
  return { [IDENTITY_INSTRUCTION]: deliveryHandler(IDENTITY_INSTRUCTION, channel, buildInstruction, log) };
}
