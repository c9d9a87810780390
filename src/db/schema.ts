// The tables of platforms, customers, accounts, KYC, documents and tokens (payments, agents and infrastructure
// tables have their own files).
import { sql, type SQL } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type {
  BeneficiaryVerificationStatus,
  BulkJobStatus,
  CustomerType,
  ExternalAccountStatus,
  InternalAccountStatus,
  InternalAccountType,
  KycStatus,
  Permission,
  VerificationStatus,
} from './enums';
import type { CurrencyConfig, WalletConfig } from './json-shapes';
import type { LiveFault } from './infra-schema';

/** Times are integer milliseconds since the epoch (UTC); the API renders them as ISO 8601. */
const createdAt = () => integer('created_at').notNull();
const updatedAt = () => integer('updated_at').notNull();

/**
 * The index that keeps `umaDomain` unique across platforms, case-insensitively as domain names compare (two
 * platforms must not hand out the same UMA addresses); its violation is a taken domain (409).
 */
export const PLATFORMS_UMA_DOMAIN_UQ = 'platforms_uma_domain_uq';

/**
 * A move's copy: the index of the table it is at (in platform/move.ts's order; past the last, the copy is whole)
 * and the key of the last row it copied there. With `clearing`, the platform's rows in this home are being
 * deleted (a copy to make again, or the old home's), and `table` counts the tables emptied, children first;
 * `by` names the request clearing a copy to make again.
 */
export interface MoveProgress {
  table: number;
  after: unknown[] | null;
  clearing?: boolean;
  by?: string;
}

export const platforms = sqliteTable(
  'platforms',
  {
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
    /**
     * Sandbox: the platform's live fault rules (remaining > 0), NULL when none, kept by every batch that changes
     * them, so authentication brings them to the request runner without a read of their own.
     */
    sandboxFaults: text('sandbox_faults', { mode: 'json' }).$type<LiveFault[]>(),
    /** While the operator moves the platform to another home: its writes are refused (409, Retry-After) since then. */
    heldSince: integer('held_since'),
    /**
     * In the home a move copies the platform to: how far the copy got (platform/move.ts), written in the batch of
     * each page it copies, so a move that stopped goes on from there. NULL elsewhere.
     */
    moveProgress: text('move_progress', { mode: 'json' }).$type<MoveProgress>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex(PLATFORMS_UMA_DOMAIN_UQ).on(sql`lower(${t.umaDomain})`)],
);

/**
 * The directory: which data database (home) each platform lives in, kept in the first home only (db/homes.ts).
 * It also keeps UMA domains unique across homes, as each home's own index does within it.
 */
export const PLATFORM_HOMES_UMA_DOMAIN_UQ = 'platform_homes_uma_domain_uq';

export const platformHomes = sqliteTable(
  'platform_homes',
  {
    platformId: text('platform_id').primaryKey(),
    /** The home's binding name (`DB`, `DB_2`, …). */
    home: text('home').notNull(),
    umaDomain: text('uma_domain').notNull(),
    /** A move under way (platform/move.ts): the home its rows are being copied to, until the directory switches. */
    movingTo: text('moving_to'),
    /** A move that switched: the home its old copy is deleted from, until the move ends. */
    movedFrom: text('moved_from'),
  },
  (t) => [uniqueIndex(PLATFORM_HOMES_UMA_DOMAIN_UQ).on(sql`lower(${t.umaDomain})`), index('platform_homes_home_idx').on(t.home)],
);

/**
 * A home's forwards, left by a platform moved away (platform/move.ts): a credential or secret issued here that
 * names this home, and the home it lives in now. Read only when it is not found here.
 */
