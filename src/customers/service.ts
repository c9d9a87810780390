// Customers: build and insert (one by one and in bulk), view, update, with their webhook events
// (the list and search: list.ts; deletion: delete.ts).
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import {
  beneficialOwners,
  customers,
  internalAccounts,
  type BeneficialOwnerRow,
  type CustomerRow,
  type InternalAccountRow,
  type PlatformRow,
  walletAuthIndex,
  CUSTOMERS_UMA_ADDRESS_UQ,
} from '../db/schema';
import { inJson, insertJsonRows } from '../db/json-rows';
import { isUniqueViolation } from '../db/errors';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { ApiError, conflict, invalidFields, notFound, retryableConflict, type FieldIssue } from '../http/errors';
import { errorText } from '../db/errors';
import { customerAccountRows } from '../accounts/internal-service';
import { beneficialOwnerView } from './beneficial-owners';
import { newAccountIndexRows } from '../wallet/service';
import { dispatchEvents } from '../webhooks/outbox';
import { conditionalEventStatements } from '../webhooks/sql-events';
import type { WebhookType } from '../webhooks/schema';
import { UMA_LOCAL_PART, type BusinessInfo, type CustomerCreate, type CustomerUpdate, type CustomerView } from './schema';

export const customerNotFound = () => notFound('USER_NOT_FOUND', 'Customer not found');
export const customerDeleted = () => new ApiError('CUSTOMER_DELETED', 'Customer has been deleted');

/** What a customer create writes: the customer and its provisioned internal accounts. */
export interface NewCustomer {
  customer: CustomerRow;
  accounts: InternalAccountRow[];
}

type BuildResult = { ok: true; value: NewCustomer } | { ok: false; issues: FieldIssue[] };

/** Rules that need the platform: UMA domain, enabled currencies, who may set a KYC/KYB status. */
function platformIssues(
  platform: PlatformRow,
  input: { umaAddress?: string; currencies?: string[]; kycStatus?: string; kybStatus?: string },
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (input.umaAddress !== undefined) {
    const domain = input.umaAddress.slice(input.umaAddress.lastIndexOf('@') + 1);
    if (domain.toLowerCase() !== platform.umaDomain.toLowerCase()) {
      issues.push({ field: 'umaAddress', message: `Must be on the platform's UMA domain ${platform.umaDomain}` });
    }
  }
  const supported = new Set(platform.supportedCurrencies.map((c) => c.currencyCode));
  input.currencies?.forEach((code, i) => {
    if (!supported.has(code))
      issues.push({ field: `currencies.${i}`, message: `${code} is not among the platform's supported currencies` });
  });
  for (const field of ['kycStatus', 'kybStatus'] as const) {
    if (input[field] !== undefined && !platform.isRegulatedFinancialInstitution) {
      issues.push({ field, message: `Only a regulated platform may set ${field}; others use POST /verifications` });
    }
  }
  return issues;
}

function infoOf(input: CustomerCreate): Record<string, unknown> {
  const pick = (keys: string[]) =>
    Object.fromEntries(
      keys.filter((k) => (input as Record<string, unknown>)[k] !== undefined).map((k) => [k, (input as Record<string, unknown>)[k]]),
    );
  return input.customerType === 'INDIVIDUAL'
    ? pick(['fullName', 'birthDate', 'nationality', 'address'])
    : pick(['address', 'businessInfo']);
}

/**
 * Validates a parsed create request against the platform and builds the rows to insert (no I/O), so the API
 * and the bulk import create customers identically. Expected refusals come back as field issues.
 */
