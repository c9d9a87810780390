// Hosted KYC links: made for a customer (single-use, expiring, only the secret's hash kept), opened and completed
// on the hosted page, where completing commits exactly what a verification commits.
import { and, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import { loadTogether, namedGuard, type Db, type Loaded, type Statement } from '../db/client';
import { customers, kycLinks, platforms, type CustomerRow, type KycLinkRow, type PlatformRow } from '../db/schema';
import type { KycLinkOutcome } from '../db/enums';
import type { Settings } from '../env';
import { iso } from '../common/time';
import { redirectUriProblem } from '../common/endpoint-url';
import { newId } from '../crypto/ids';
import { hashSecret, randomToken } from '../crypto/secrets';
import { issuedIn } from '../db/homes';
import { ApiError, conflict, invalidFields, notFound, platformMoving } from '../http/errors';
import { dispatchTransitions } from '../transitions/schedule';
import { errorText, isNamedGuardFailure } from '../db/errors';
import { customerDeleted, customerNotFound } from '../customers/service';
import { dispatchEvents } from '../webhooks/outbox';
import { verificationChange } from './verifications-service';
import { hostedKycPage, identityProvider } from './identity-provider';
import type { HostedKycLinkView, KycLinkView, VerificationErrorView } from './schema';

/** How long a link can be completed. */
export const KYC_LINK_TTL_MS = 24 * 3_600_000;
/** Where the hosted page is served, on the service's own origin (its secret follows as the URL fragment). */
export const KYC_PAGE_PATH = '/kyc';

const LINK_TAKEN = 'KYC_LINK_KEY_TAKEN';

/** The provider's page for a link: its URL with the link's id added to the query. */
function providerPageUrl(page: string, linkId: string): string {
  const url = new URL(page);
  url.searchParams.set('kycLinkId', linkId);
  return url.toString();
}

/** POST /customers/{id}/kyc-link's load: the customer, of the authenticated platform. */
export const kycLinkLoads = (db: Db, platformId: SQL, customerId: string) => ({
  customer: db
    .select()
    .from(customers)
    .where(and(eq(customers.id, customerId), eq(customers.platformId, platformId)))
    .limit(1),
});

interface LinkRequest {
  customerId: string;
  redirectUri?: string;
  /** The Idempotency-Key and the request's fingerprint, when the header was sent. */
  keyed?: { key: string; fingerprint: string };
  /** The origin the request reached: the hosted page is served there. */
  origin: string;
}

/**
 * POST /customers/{customerId}/kyc-link: a fresh link, single-use until `expiresAt`. Links made before stay
 * valid. Under an Idempotency-Key the platform's key names one link: a repeat of the same request answers that
 * link again with a new secret (the service keeps only hashes, so it cannot repeat a URL), and the URL answered
 * before stops working; the same key with another request is 422.
 *
 * In production the page is the operator's identity provider's (IDENTITY_PROVIDER_KYC_URL, 503 without it or the
 * provider): `kycUrl` is that page with `?kycLinkId=`, the provider is told of the link (a KYC_LINK instruction in
 * the batch that creates it) and reports its outcome by that id (identity-outcomes.ts). No secret is given out
 * there (the provider knows the link from its instruction), so a repeat answers the same URL.
 */
export async function createKycLink(
  db: Db,
  home: string,
  queue: Queue<unknown>,
  settings: Settings,
  platform: PlatformRow,
  input: LinkRequest,
  loaded: Loaded<ReturnType<typeof kycLinkLoads>>,
  now: number,
): Promise<{ body: KycLinkView; replayed: boolean }> {
  const page = hostedKycPage(settings);
  const customer = loaded.customer[0];
  if (!customer) throw customerNotFound();
  if (customer.isDeleted) throw customerDeleted();
  const problem = input.redirectUri === undefined ? undefined : redirectUriProblem(input.redirectUri, settings.mode === 'sandbox');
  if (problem) throw invalidFields('request body', [{ field: 'redirectUri', message: problem }]);
  // The secret names the platform's home: the page's calls carry nothing else.
  const secret = issuedIn(randomToken(32), home);
  const answer = (link: Pick<KycLinkRow, 'id' | 'expiresAt'>) => ({
    kycUrl: page === null ? `${input.origin}${KYC_PAGE_PATH}#${secret}` : providerPageUrl(page, link.id),
    expiresAt: iso(link.expiresAt),
    provider: 'SUMSUB' as const,
  });
  const row: KycLinkRow = {
    id: newId('KycLink', now),
    platformId: platform.id,
    customerId: customer.id,
    secretHash: hashSecret(secret),
    redirectUri: input.redirectUri ?? null,
    idempotencyKey: input.keyed?.key ?? null,
    requestFingerprint: input.keyed?.fingerprint ?? null,
    expiresAt: now + KYC_LINK_TTL_MS,
    completedAt: null,
    outcome: null,
    createdAt: now,
  };
  const submitted = page === null ? [] : identityProvider(settings).submit(db, platform.id, { type: 'KYC_LINK', id: row.id }, now);
  try {
    // The instruction holds only with the link: an Idempotency-Key already naming one inserts neither.
    const insert = db.insert(kycLinks).values(row).onConflictDoNothing();
    await db.batch([insert, namedGuard(db, LINK_TAKEN, sql`changes() > 0`), ...submitted.map((t) => t.statement)]);
    await dispatchTransitions(queue, submitted);
    return { body: answer(row), replayed: false };
  } catch (error) {
    if (!isNamedGuardFailure(errorText(error), LINK_TAKEN)) throw error;
  }
  // Refused: the key already names a link (a 256-bit secret's hash never repeats).
  const [held] = input.keyed
    ? await db
        .select()
        .from(kycLinks)
        .where(and(eq(kycLinks.platformId, platform.id), eq(kycLinks.idempotencyKey, input.keyed.key)))
    : [];
  if (!held || !input.keyed) throw new Error('kyc link refused without an Idempotency-Key holding it');
  if (held.requestFingerprint !== input.keyed.fingerprint) {
    throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request', {
      header: 'Idempotency-Key',
    });
  }
  if (page === null) await db.update(kycLinks).set({ secretHash: row.secretHash }).where(eq(kycLinks.id, held.id));
  return { body: answer(held), replayed: true };
}