export const homeForwards = sqliteTable(
  'home_forwards',
  {
    /** `token:<clientId>`, `agent:<token hash>`, `device:<code hash>`, `kyc:<secret hash>`, `invitation:<code>`. */
    key: text('key').primaryKey(),
    home: text('home').notNull(),
    platformId: text('platform_id').notNull(),
  },
  (t) => [index('home_forwards_platform_idx').on(t.platformId)],
);

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
  (t) => [
    index('api_tokens_platform_idx').on(t.platformId, t.id),
    // GET /tokens filters: each an index search (a date range orders its page by that date, see `tokenList`).
    index('api_tokens_platform_name_idx').on(t.platformId, t.name, t.id),
    index('api_tokens_platform_created_idx').on(t.platformId, t.createdAt, t.id),
    index('api_tokens_platform_updated_idx').on(t.platformId, t.updatedAt, t.id),
  ],
);

/**
 * The index that keeps the UMA addresses of a platform's active customers unique, case-insensitively as UMA
 * addresses compare (`$Alice@d` and `$alice@d` name one receiver); its violation is UMA_ADDRESS_EXISTS (409).
 * Lookups by address use `umaAddressIs`, its own key, so it serves them.
 */
export const CUSTOMERS_UMA_ADDRESS_UQ = 'customers_uma_address_uq';

/** A platform's customer. Type-specific fields (personal or business info) live in `info`. */
export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    platformCustomerId: text('platform_customer_id').notNull(),
    customerType: text('customer_type').$type<CustomerType>().notNull(),
    email: text('email'),
    umaAddress: text('uma_address').notNull(),
    region: text('region'),
    /** Currency codes enabled for this customer. */
    currencies: text('currencies', { mode: 'json' }).$type<string[]>().notNull().default([]),
    /** kycStatus (INDIVIDUAL) or kybStatus (BUSINESS). */
    verificationStatus: text('verification_status').$type<VerificationState>().notNull(),
    info: text('info', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    isDeleted: integer('is_deleted', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Unique among active customers only: a deleted customer's ids may be reused.
    uniqueIndex('customers_platform_customer_id_uq')
      .on(t.platformId, t.platformCustomerId)
      .where(sql`is_deleted = 0`),
    uniqueIndex(CUSTOMERS_UMA_ADDRESS_UQ)
      .on(t.platformId, sql`lower(${t.umaAddress})`)
      .where(sql`is_deleted = 0`),
    // GET /customers: an index per filter, platform first, then the filter, then the page's order, so a page
    // reads about its rows (deleted customers are skipped on the row). Counts come from `list_counts`, and
    // the search from the FTS5 table `customer_search`: both kept by triggers in migrations/0015_customers_search_counts.sql
    // (outside this schema, so drizzle-kit neither creates nor drops them).
    index('customers_platform_idx').on(t.platformId, t.id),
    index('customers_platform_live_idx').on(t.platformId, t.isDeleted, t.id),
    index('customers_platform_customer_id_idx').on(t.platformId, t.platformCustomerId, t.id),
    index('customers_type_idx').on(t.platformId, t.customerType, t.id),
    index('customers_region_idx').on(t.platformId, t.region, t.id),
    index('customers_uma_address_idx').on(t.platformId, sql`lower(${t.umaAddress})`, t.id),
    index('customers_created_idx').on(t.platformId, t.createdAt, t.id),
    index('customers_updated_idx').on(t.platformId, t.updatedAt, t.id),
  ],
);

/**
 * The currencies each customer enables (`customers.currencies`), one row each, for `GET /customers?currency=`:
 * kept by triggers on `customers` (migrations/0015_customers_search_counts.sql), never written by the service.
 */
