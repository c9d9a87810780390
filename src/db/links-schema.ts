// The tables of links handed to people: UMA invitations, and the hosted KYC links of customers.
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { KycLinkOutcome, StoredInvitationStatus } from './enums';

/**
 * A UMA invitation (`POST /invitations`): made by a platform for one of its customers, claimed by any platform
 * for one of its own. The code is the lookup key (random, the primary key); no foreign keys, like the agents'
 * tables: the claiming platform's customer is named by its address only, so no platform's reset waits on another's.
 */
export const invitations = sqliteTable(
  'invitations',
  {
    code: text('code').primaryKey(),
    /** The inviting platform: it may cancel, and it is told of the claim (INVITATION.CLAIMED). */
    platformId: text('platform_id').notNull(),
    inviterCustomerId: text('inviter_customer_id').notNull(),
    inviterUma: text('inviter_uma').notNull(),
    firstName: text('first_name'),
    /** In the smallest unit of `amountCurrency`, the inviting customer's first currency. */
    amountToSend: integer('amount_to_send'),
    amountCurrency: text('amount_currency'),
    expiresAt: integer('expires_at'),
    status: text('status').$type<StoredInvitationStatus>().notNull(),
    inviteeUma: text('invitee_uma'),
    claimedByPlatformId: text('claimed_by_platform_id'),
    claimedAt: integer('claimed_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  // GET /invitations: the platform's own, newest first, a page at a time.
  (t) => [index('invitations_platform_created_idx').on(t.platformId, t.createdAt, t.code)],
);

/**
 * A hosted KYC link (`POST /customers/{customerId}/kyc-link`): single-use, expiring. Only the SHA-256 of its
 * secret is kept (the URL carries the secret), found through its unique index. An `Idempotency-Key` names at
 * most one link of a platform.
 */
export const kycLinks = sqliteTable(
  'kyc_links',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    customerId: text('customer_id').notNull(),
    secretHash: text('secret_hash').notNull(),
    redirectUri: text('redirect_uri'),
    idempotencyKey: text('idempotency_key'),
    requestFingerprint: text('request_fingerprint'),
    expiresAt: integer('expires_at').notNull(),
    completedAt: integer('completed_at'),
    outcome: text('outcome').$type<KycLinkOutcome>(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('kyc_links_secret_uq').on(t.secretHash),
    // A platform's links (a snapshot restore, a reset) without a scan; a customer's beside them.
    index('kyc_links_platform_customer_idx').on(t.platformId, t.customerId),
    uniqueIndex('kyc_links_idempotency_uq')
      .on(t.platformId, t.idempotencyKey)
      .where(sql`idempotency_key IS NOT NULL`),
  ],
);

export type InvitationRow = typeof invitations.$inferSelect;
export type KycLinkRow = typeof kycLinks.$inferSelect;
