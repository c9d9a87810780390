// UMA invitations: create, read by code (any platform), claim (any platform, for one of its customers), cancel
// (the inviting platform), the platform's list; the claim tells the inviting platform (INVITATION.CLAIMED).
import { and, eq, gt, isNull, or, sql, type SQL } from 'drizzle-orm';
import { database, loadTogether, type Db, type Loaded } from '../db/client';
import { customers, invitations, platforms, umaAddressIs, type InvitationRow, type PlatformRow } from '../db/schema';
import type { InvitationStatus } from '../db/enums';
import { iso } from '../common/time';
import { currency } from '../common/currencies';
import { randomHex } from '../crypto/secrets';
import { forwardOf, homeD1, homeNamedBy, issuedIn } from '../db/homes';
import { homeEnv } from '../http/home';
import type { Env } from '../env';
import { ApiError, forbidden, invalidFields, notFound, platformMoving, retryableConflict, type FieldIssue } from '../http/errors';
import { keysetLoads, mapPage, pageFrom, type Page } from '../http/pagination';
import { isUniqueViolation, errorText } from '../db/errors';
import { conditionalEventStatements } from '../webhooks/sql-events';
import { dispatchEvents } from '../webhooks/outbox';
import type { UmaInvitationCreate, UmaInvitationView } from './schema';

/** 8 random bytes as hex: 64 bits, so codes cannot be guessed within any rate limit. */
const CODE_BYTES = 8;

const invitationNotFound = () => notFound('INVITATION_NOT_FOUND', 'Invitation not found');

/** Where the invitee opens an invitation: a page of the inviting platform, on its UMA domain. */
export const invitationUrl = (umaDomain: string, code: string) => `https://${umaDomain}/i/${code}`;

/** A stored invitation with what its view needs of its platform: the UMA domain and the sandbox clock. */
interface Found {
  invitation: InvitationRow;
  umaDomain: string;
  clockOffsetMs: number;
  /** Its platform is being moved to another home (writes to it wait). */
  heldSince: number | null;
}

/** Its status now (platform time): a pending invitation past its `expiresAt` is EXPIRED. */
export function statusOf(row: InvitationRow, now: number): InvitationStatus {
  return row.status === 'PENDING' && row.expiresAt !== null && row.expiresAt <= now ? 'EXPIRED' : row.status;
}

export function invitationView(row: InvitationRow, umaDomain: string, now: number): UmaInvitationView {
  return {
    code: row.code,
    createdAt: iso(row.createdAt),
    ...(row.claimedAt !== null ? { claimedAt: iso(row.claimedAt) } : {}),
    url: invitationUrl(umaDomain, row.code),
    ...(row.expiresAt !== null ? { expiresAt: iso(row.expiresAt) } : {}),
    inviterUma: row.inviterUma,
    ...(row.inviteeUma !== null ? { inviteeUma: row.inviteeUma } : {}),
    status: statusOf(row, now),
    ...(row.firstName !== null ? { firstName: row.firstName } : {}),
    ...(row.amountToSend !== null && row.amountCurrency !== null
      ? { amountToSend: { amount: row.amountToSend, currency: currency(row.amountCurrency) } }
      : {}),
  };
}

/**
 * An invitation by its code, with its platform's domain and clock, as a load for authentication's round trip:
 * any authenticated platform reads it (`platformId` SQL is NULL for a refused request, which then reads nothing).
 */
export function invitationLoads(db: Db, platformId: SQL, code: string) {
  return {
    invitation: db
      .select({
        invitation: invitations,
        umaDomain: platforms.umaDomain,
        clockOffsetMs: platforms.clockOffsetMs,
        heldSince: platforms.heldSince,
      })
      .from(invitations)
      .innerJoin(platforms, eq(platforms.id, invitations.platformId))
      .where(and(eq(invitations.code, code), sql`${platformId} IS NOT NULL`))
      .limit(1),
  };
}

function found(loaded: Loaded<ReturnType<typeof invitationLoads>>): Found {
  const hit = loaded.invitation[0];
  if (!hit) throw invitationNotFound();
  return hit;
}

/** GET /invitations/{code}. */
export function invitationFrom(loaded: Loaded<ReturnType<typeof invitationLoads>>, wall: number): UmaInvitationView {
  const { invitation, umaDomain, clockOffsetMs } = found(loaded);
  return invitationView(invitation, umaDomain, wall + clockOffsetMs);
}

/** A live customer of `platformId` holding `umaAddress` (any case), through the platform's unique address index. */
function customerByUma(db: Db, platformId: SQL | string, umaAddress: string) {
  return db
    .select()
    .from(customers)
    .where(and(eq(customers.platformId, platformId), umaAddressIs(umaAddress)))
    .limit(1);
}

/** POST /invitations' load: the inviting customer. */
export const inviterLoads = (db: Db, platformId: SQL, inviterUma: string) => ({ inviter: customerByUma(db, platformId, inviterUma) });