export const customerCurrencies = sqliteTable(
  'customer_currencies',
  {
    platformId: text('platform_id').notNull(),
    currency: text('currency').notNull(),
    customerId: text('customer_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.currency, t.customerId] })],
);

/**
 * Customers whose UMA address is `address` in any case, compared as `CUSTOMERS_UMA_ADDRESS_UQ` keys them;
 * `active` adds the index's own condition, written as a literal (a bound 0 would not let SQLite use the
 * partial index). With the platform's id, an active lookup is one index probe.
 */
export function umaAddressIs(address: string, active = true): SQL {
  const same = sql`lower(${customers.umaAddress}) = lower(${address})`;
  return active ? sql`${same} AND ${customers.isDeleted} = 0` : same;
}

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
    type: text('type').$type<InternalAccountType>().notNull(),
    status: text('status').$type<InternalAccountStatus>().notNull(),
    currency: text('currency').notNull(),
    balance: integer('balance').notNull().default(0),
    privateEnabled: integer('private_enabled', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('internal_accounts_balance_non_negative', sql`${t.balance} >= 0`),
    index('internal_accounts_platform_idx').on(t.platformId, t.customerId, t.id),
    index('internal_accounts_customer_idx').on(t.customerId),
    // GET /customers/internal-accounts unfiltered and by currency or type, in id order: the customers' accounts only.
    index('internal_accounts_platform_id_idx')
      .on(t.platformId, t.id)
      .where(sql`customer_id IS NOT NULL`),
    index('internal_accounts_platform_currency_idx')
      .on(t.platformId, t.currency, t.id)
      .where(sql`customer_id IS NOT NULL`),
    index('internal_accounts_platform_type_idx')
      .on(t.platformId, t.type, t.id)
      .where(sql`customer_id IS NOT NULL`),
  ],
);

/**
 * Double-entry ledger: one row per movement, from the debited account to the credited one, written in the same
 * batch as the balance change and the state change that causes it. Accounts outside the service (external
 * accounts, the sandbox funding source, counterparties) appear by id, so a platform's movements net to zero on
 * every account's balance. The key (platform, reference, kind) makes a movement post once; WITHOUT ROWID
 * (migration 0032), so a movement is one b-tree entry, platform first for the sandbox reset and snapshots.
 */
export const ledgerMovements = sqliteTable(
  'ledger_movements',
  {
    platformId: text('platform_id').notNull(),
    /** What caused it (a transaction id, a funding id). */
    reference: text('reference').notNull(),
    kind: text('kind').notNull(),
    fromAccountId: text('from_account_id').notNull(),
    toAccountId: text('to_account_id').notNull(),
    /** Smallest unit, positive: what leaves `fromAccountId` and reaches `toAccountId`. */
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.platformId, t.reference, t.kind] }),
    check('ledger_movements_amount_positive', sql`${t.amount} > 0`),
    check('ledger_movements_two_accounts', sql`${t.fromAccountId} <> ${t.toAccountId}`),
  ],
);

/**
 * The ledger of releases before migration 0032: two rows of opposite sign per movement. Nothing writes it any
 * more; the cron sweep turns its pairs into movements and deletes them (ledger/backfill.ts), and a new posting
 * of a movement still here is refused as a second posting. A later release drops it once it is empty.
 */
export const ledgerEntries = sqliteTable(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    accountId: text('account_id').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    reference: text('reference').notNull(),
    kind: text('kind').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ledger_entries_once_uq').on(t.reference, t.kind, t.accountId),
    // The sandbox reset and snapshots take a platform's rows until the sweep has converted them.
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
  (t) => [
    index('sandbox_emails_platform_idx').on(t.platformId, t.id),
    index('sandbox_emails_platform_to_idx').on(t.platformId, t.to, t.id),
  ],
);

/**
 * OTP e-mails sent to one address (lower-cased) within the platform, whichever customer's: the per-recipient
 * cap counts the rows of the last hour; older rows of an address are pruned on its next send.
 */
export const otpEmailSends = sqliteTable(
  'otp_email_sends',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    address: text('address').notNull(),
    sentAt: integer('sent_at').notNull(),
  },
  (t) => [index('otp_email_sends_address_idx').on(t.platformId, t.address, t.sentAt)],
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

/** A customer's or beneficial owner's KYC/KYB state. */
/** The KYC (individuals) or KYB (businesses) state of a customer or beneficial owner. */
export type VerificationState = KycStatus;