export function buildCustomer(platform: PlatformRow, input: CustomerCreate, now: number): BuildResult {
  const issues = platformIssues(platform, input);
  const id = newId('Customer', now);
  const platformCustomerId = input.platformCustomerId ?? id.slice('Customer:'.length);
  let umaAddress = input.umaAddress;
  if (umaAddress === undefined) {
    if (UMA_LOCAL_PART.test(platformCustomerId)) umaAddress = `$${platformCustomerId}@${platform.umaDomain}`;
    else issues.push({ field: 'umaAddress', message: 'Required when platformCustomerId cannot be a UMA address local part' });
  }
  if (issues.length > 0) return { ok: false, issues };
  const status = input.customerType === 'INDIVIDUAL' ? input.kycStatus : input.kybStatus;
  const customer: CustomerRow = {
    id,
    platformId: platform.id,
    platformCustomerId,
    customerType: input.customerType,
    email: input.email ?? null,
    umaAddress: umaAddress!,
    region: input.region ?? null,
    currencies: input.currencies ?? platform.supportedCurrencies.map((c) => c.currencyCode),
    verificationStatus: status ?? 'UNVERIFIED',
    info: infoOf(input),
    isDeleted: false,
    createdAt: now,
    updatedAt: now,
  };
  return { ok: true, value: { customer, accounts: customerAccountRows(platform, id, now) } };
}

/** The statements that insert built customers and their accounts (one batch makes them atomic). */
export function insertCustomerStatements(db: Db, built: NewCustomer[]) {
  return [
    ...insertJsonRows(
      db,
      customers,
      built.map((b) => b.customer),
    ),
    ...insertJsonRows(
      db,
      internalAccounts,
      built.flatMap((b) => b.accounts),
    ),
    ...insertJsonRows(db, walletAuthIndex, newAccountIndexRows(built.flatMap((b) => b.accounts))),
  ];
}

/** True when a write failed on one of the customers table's unique indexes (an expression index is named by its name). */
export function isCustomerUniqueViolation(error: unknown): boolean {
  const text = errorText(error);
  return isUniqueViolation(text, 'customers') || text.includes(`UNIQUE constraint failed: index '${CUSTOMERS_UMA_ADDRESS_UQ}'`);
}

/**
 * Maps a unique violation of the customers table to the 409 the reference defines. SQLite names only the first
 * index it trips, so the platformCustomerId collision (CONFLICT) is looked up first, else the UMA address one.
 */
async function customerConflict(
  db: Db,
  platformId: string,
  wanted: { platformCustomerId?: string; umaAddress?: string },
  error: unknown,
): Promise<ApiError | null> {
  if (!isCustomerUniqueViolation(error)) return null;
  if (wanted.platformCustomerId !== undefined) {
    const taken = await db.query.customers.findFirst({
      columns: { id: true },
      where: and(
        eq(customers.platformId, platformId),
        eq(customers.platformCustomerId, wanted.platformCustomerId),
        eq(customers.isDeleted, false),
      ),
    });
    if (taken) return conflict('An active customer with this platformCustomerId already exists');
  }
  return conflict('This UMA address is already taken', 'UMA_ADDRESS_EXISTS');
}

export async function createCustomer(db: Db, platform: PlatformRow, input: CustomerCreate, now: number): Promise<CustomerView> {
  const built = buildCustomer(platform, input, now);
  if (!built.ok) throw invalidFields('request body', built.issues);
  const [first, ...rest] = insertCustomerStatements(db, [built.value]);
  try {
    await db.batch([first!, ...rest]);
  } catch (error) {
    throw (await customerConflict(db, platform.id, built.value.customer, error)) ?? error;
  }
  return customerView(built.value.customer, []);
}

export function customerView(row: CustomerRow, owners: BeneficialOwnerRow[]): CustomerView {
  const common = {
    id: row.id,
    platformCustomerId: row.platformCustomerId,
    ...(row.region ? { region: row.region } : {}),
    currencies: row.currencies,
    ...(row.email ? { email: row.email } : {}),
    umaAddress: row.umaAddress,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    isDeleted: row.isDeleted,
  };
  // `info` holds the type's own fields as given (`infoOf`); db/ types it loosely, so they are named here.
  if (row.customerType === 'INDIVIDUAL') {
    return { ...common, customerType: 'INDIVIDUAL', kycStatus: row.verificationStatus, ...(row.info as IndividualFields) };
  }
  return {
    ...common,
    customerType: 'BUSINESS',
    kybStatus: row.verificationStatus,
    ...(row.info as BusinessFields),
    beneficialOwners: owners.map(beneficialOwnerView),
  };
}

