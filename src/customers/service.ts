// Customers: build and insert (one by one and in bulk), view and list, update, with their webhook events
// (deletion: delete.ts). Over 300 lines because it is most of the customer's lifecycle.
import { and, eq, getTableColumns, gte, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded, Statement } from '../db/client';
import {
  beneficialOwners,
  customerCurrencies,
  customers,
  internalAccounts,
  type BeneficialOwnerRow,
  type CustomerRow,
  type InternalAccountRow,
  type PlatformRow,
  walletAuthIndex,
  CUSTOMERS_UMA_ADDRESS_UQ,
  umaAddressIs,
} from '../db/schema';
import { inJson, insertJsonRows } from '../db/json-rows';
import { isUniqueViolation } from '../db/errors';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { ApiError, badRequest, conflict, invalidFields, notFound, retryableConflict, type FieldIssue } from '../http/errors';
import { decodeCursor, keysetIds, keysetLoads, pageFrom, type KeysetLoads, type KeysetQuery } from '../http/pagination';
import { errorText } from '../db/errors';
import { customerAccountRows } from '../accounts/internal-service';
import { beneficialOwnerView } from './beneficial-owners';
import { newAccountIndexRows } from '../wallet/service';
import { dispatchEvents } from '../webhooks/outbox';
import { conditionalEventStatements } from '../webhooks/sql-events';
import type { WebhookType } from '../webhooks/schema';
import {
  UMA_LOCAL_PART,
  type BusinessInfo,
  type CustomerCreate,
  type CustomerListQuery,
  type CustomerUpdate,
  type CustomerView,
} from './schema';

export const customerNotFound = () => notFound('USER_NOT_FOUND', 'Customer not found');
export const customerDeleted = () => new ApiError('CUSTOMER_DELETED', 'Customer has been deleted');

/** What a customer create writes: the customer and its provisioned internal accounts. */
export interface NewCustomer {
  customer: CustomerRow;
  accounts: InternalAccountRow[];
}