export type { BeneficiaryVerificationStatus };

/** A bank account or wallet outside the service, of a customer (customerId set) or of the platform. */
export const externalAccounts = sqliteTable(
  'external_accounts',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    customerId: text('customer_id').references(() => customers.id),
    /** customerId, or the platform id for the platform's own accounts: the uniqueness scope. */
    holderId: text('holder_id').notNull(),
    status: text('status').$type<ExternalAccountStatus>().notNull(),
    currency: text('currency').notNull(),
    accountType: text('account_type').notNull(),
    /** The account number, IBAN, CLABE, wallet address... that selects sandbox outcomes by its last 3 digits. */
    identifier: text('identifier').notNull(),
    accountInfo: text('account_info', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    platformAccountId: text('platform_account_id'),
    defaultUmaDepositAccount: integer('default_uma_deposit_account', { mode: 'boolean' }).notNull().default(false),
    beneficiaryVerificationStatus: text('beneficiary_verification_status').$type<BeneficiaryVerificationStatus>(),
    beneficiaryVerifiedData: text('beneficiary_verified_data', { mode: 'json' }).$type<{ fullName?: string }>(),
    /** Soft delete: transfers keep pointing at the account. */
    deletedAt: integer('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('external_accounts_platform_idx').on(t.platformId, t.customerId, t.id),
    // The foreign key's child index: deleting a customer (sandbox reset) looks its accounts up by customer_id alone.
    index('external_accounts_customer_fk_idx').on(t.customerId),
    // The lists read live accounts only: the customers' (unfiltered, by currency) and the platform's by currency.
    index('external_accounts_platform_live_idx')
      .on(t.platformId, t.id)
      .where(sql`deleted_at IS NULL`),
    index('external_accounts_platform_currency_idx')
      .on(t.platformId, t.currency, t.id)
      .where(sql`deleted_at IS NULL`),
    index('external_accounts_platform_customer_currency_idx')
      .on(t.platformId, t.customerId, t.currency, t.id)
      .where(sql`deleted_at IS NULL`),
    // The same destination once per holder.
    uniqueIndex('external_accounts_identifier_uq')
      .on(t.holderId, t.accountType, t.identifier, t.currency)
      .where(sql`deleted_at IS NULL`),
  ],
);

/** A person who owns, directs or controls a business customer; KYC'd on their own. */
export const beneficialOwners = sqliteTable(
  'beneficial_owners',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    roles: text('roles', { mode: 'json' }).$type<string[]>().notNull(),
    ownershipPercentage: integer('ownership_percentage').notNull(),
    personalInfo: text('personal_info', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    kycStatus: text('kyc_status').$type<VerificationState>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('beneficial_owners_customer_idx').on(t.platformId, t.customerId, t.id),
    // The foreign key's child index: deleting a customer (sandbox reset) looks its owners up by customer_id alone.
    index('beneficial_owners_customer_fk_idx').on(t.customerId),
  ],
);

export type { VerificationStatus };

/** One KYC/KYB submission of a customer and its outcome. */
export const verifications = sqliteTable(
  'verifications',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    verificationStatus: text('verification_status').$type<VerificationStatus>().notNull(),
    errors: text('errors', { mode: 'json' }).$type<Record<string, unknown>[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('verifications_platform_idx').on(t.platformId, t.customerId, t.id),
    // The foreign key's child index: deleting a customer (sandbox reset) looks its verifications up by customer_id alone.
    index('verifications_customer_fk_idx').on(t.customerId),
    index('verifications_platform_id_idx').on(t.platformId, t.id),
    index('verifications_platform_status_idx').on(t.platformId, t.verificationStatus, t.id),
  ],
);

/** Metadata of an uploaded verification document; the bytes live in R2 under `objectKey`. */
export const documents = sqliteTable(
  'documents',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    /** A Customer or BeneficialOwner id of the same platform. */
    documentHolder: text('document_holder').notNull(),
    documentType: text('document_type').notNull(),
    side: text('side'),
    country: text('country').notNull(),
    documentNumber: text('document_number'),
    issuingAuthority: text('issuing_authority'),
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    objectKey: text('object_key').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('documents_platform_idx').on(t.platformId, t.id), index('documents_holder_idx').on(t.platformId, t.documentHolder, t.id)],
);

