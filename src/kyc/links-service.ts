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
import { ApiError, conflict, invalidFields, notFound } from '../http/errors';
import { errorText, isNamedGuardFailure } from '../db/errors';
import { customerDeleted, customerNotFound } from '../customers/service';
import { dispatchEvents } from '../webhooks/outbox';
import { verificationChange } from './verifications-service';
import type { HostedKycLinkView, KycLinkView } from './schema';

/** How long a link can be completed. */
export const KYC_LINK_TTL_MS = 24 * 3_600_000;
/** Where the hosted page is served, on the service's own origin (its secret follows as the URL fragment). */
export const KYC_PAGE_PATH = '/kyc';

// The hosted page is the sandbox's own; the operator's identity-provider port (identity-provider.ts) takes
// submissions and reports outcomes but hosts no page, so production has no link to give.
const notConfigured = () =>
  new ApiError(
    'SERVICE_NOT_CONFIGURED',
    "Hosted KYC links are served by the sandbox; this deployment's identity provider hosts no KYC page",
  );

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
 */
export async function createKycLink(
  db: Db,
  settings: Settings,
  platform: PlatformRow,
  input: LinkRequest,
  loaded: Loaded<ReturnType<typeof kycLinkLoads>>,
  now: number,
): Promise<{ body: KycLinkView; replayed: boolean }> {
  if (settings.mode !== 'sandbox') throw notConfigured();
  const customer = loaded.customer[0];
  if (!customer) throw customerNotFound();
  if (customer.isDeleted) throw customerDeleted();
  const problem = input.redirectUri === undefined ? undefined : redirectUriProblem(input.redirectUri, settings.mode === 'sandbox');
  if (problem) throw invalidFields('request body', [{ field: 'redirectUri', message: problem }]);
  const secret = randomToken(32);
  const answer = (expiresAt: number) => ({
    kycUrl: `${input.origin}${KYC_PAGE_PATH}#${secret}`,
    expiresAt: iso(expiresAt),
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
  const inserted = await db.insert(kycLinks).values(row).onConflictDoNothing().returning({ id: kycLinks.id });
  if (inserted.length > 0) return { body: answer(row.expiresAt), replayed: false };
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
  await db.update(kycLinks).set({ secretHash: row.secretHash }).where(eq(kycLinks.id, held.id));
  return { body: answer(held.expiresAt), replayed: true };
}

/**
 * A link by its secret, with its customer and platform, for the hosted page's calls (which carry no credentials):
 * three point reads in one round trip (a join would mix the tables' same-named columns in a batch's rows).
 */
export function hostedLinkLoads(db: Db, secret: string) {
  const bySecret = eq(kycLinks.secretHash, hashSecret(secret));
  return {
    link: db.select().from(kycLinks).where(bySecret).limit(1),
    customer: db
      .select()
      .from(customers)
      .where(eq(customers.id, db.select({ id: kycLinks.customerId }).from(kycLinks).where(bySecret)))
      .limit(1),
    platform: db
      .select({ name: platforms.name, clockOffsetMs: platforms.clockOffsetMs })
      .from(platforms)
      .where(eq(platforms.id, db.select({ id: kycLinks.platformId }).from(kycLinks).where(bySecret)))
      .limit(1),
  };
}

type HostedLoaded = Loaded<ReturnType<typeof hostedLinkLoads>>;
interface Hosted {
  link: KycLinkRow;
  customer: CustomerRow;
  platform: { name: string; clockOffsetMs: number };
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
  const now = wall + platform.clockOffsetMs;
  if (stateOf(link, now) !== 'OPEN') throw spent(link, now);
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
    throw spent(again.link[0] ?? link, now);
  }
  await dispatchEvents(queue, change.eventIds);
  return { outcome, ...(link.redirectUri ? { redirectUri: link.redirectUri } : {}) };
}