/**
 * A link by its secret, with its customer and platform, for the hosted page's calls (which carry no credentials):
 * three point reads in one round trip (a join would mix the tables' same-named columns in a batch's rows).
 */
export function hostedLinkLoads(db: Db, secret: string) {
  return linkLoads(db, eq(kycLinks.secretHash, hashSecret(secret)));
}

/** The same by the link's id, of one platform (the identity provider's outcome). */
export function providerLinkLoads(db: Db, platformId: string, id: string) {
  return linkLoads(db, and(eq(kycLinks.id, id), eq(kycLinks.platformId, platformId))!);
}

function linkLoads(db: Db, which: SQL) {
  return {
    link: db.select().from(kycLinks).where(which).limit(1),
    customer: db
      .select()
      .from(customers)
      .where(eq(customers.id, db.select({ id: kycLinks.customerId }).from(kycLinks).where(which)))
      .limit(1),
    platform: db
      .select({ name: platforms.name, clockOffsetMs: platforms.clockOffsetMs, heldSince: platforms.heldSince })
      .from(platforms)
      .where(eq(platforms.id, db.select({ id: kycLinks.platformId }).from(kycLinks).where(which)))
      .limit(1),
  };
}

type HostedLoaded = Loaded<ReturnType<typeof hostedLinkLoads>>;
interface Hosted {
  link: KycLinkRow;
  customer: CustomerRow;
  platform: { name: string; clockOffsetMs: number; heldSince: number | null };
}

/** The link, unless it is unknown or its customer is gone (404 either way: the page can do nothing with it). */
function hosted(loaded: HostedLoaded): Hosted {
  const [link, customer, platform] = [loaded.link[0], loaded.customer[0], loaded.platform[0]];
  if (!link || !customer || !platform || customer.isDeleted) throw notFound('KYC_LINK_NOT_FOUND', 'This KYC link is not valid');
  return { link, customer, platform };
}

const stateOf = (link: KycLinkRow, now: number) => (link.completedAt !== null ? 'USED' : link.expiresAt <= now ? 'EXPIRED' : 'OPEN');

const nameOf = (c: CustomerRow) => {
  const info = c.info as { fullName?: string; businessInfo?: { legalName?: string } };
  return info.fullName ?? info.businessInfo?.legalName ?? c.platformCustomerId;
};

/** What the hosted page shows: whose link, of which platform, and whether it can still be completed. */
export function hostedLinkFrom(loaded: HostedLoaded, wall: number): HostedKycLinkView {
  const { link, customer, platform } = hosted(loaded);
  return {
    state: stateOf(link, wall + platform.clockOffsetMs),
    customerType: customer.customerType,
    name: nameOf(customer),
    platformName: platform.name,
    expiresAt: iso(link.expiresAt),
    ...(link.outcome ? { outcome: link.outcome } : {}),
  };
}