type IndividualFields = Pick<Extract<CustomerView, { customerType: 'INDIVIDUAL' }>, 'fullName' | 'birthDate' | 'nationality' | 'address'>;
type BusinessFields = Pick<Extract<CustomerView, { customerType: 'BUSINESS' }>, 'address' | 'businessInfo'>;

/** A customer of this platform, deleted or not; another platform's id is 404 like an unknown one. */
export async function loadCustomer(db: Db, platformId: string, customerId: string): Promise<CustomerRow> {
  const row = await db.query.customers.findFirst({ where: and(eq(customers.id, customerId), eq(customers.platformId, platformId)) });
  if (!row) throw customerNotFound();
  return row;
}

/** A customer records can be attached to: 404 when unknown, 410 when deleted. */
export async function loadActiveCustomer(db: Db, platformId: string, customerId: string): Promise<CustomerRow> {
  const row = await loadCustomer(db, platformId, customerId);
  if (row.isDeleted) throw customerDeleted();
  return row;
}

/** The beneficial owners of business customers (of one platform), by customer, through the platform's owners index. */
export async function ownersOf(db: Db, rows: CustomerRow[]): Promise<Map<string, BeneficialOwnerRow[]>> {
  const businesses = rows.filter((r) => r.customerType === 'BUSINESS');
  const byCustomer = new Map<string, BeneficialOwnerRow[]>();
  if (businesses.length === 0) return byCustomer;
  const owners = await db
    .select()
    .from(beneficialOwners)
    .where(
      and(
        eq(beneficialOwners.platformId, businesses[0]!.platformId),
        inJson(
          beneficialOwners.customerId,
          businesses.map((r) => r.id),
        ),
      ),
    )
    .orderBy(beneficialOwners.customerId, beneficialOwners.id);
  for (const o of owners) byCustomer.set(o.customerId, [...(byCustomer.get(o.customerId) ?? []), o]);
  return byCustomer;
}

/** The webhook type announcing a customer's KYC (individuals) or KYB (businesses) status; none for UNVERIFIED. */
export function customerStatusEvent(row: CustomerRow): WebhookType | null {
  if (row.verificationStatus === 'UNVERIFIED') return null;
  return `CUSTOMER.${row.customerType === 'INDIVIDUAL' ? 'KYC' : 'KYB'}_${row.verificationStatus}`;
}

/** The customer as the API shows it, for a CUSTOMER.* webhook. */
export async function customerEventData(db: Db, row: CustomerRow): Promise<CustomerView> {
  return customerView(row, (await ownersOf(db, [row])).get(row.id) ?? []);
}

/** One round trip: the customer and its beneficial owners together. */
/** GET /customers/{id} as loads (`platformId` SQL: see `RouteSpec.load`): the customer and its owners. */
/**
 * The row of a customer found through its platform's index (platform, id): another platform's customer is then no
 * row at all, as an unknown id. By the primary key, SQLite would read the row and then drop it, so the sandbox's
 * X-D1-Rows-Read would tell the id exists elsewhere.
 */
const platformCustomer = (platformId: SQL, customerId: string) =>
  sql`${customers}.rowid = (SELECT rowid FROM ${customers} INDEXED BY customers_platform_idx WHERE platform_id = ${platformId} AND id = ${customerId})`;

export function customerLoads(db: Db, platformId: SQL, customerId: string) {
  return {
    customer: db.select().from(customers).where(platformCustomer(platformId, customerId)).limit(1),
    owners: db
      .select()
      .from(beneficialOwners)
      .where(and(eq(beneficialOwners.customerId, customerId), eq(beneficialOwners.platformId, platformId)))
      .orderBy(beneficialOwners.id),
  };
}

export function customerFrom(loaded: Loaded<ReturnType<typeof customerLoads>>): CustomerView {
  const row = loaded.customer[0];
  if (!row) throw customerNotFound();
  return customerView(row, loaded.owners);
}