/**
 * POST /invitations: an invitation from one of the platform's customers. The code is random; should it meet an
 * existing one (a 2^-64 chance per pair), a new one is drawn.
 */
export async function createInvitation(
  db: Db,
  home: string,
  platform: PlatformRow,
  input: UmaInvitationCreate,
  loaded: Loaded<ReturnType<typeof inviterLoads>>,
  now: number,
): Promise<UmaInvitationView> {
  const inviter = loaded.inviter[0];
  const issues: FieldIssue[] = [];
  if (!inviter) issues.push({ field: 'inviterUma', message: 'No customer of this platform has this UMA address' });
  const expiresAt = input.expiresAt === undefined ? null : Date.parse(input.expiresAt);
  if (expiresAt !== null && expiresAt <= now) issues.push({ field: 'expiresAt', message: 'Must be in the future' });
  const amountCurrency = input.amountToSend === undefined ? null : (inviter?.currencies[0] ?? null);
  if (inviter && input.amountToSend !== undefined && amountCurrency === null)
    issues.push({ field: 'amountToSend', message: 'The inviting customer has no currency to send it in' });
  if (issues.length) throw invalidFields('request body', issues);
  for (let attempt = 0; ; attempt++) {
    const row: InvitationRow = {
      code: issuedIn(randomHex(CODE_BYTES), home),
      platformId: platform.id,
      inviterCustomerId: inviter!.id,
      inviterUma: inviter!.umaAddress,
      firstName: input.firstName ?? null,
      amountToSend: input.amountToSend ?? null,
      amountCurrency,
      expiresAt,
      status: 'PENDING',
      inviteeUma: null,
      claimedByPlatformId: null,
      claimedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await db.insert(invitations).values(row);
      return invitationView(row, platform.umaDomain, now);
    } catch (error) {
      if (attempt >= 2 || !isUniqueViolation(errorText(error), 'invitations')) throw error;
    }
  }
}

/** The refusal of a claim or a cancel of an invitation no longer PENDING. */
function notPending(status: InvitationStatus, expiresAt: number | null): ApiError {
  if (status === 'CLAIMED') return new ApiError('INVITATION_ALREADY_CLAIMED', 'This invitation has already been claimed');
  if (status === 'CANCELLED') return new ApiError('INVITATION_CANCELLED', 'This invitation has been cancelled');
  return new ApiError('INVITATION_EXPIRED', 'This invitation has expired', { expiresAt: iso(expiresAt!) });
}

/** Still pending at `now`: the condition of every change of status, so two racing changes cannot both apply. */
const pendingAt = (now: number) =>
  and(eq(invitations.status, 'PENDING'), or(isNull(invitations.expiresAt), gt(invitations.expiresAt, now)));

/** POST /invitations/{code}/claim's loads: the invitation, and the calling platform's customer claiming it. */
export function claimLoads(db: Db, platformId: SQL, code: string, inviteeUma: string) {
  return { ...invitationLoads(db, platformId, code), invitee: customerByUma(db, platformId, inviteeUma) };
}

/**
 * POST /invitations/{code}/claim: the calling platform claims a pending invitation for one of its customers
 * (any platform's, the inviter's own excepted). The inviting platform gets INVITATION.CLAIMED in the same
 * batch. Claimed again by the same platform for the same customer (a retry), it answers the claim unchanged.
 */
export async function claimInvitation(
  db: Db,
  queue: Queue<unknown>,
  platformId: string,
  inviteeUma: string,
  loaded: Loaded<ReturnType<typeof claimLoads>>,
  wall: number,
): Promise<UmaInvitationView> {
  const first = found(loaded);
  // The claim writes into the inviting platform's data: not while that platform is being moved.
  if (first.heldSince !== null) throw platformMoving();
  let { invitation: row, umaDomain } = first;
  const now = wall + first.clockOffsetMs;
  const invitee = loaded.invitee[0];
  for (let attempt = 0; ; attempt++) {
    const status = statusOf(row, now);
    if (status === 'CLAIMED' && row.claimedByPlatformId === platformId && row.inviteeUma?.toLowerCase() === inviteeUma.toLowerCase())
      return invitationView(row, umaDomain, now);
    if (status !== 'PENDING') throw notPending(status, row.expiresAt);
    if (!invitee)
      throw invalidFields('request body', [{ field: 'inviteeUma', message: 'No customer of this platform has this UMA address' }]);
    if (invitee.id === row.inviterCustomerId)
      throw invalidFields('request body', [{ field: 'inviteeUma', message: 'The inviting customer cannot claim its own invitation' }]);
    const claimed: InvitationRow = {
      ...row,
      status: 'CLAIMED',
      inviteeUma: invitee.umaAddress,
      claimedByPlatformId: platformId,
      claimedAt: now,
      updatedAt: now,
    };
    const update = db
      .update(invitations)
      .set({ status: 'CLAIMED', inviteeUma: claimed.inviteeUma, claimedByPlatformId: platformId, claimedAt: now, updatedAt: now })
      .where(and(eq(invitations.code, row.code), pendingAt(now)))
      .returning({ code: invitations.code });
    // The inviting platform's event, written only when this claim applied (right after the update).
    const event = conditionalEventStatements(db, {
      platformId: row.platformId,
      type: 'INVITATION.CLAIMED',
      data: invitationView(claimed, umaDomain, now),
      where: sql`changes() > 0`,
      now,
    });
    const [applied] = await db.batch([update, ...event.statements]);
    if (applied.length > 0) {
      await dispatchEvents(queue, [event.eventId]);
      return invitationView(claimed, umaDomain, now);
    }
    // Another claim or a cancel came first: answer as it left the invitation.
    if (attempt >= 1) throw changedConcurrently();
    ({ invitation: row, umaDomain } = await reread(db, row.code));
  }
}