export type BuildResult = { ok: true; value: NewCustomer } | { ok: false; issues: FieldIssue[] };

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
export async function customerConflict(
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
export function customerLoads(db: Db, platformId: SQL, customerId: string) {
  return {
    customer: db
      .select()
      .from(customers)
      .where(and(eq(customers.id, customerId), eq(customers.platformId, platformId)))
      .limit(1),
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

/** What `search` looks in: the platform's id for the customer, its name (either kind) and its e-mail. */
const SEARCHED = [
  customers.platformCustomerId,
  sql`json_extract(${customers.info}, '$.fullName')`,
  sql`json_extract(${customers.info}, '$.businessInfo.legalName')`,
  customers.email,
];

/**
 * Customers one of whose searched fields contains `term`, ignoring the case of ASCII letters. `instr` compares
 * plain text, so `%` and `_` match only themselves; an absent field matches nothing. It decides among the rows
 * the full-text index found (which folds case more widely and sees the fields as one text).
 */
function matching(term: string): SQL | undefined {
  return or(...SEARCHED.map((field) => sql`instr(lower(${field}), lower(${term})) > 0`));
}

/**
 * The FTS5 trigram index of the searched fields (migrations/0015_customers_search_counts.sql keeps it by
 * triggers, 0021 gave it positions; it is not a drizzle table). Its rowids follow the order customers were stored.
 */
const customerSearch = sql.raw('customer_search');
const searchRowid = sql<number>`${customerSearch}.rowid`;

/**
 * The FTS5 query of a term: one phrase, which the trigram index (with positions) matches as a substring,
 * ignoring case; quoted so its characters are text, never query syntax. `matching` keeps the service's exact rule.
 */
function phraseOf(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** The filters of GET /customers but `currency` and `search` (which choose the table read first). */
function customerFilters(platformId: SQL, q: CustomerListQuery): SQL {
  // A literal 0: the partial unique indexes (platformCustomerId, UMA address) have it as their condition.
  const where: (SQL | undefined)[] = [eq(customers.platformId, platformId)];
  if (!q.isIncludingDeleted) where.push(sql`${customers.isDeleted} = 0`);
  if (q.platformCustomerId !== undefined) where.push(eq(customers.platformCustomerId, q.platformCustomerId));
  if (q.customerType) where.push(eq(customers.customerType, q.customerType));
  if (q.region) where.push(eq(customers.region, q.region));
  if (q.umaAddress !== undefined) where.push(umaAddressIs(q.umaAddress.startsWith('$') ? q.umaAddress : `$${q.umaAddress}`, false));
  if (q.createdAfter !== undefined) where.push(gte(customers.createdAt, q.createdAfter));
  if (q.createdBefore !== undefined) where.push(lte(customers.createdAt, q.createdBefore));
  if (q.updatedAfter !== undefined) where.push(gte(customers.updatedAt, q.updatedAfter));
  if (q.updatedBefore !== undefined) where.push(lte(customers.updatedAt, q.updatedBefore));
  return and(...where)!;
}

/**
 * The maintained count (`list_counts`, kept by triggers) of the view, when the list keeps one: the platform's
 * live customers, all of them (`isIncludingDeleted`), or the live ones of one type. Other filters have none,
 * so their pages carry no totalCount (counting them would read the tenant).
 */
function countedList(q: CustomerListQuery): string | undefined {
  const others = [
    q.platformCustomerId,
    q.region,
    q.umaAddress,
    q.currency,
    q.search,
    q.createdAfter,
    q.createdBefore,
    q.updatedAfter,
    q.updatedBefore,
  ];
  if (others.some((v) => v !== undefined)) return undefined;
  if (q.isIncludingDeleted) return q.customerType ? undefined : 'customers:all';
  return q.customerType ? `customers:${q.customerType}` : 'customers';
}

/**
 * The order of a page and the key its cursor keeps: the index a filter is read through decides. Pages come in
 * id (creation) order, also by `currency` (read from customer_currencies); with an `updated*` filter in
 * updatedAt order, else with a `created*` one in createdAt order (so the range is the index's); a search in the
 * order its index holds the customers.
 */
function pageOrder(q: CustomerListQuery) {
  if (q.search !== undefined) return { sortKey: (row: CustomerRow & { searchKey?: number }) => row.searchKey! };
  if (q.currency !== undefined) return {};
  if (q.updatedAfter !== undefined || q.updatedBefore !== undefined)
    return { sortColumn: customers.updatedAt, sortKey: (row: CustomerRow) => row.updatedAt };
  if (q.createdAfter !== undefined || q.createdBefore !== undefined)
    return { sortColumn: customers.createdAt, sortKey: (row: CustomerRow) => row.createdAt };
  return {};
}

/** The keyset query of GET /customers but `search`: each filter read through its index in the page's order. */
function customerPage(platformId: SQL, q: CustomerListQuery): KeysetQuery<CustomerRow> {
  const list = countedList(q);
  const common = { limit: q.limit, cursor: q.cursor, ...(list ? { counted: { platformId, list } } : {}) };
  const where = customerFilters(platformId, q);
  if (q.currency !== undefined) {
    return {
      ...common,
      table: customerCurrencies,
      // Read from the currency's rows in id order, each customer by its id: the unary + keeps SQLite from
      // walking the customers instead and probing their currencies (which reads the tenant, then sorts).
      join: { table: customers, on: sql`${customers.id} = +${customerCurrencies.customerId}`, fields: getTableColumns(customers) },
      idColumn: customerCurrencies.customerId,
      where: and(eq(customerCurrencies.platformId, platformId), eq(customerCurrencies.currency, q.currency), where),
    };
  }
  const { sortColumn, sortKey } = pageOrder(q) as Pick<KeysetQuery<CustomerRow>, 'sortColumn' | 'sortKey'>;
  return { ...common, ...(sortColumn ? { sortColumn, sortKey } : {}), table: customers, idColumn: customers.id, where };
}

/**
 * `search`: the customers the FTS5 trigram index finds for the term (at least 3 characters), in the order the
 * index holds them (the order they were stored), that also meet `matching` and the other filters. It reads
 * about the term's matches, never the platform's customers.
 */
function searchLoads(db: Db, platformId: SQL, q: CustomerListQuery & { search: string }) {
  let where = and(sql`${customerSearch} MATCH ${phraseOf(q.search)}`, customerFilters(platformId, q), matching(q.search));
  if (q.cursor) {
    const pos = decodeCursor(q.cursor);
    if (typeof pos.k !== 'number')
      throw badRequest('Invalid cursor', { fields: [{ field: 'cursor', message: 'Not a cursor of this list' }] });
    where = and(where, sql`${searchRowid} > ${pos.k}`);
  }
  const joined = <F extends Record<string, unknown>>(fields: F) =>
    db
      .select(fields as never)
      .from(customerSearch)
      .innerJoin(customers, eq(customers.id, sql`${customerSearch}.customer_id`))
      .where(where)
      .orderBy(searchRowid)
      .limit(q.limit + 1);
  return {
    rows: joined({ ...getTableColumns(customers), searchKey: searchRowid.as('search_key') }),
    ids: joined({ id: customers.id }),
  };
}

/** GET /customers as loads: the page (with its total when counted), and the beneficial owners of the page's customers. */
export function customerListLoads(db: Db, platformId: SQL, q: CustomerListQuery) {
  let page: { rows: Statement; total?: Statement };
  let ids: Parameters<typeof inArray>[1];
  if (q.search !== undefined) {
    const search = searchLoads(db, platformId, { ...q, search: q.search });
    page = { rows: search.rows };
    ids = search.ids as unknown as SQL;
  } else {
    const keyset = customerPage(platformId, q);
    page = keysetLoads(db, keyset);
    ids = keysetIds(db, keyset);
  }
  return {
    ...(page as KeysetLoads),
    // In (customer, id) order: the platform's owners index serves each page customer's in turn.
    owners: db
      .select()
      .from(beneficialOwners)
      .where(and(eq(beneficialOwners.platformId, platformId), inArray(beneficialOwners.customerId, ids)))
      .orderBy(beneficialOwners.customerId, beneficialOwners.id),
  };
}

export function customerListFrom(q: CustomerListQuery, loaded: Loaded<ReturnType<typeof customerListLoads>>) {
  const { sortKey } = pageOrder(q) as { sortKey?: (row: CustomerRow) => number };
  const page = pageFrom<CustomerRow>({ limit: q.limit, sortKey }, loaded as Loaded<KeysetLoads>);
  const owners = new Map<string, BeneficialOwnerRow[]>();
  for (const o of loaded.owners) owners.set(o.customerId, [...(owners.get(o.customerId) ?? []), o]);
  return { ...page, data: page.data.map((r) => customerView(r, owners.get(r.id) ?? [])) };
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
 * so the embedded-wallet e-mail change (signed retry, spec 4.4) extends this one function.
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
