import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { CurrencyConfig, WalletConfig } from '../platform/schema';

/** Times are integer milliseconds since the epoch (UTC); the API renders them as ISO 8601. */
const createdAt = () => integer('created_at').notNull();
const updatedAt = () => integer('updated_at').notNull();

export const platforms = sqliteTable('platforms', {
  id: text('id').primaryKey(),
  configId: text('config_id').notNull(),
  name: text('name').notNull(),
  umaDomain: text('uma_domain').notNull(),
  proxyUmaSubdomain: text('proxy_uma_subdomain'),
  webhookEndpoint: text('webhook_endpoint'),
  supportedCurrencies: text('supported_currencies', { mode: 'json' }).$type<CurrencyConfig[]>().notNull(),
  embeddedWalletConfig: text('embedded_wallet_config', { mode: 'json' }).$type<WalletConfig>(),
  isRegulatedFinancialInstitution: integer('is_regulated', { mode: 'boolean' }).notNull(),
  /** Sandbox clock: how far this platform's time runs ahead of real time (POST /sandbox/clock/advance). */
  clockOffsetMs: integer('clock_offset_ms').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    name: text('name').notNull(),
    permissions: text('permissions', { mode: 'json' }).$type<Permission[]>().notNull(),
    clientId: text('client_id').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('api_tokens_platform_idx').on(t.platformId, t.id)],
);

/** A platform's customer. Type-specific fields (personal or business info) live in `info`. */
export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    platformCustomerId: text('platform_customer_id').notNull(),
    customerType: text('customer_type').$type<'INDIVIDUAL' | 'BUSINESS'>().notNull(),
    email: text('email'),
    umaAddress: text('uma_address').notNull(),
    region: text('region'),
    /** kycStatus (INDIVIDUAL) or kybStatus (BUSINESS). */
    verificationStatus: text('verification_status').notNull(),
    info: text('info', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    isDeleted: integer('is_deleted', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('customers_platform_customer_id_uq').on(t.platformId, t.platformCustomerId),
    uniqueIndex('customers_uma_address_uq').on(t.platformId, t.umaAddress),
    index('customers_platform_idx').on(t.platformId, t.id),
  ],
);

/**
 * Money held by the service: per customer (customerId set) or the platform's own (customerId null).
 * `balance` is the materialised sum of this account's ledger entries; the CHECK makes overdraft impossible,
 * so a money batch that would overdraw fails whole.
 */
export const internalAccounts = sqliteTable(
  'internal_accounts',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    customerId: text('customer_id').references(() => customers.id),
    type: text('type').$type<'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' | 'EMBEDDED_WALLET'>().notNull(),
    status: text('status').$type<'PENDING' | 'ACTIVE' | 'CLOSED' | 'FROZEN'>().notNull(),
    currency: text('currency').notNull(),
    balance: integer('balance').notNull().default(0),
    privateEnabled: integer('private_enabled', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('internal_accounts_balance_non_negative', sql`${t.balance} >= 0`),
    index('internal_accounts_platform_idx').on(t.platformId, t.customerId, t.id),
  ],
);

/**
 * Double-entry ledger: every movement is two rows of opposite sign written in the same batch as the
 * balance change and the state change that causes it. Accounts outside the service (external accounts,
 * the sandbox funding source, counterparties) appear by id, so all entries of a platform sum to zero.
 */
export const ledgerEntries = sqliteTable(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    accountId: text('account_id').notNull(),
    /** Signed, smallest unit: positive credits the account. */
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    /** What caused it (a transaction id, a funding id); (reference, kind, account) is unique so a movement posts once. */
    reference: text('reference').notNull(),
    kind: text('kind').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ledger_entries_once_uq').on(t.reference, t.kind, t.accountId),
    index('ledger_entries_account_idx').on(t.accountId, t.id),
    index('ledger_entries_platform_idx').on(t.platformId),
  ],
);

/** Sandbox only: e-mails the service would have sent (OTP codes), readable through GET /sandbox/emails. */
export const sandboxEmails = sqliteTable(
  'sandbox_emails',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    to: text('to_address').notNull(),
    from: text('from_address').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('sandbox_emails_platform_idx').on(t.platformId, t.id)],
);

/**
 * Credential and session ids -> the embedded-wallet account (and its Durable Object) holding them, so
 * endpoints addressed by a credential or session id find the account in one query. Written by the AccountDO.
 */
export const walletAuthIndex = sqliteTable('wallet_auth_index', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  platformId: text('platform_id').notNull(),
  createdAt: createdAt(),
});

export type Permission = 'VIEW' | 'TRANSACT' | 'MANAGE';
export type PlatformRow = typeof platforms.$inferSelect;
export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type CustomerRow = typeof customers.$inferSelect;
export type InternalAccountRow = typeof internalAccounts.$inferSelect;
export type LedgerEntryRow = typeof ledgerEntries.$inferSelect;

export * from './infra-schema';
