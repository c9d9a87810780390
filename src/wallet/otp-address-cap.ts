// The cap on OTP e-mails to one address across a platform's accounts. The per-credential limits live in each
// account's Durable Object; customers may share an address, so this one is counted in D1.
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { insertSelect } from '../db/insert-select';
import { otpEmailSends } from '../db/schema';
import { newId } from '../crypto/ids';
import { ApiError } from '../http/errors';

/** OTP e-mails one address may receive in any hour (of the platform's clock), whichever customers they are for. */
export const OTP_ADDRESS_MAX_SENDS = 5;
const OTP_ADDRESS_WINDOW_MS = 3_600_000;

/**
 * The statements that take one of `to`'s slots for an e-mail sent at `now` (run them in one batch): prune the
 * address's rows past the window, insert a row only while fewer than the cap are inside it (one conditional
 * statement, so parallel requests cannot overshoot), and read the rows inside it. `refusal` turns that read
 * into the 429 (null: the slot is taken); `release` gives the slot back when no e-mail goes out after all.
 */
export function otpEmailSlot(db: Db, platformId: string, to: string, now: number) {
  const id = newId('OtpEmail', now);
  const address = to.trim().toLowerCase();
  const since = now - OTP_ADDRESS_WINDOW_MS;
  const ofAddress = and(eq(otpEmailSends.platformId, platformId), eq(otpEmailSends.address, address));
  const t = otpEmailSends;
  return {
    statements: [
      db.delete(t).where(and(ofAddress, lte(t.sentAt, since))),
      insertSelect(
        db,
        t,
        { id, platformId, address, sentAt: now },
        sql`WHERE (SELECT count(*) FROM ${t} WHERE ${and(ofAddress, gt(t.sentAt, since))}) < ${OTP_ADDRESS_MAX_SENDS}`,
      ),
      db
        .select({ id: t.id, sentAt: t.sentAt })
        .from(t)
        .where(and(ofAddress, gt(t.sentAt, since)))
        .orderBy(asc(t.sentAt)),
    ] as const,
    refusal(counted: { id: string; sentAt: number }[]): ApiError | null {
      if (counted.some((r) => r.id === id)) return null;
      // A slot frees when the oldest e-mail that keeps the address at the cap leaves the window.
      const freeing = counted[Math.max(0, counted.length - OTP_ADDRESS_MAX_SENDS)];
      const wait = Math.max(1, Math.ceil(((freeing?.sentAt ?? now) + OTP_ADDRESS_WINDOW_MS - now) / 1000));
      return new ApiError(
        'RATE_LIMITED',
        `Too many codes e-mailed to this address; retry in ${wait} s`,
        { limit: OTP_ADDRESS_MAX_SENDS, windowSeconds: OTP_ADDRESS_WINDOW_MS / 1000 },
        { 'Retry-After': String(wait) },
      );
    },
    release: () => db.delete(t).where(eq(t.id, id)),
  };
}