const LINK_SPENT = 'KYC_LINK_SPENT';

function spent(link: KycLinkRow, now: number): ApiError {
  return stateOf(link, now) === 'USED' ? conflict('This KYC link has already been used') : conflict('This KYC link has expired');
}

/**
 * The hosted page's completion (sandbox identity provider): the customer completed (APPROVED) or failed
 * (REJECTED) verification. Spends the link and commits a verification with that outcome, the customer's
 * kycStatus/kybStatus and their webhooks, exactly as POST /verifications commits one, in one batch guarded on
 * the link being unspent, so of two completions one applies. Answers where the page sends the browser.
 */
export async function completeHostedLink(
  db: Db,
  queue: Queue<unknown>,
  loaded: HostedLoaded,
  outcome: KycLinkOutcome,
  wall: number,
): Promise<{ outcome: KycLinkOutcome; redirectUri?: string }> {
  const { link, customer, platform } = hosted(loaded);
  // Its platform is moving to another home: the page tries again in a moment.
  if (platform.heldSince !== null) throw platformMoving();
  const now = wall + platform.clockOffsetMs;
  const errors =
    outcome === 'REJECTED'
      ? [
          {
            resourceId: customer.id,
            type: 'APPLICANT_REJECTED' as const,
            reason: 'The customer failed identity verification on the hosted page',
          },
        ]
      : [];
  const spentBefore = await spendLink(db, queue, link, customer, outcome, errors, now);
  if (spentBefore) throw spent(spentBefore, now);
  return { outcome, ...(link.redirectUri ? { redirectUri: link.redirectUri } : {}) };
}

/**
 * The identity provider's outcome of a link (production): what completing it on the page commits, once. The
 * same outcome again answers `applied: false`; another one for a used link, or any for an expired one, is 409
 * (the link was not waiting for it); an unknown id, another platform's, or a deleted customer's is 404.
 */
export async function reportLinkOutcome(
  db: Db,
  queue: Queue<unknown>,
  loaded: HostedLoaded,
  outcome: KycLinkOutcome,
  errors: VerificationErrorView[],
  wall: number,
): Promise<{ applied: boolean; kycStatus: CustomerRow['verificationStatus'] }> {
  const { link, customer, platform } = hosted(loaded);
  const now = wall + platform.clockOffsetMs;
  if (link.completedAt !== null && link.outcome === outcome) return { applied: false, kycStatus: customer.verificationStatus };
  const spentBefore = await spendLink(db, queue, link, customer, outcome, errors, now);
  if (!spentBefore) return { applied: true, kycStatus: outcome };
  // Another delivery of the same outcome committed first (it set the customer's status to this outcome).
  if (spentBefore.completedAt !== null && spentBefore.outcome === outcome) return { applied: false, kycStatus: outcome };
  throw spent(spentBefore, now);
}

/**
 * Spends an open link and commits a verification with `outcome`, the customer's kycStatus/kybStatus and their
 * webhooks, in one batch guarded on the link being unspent, so of two completions one applies. Answers null
 * when this one did, else the link as the other left it.
 */
async function spendLink(
  db: Db,
  queue: Queue<unknown>,
  link: KycLinkRow,
  customer: CustomerRow,
  outcome: KycLinkOutcome,
  errors: VerificationErrorView[],
  now: number,
): Promise<KycLinkRow | null> {
  if (stateOf(link, now) !== 'OPEN') return link;
  const change = await verificationChange(db, link.platformId, customer, { status: outcome, outcome, errors }, now);
  const spend: Statement[] = [
    db
      .update(kycLinks)
      .set({ completedAt: now, outcome })
      .where(and(eq(kycLinks.id, link.id), isNull(kycLinks.completedAt), gt(kycLinks.expiresAt, now))),
    namedGuard(db, LINK_SPENT, sql`changes() > 0`),
  ];
  try {
    await db.batch([...spend, ...change.statements] as [Statement, ...Statement[]]);
  } catch (error) {
    if (!isNamedGuardFailure(errorText(error), LINK_SPENT)) throw error;
    const again = await loadTogether(db, { link: db.select().from(kycLinks).where(eq(kycLinks.id, link.id)) });
    return again.link[0] ?? link;
  }
  await dispatchEvents(queue, change.eventIds);
  return null;
}