export type { BulkJobStatus };

/** A bulk CSV customer import; rows are processed in chunks through the JOBS queue. */
export const bulkImportJobs = sqliteTable(
  'bulk_import_jobs',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    status: text('status').$type<BulkJobStatus>().notNull(),
    total: integer('total').notNull(),
    processed: integer('processed').notNull().default(0),
    successful: integer('successful').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Column names of the header row. */
    columns: text('columns', { mode: 'json' }).$type<string[]>().notNull(),
    /** Why the file itself cannot be imported; the first queue message turns the job FAILED. */
    fileError: text('file_error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** When the job took one of its platform's processing slots (PENDING -> PROCESSING). */
    startedAt: integer('started_at'),
    completedAt: integer('completed_at'),
  },
  // The platform's processing and waiting jobs: the slot claim and the next job to start.
  (t) => [index('bulk_import_jobs_platform_status_idx').on(t.platformId, t.status, t.id)],
);

/** The parsed rows of one chunk of a job, stored at upload so each queue message reads only its chunk. */
export const bulkImportChunks = sqliteTable(
  'bulk_import_chunks',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => bulkImportJobs.id),
    /** Index of the chunk's first data row (0-based). */
    rowOffset: integer('row_offset').notNull(),
    rows: text('rows', { mode: 'json' }).$type<string[][]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.rowOffset] })],
);

/** Written in the same batch as a chunk's customers: a redelivered message finds its chunk done and changes nothing. */
export const bulkImportChunksDone = sqliteTable(
  'bulk_import_chunks_done',
  {
    jobId: text('job_id').notNull(),
    rowOffset: integer('row_offset').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.rowOffset] })],
);

/** One failed row of a job (row 0: the file itself). */
export const bulkImportErrors = sqliteTable(
  'bulk_import_errors',
  {
    jobId: text('job_id').notNull(),
    rowNumber: integer('row_number').notNull(),
    code: text('code').notNull(),
    message: text('message').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>(),
    correlationId: text('correlation_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.rowNumber] })],
);

/** The UMA provider directory: service-wide, seeded by migration, loaded by operators. */
export const umaProviders = sqliteTable(
  'uma_providers',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    domain: text('domain').notNull().unique(),
    logoUrl: text('logo_url'),
    supportedRegions: text('supported_regions', { mode: 'json' }).$type<string[]>().notNull(),
    supportedCurrencies: text('supported_currencies', { mode: 'json' })
      .$type<{ code: string; name: string; symbol: string; decimals: number }[]>()
      .notNull(),
    lei: text('lei'),
    allowListStatus: integer('allow_list_status', { mode: 'boolean' }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('uma_providers_name_idx').on(t.name, t.id)],
);

export type { Permission };
export type PlatformRow = typeof platforms.$inferSelect;
export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type CustomerRow = typeof customers.$inferSelect;
export type InternalAccountRow = typeof internalAccounts.$inferSelect;

export * from './infra-schema';
export type ExternalAccountRow = typeof externalAccounts.$inferSelect;
export type BeneficialOwnerRow = typeof beneficialOwners.$inferSelect;
export type VerificationRow = typeof verifications.$inferSelect;
export type DocumentRow = typeof documents.$inferSelect;
export type BulkImportJobRow = typeof bulkImportJobs.$inferSelect;
export type UmaProviderRow = typeof umaProviders.$inferSelect;
export * from './agents-schema';
export * from './payments-schema';
export * from './links-schema';