/**
 * Where an invitation lives: its inviter's home, which its code names. A platform of another home reads and
 * claims it there (the claim writes only the invitation and the inviter's event); `loaded` is what the request's
 * own round trip read, used when the homes are the same.
 */
export async function invitationHome(
  c: { env: Env; db: Db; home: string; loaded: Loaded<ReturnType<typeof invitationLoads>> },
  code: string,
): Promise<{ db: Db; queue: Queue<unknown>; loaded: Loaded<ReturnType<typeof invitationLoads>> }> {
  const at = async (home: string) => {
    if (home === c.home) return { db: c.db, queue: c.env.JOBS, loaded: c.loaded };
    const db = database(homeD1(c.env, home));
    return { db, queue: homeEnv(c.env, home).JOBS, loaded: await loadTogether(db, invitationLoads(db, sql`1`, code)) };
  };
  const named = homeNamedBy(c.env, code);
  const first = await at(named);
  if (first.loaded.invitation.length > 0) return first;
  // Not there: its platform may have moved away, leaving a forward.
  const moved = await forwardOf(database(homeD1(c.env, named)), `invitation:${code}`);
  return moved && moved !== named ? at(moved) : first;
}

/** The invitation as a concurrent change left it. */
async function reread(db: Db, code: string): Promise<Found> {
  return found(await loadTogether(db, invitationLoads(db, sql`1`, code)));
}

const changedConcurrently = () => retryableConflict('The invitation changed concurrently; retry');

/**
 * POST /invitations/{code}/cancel: only the inviting platform, only while PENDING (the reference: 403 for another
 * platform, 400 for one already claimed, expired or cancelled).
 */
export async function cancelInvitation(
  db: Db,
  platformId: string,
  loaded: Loaded<ReturnType<typeof invitationLoads>>,
  wall: number,
): Promise<UmaInvitationView> {
  let { invitation: row, umaDomain, clockOffsetMs } = found(loaded);
  if (row.platformId !== platformId) throw forbidden('Only the platform that created the invitation can cancel it');
  for (let attempt = 0; ; attempt++) {
    const now = wall + clockOffsetMs;
    const status = statusOf(row, now);
    if (status !== 'PENDING') throw notPending(status, row.expiresAt);
    const updated = await db
      .update(invitations)
      .set({ status: 'CANCELLED', updatedAt: now })
      .where(and(eq(invitations.code, row.code), eq(invitations.platformId, platformId), pendingAt(now)))
      .returning();
    if (updated[0]) return invitationView(updated[0], umaDomain, now);
    if (attempt >= 1) throw changedConcurrently();
    ({ invitation: row, umaDomain, clockOffsetMs } = await reread(db, row.code));
  }
}

type ListQuery = { limit: number; cursor?: string };

/** GET /invitations: the platform's own invitations, newest first, through (platform, createdAt, code). */
function listQuery(platformId: SQL, q: ListQuery) {
  return {
    table: invitations,
    idColumn: invitations.code,
    rowId: (row: InvitationRow) => row.code,
    sortColumn: invitations.createdAt,
    sortKey: (row: InvitationRow) => row.createdAt,
    order: 'desc' as const,
    where: eq(invitations.platformId, platformId),
    limit: q.limit,
    cursor: q.cursor,
  };
}

export const invitationListLoads = (db: Db, platformId: SQL, q: ListQuery) => keysetLoads(db, listQuery(platformId, q));

export function invitationListFrom(
  q: ListQuery,
  loaded: Loaded<ReturnType<typeof invitationListLoads>>,
  platform: PlatformRow,
  now: number,
): Page<UmaInvitationView> {
  const page = pageFrom<InvitationRow>(listQuery(sql`NULL`, q), loaded);
  return mapPage(page, (row) => invitationView(row, platform.umaDomain, now));
}