function mergeInfo(row: CustomerRow, patch: CustomerUpdate): Record<string, unknown> {
  const info = { ...(row.info as Record<string, unknown>) };
  if (patch.customerType === 'INDIVIDUAL') {
    for (const key of ['fullName', 'birthDate', 'nationality', 'address'] as const) if (patch[key] !== undefined) info[key] = patch[key];
  } else {
    if (patch.address !== undefined) info.address = patch.address;
    if (patch.businessInfo !== undefined) info.businessInfo = { ...(info.businessInfo as BusinessInfo), ...patch.businessInfo };
  }
  return info;
}

/**
 * PATCH /customers/{id}: ordinary field updates, e-mail included. Every customer update goes through here,
 * so the embedded-wallet e-mail change (a signed retry) extends this one function.
 * Optimistic: the write applies only if the row is unchanged since it was read, else it re-reads and re-merges.
 */
export async function updateCustomer(
  db: Db,
  queue: Queue<unknown>,
  platform: PlatformRow,
  customerId: string,
  patch: CustomerUpdate,
  now: number,
): Promise<CustomerView> {
  for (let attempt = 0; ; attempt++) {
    const row = await checkCustomerUpdate(db, platform, customerId, patch);
    const status = patch.customerType === 'INDIVIDUAL' ? patch.kycStatus : patch.kybStatus;
    const changes: Partial<CustomerRow> = { info: mergeInfo(row, patch), updatedAt: Math.max(now, row.updatedAt) };
    if (patch.email !== undefined) changes.email = patch.email;
    if (patch.umaAddress !== undefined) changes.umaAddress = patch.umaAddress;
    if (patch.currencies !== undefined) changes.currencies = patch.currencies;
    if (status !== undefined) changes.verificationStatus = status;
    let updated: CustomerRow[];
    const update = db
      .update(customers)
      .set(changes)
      .where(
        and(eq(customers.id, row.id), eq(customers.isDeleted, false), eq(customers.updatedAt, row.updatedAt), eq(customers.info, row.info)),
      )
      .returning();
    // A KYC/KYB status change is announced (CUSTOMER.KYC_*/KYB_*) in the same batch, only if this update applied.
    const next = { ...row, ...changes } as CustomerRow;
    const type = status !== undefined && status !== row.verificationStatus ? customerStatusEvent(next) : null;
    const event = type
      ? conditionalEventStatements(db, {
          platformId: platform.id,
          type,
          data: await customerEventData(db, next),
          where: sql`EXISTS (SELECT 1 FROM ${customers} WHERE ${and(eq(customers.id, row.id), eq(customers.updatedAt, next.updatedAt), eq(customers.verificationStatus, next.verificationStatus), eq(customers.info, next.info))})`,
          now,
        })
      : null;
    try {
      updated = event ? (await db.batch([update, ...event.statements]))[0] : await update;
    } catch (error) {
      throw (await customerConflict(db, platform.id, { umaAddress: patch.umaAddress }, error)) ?? error;
    }
    if (event && updated[0]) await dispatchEvents(queue, [event.eventId]);
    if (updated[0]) return customerView(updated[0], (await ownersOf(db, updated)).get(row.id) ?? []);
    if (attempt >= 4) throw retryableConflict('The customer changed concurrently; retry the request');
  }
}

/** updateCustomer's checks without writing: a signed e-mail change runs them before it challenges. */
export async function checkCustomerUpdate(db: Db, platform: PlatformRow, customerId: string, patch: CustomerUpdate): Promise<CustomerRow> {
  const row = await loadActiveCustomer(db, platform.id, customerId);
  if (row.customerType !== patch.customerType) {
    throw invalidFields('request body', [
      { field: 'customerType', message: `Must be ${row.customerType}: a customer's type cannot change` },
    ]);
  }
  const issues = platformIssues(platform, patch);
  // A business created without businessInfo gets it here; a stored one always has a legal name.
  if (
    patch.customerType === 'BUSINESS' &&
    patch.businessInfo &&
    !patch.businessInfo.legalName &&
    !(row.info as { businessInfo?: unknown }).businessInfo
  ) {
    issues.push({ field: 'businessInfo.legalName', message: 'Required: this customer has no business info yet' });
  }
  if (issues.length > 0) throw invalidFields('request body', issues);
  return row;
}
