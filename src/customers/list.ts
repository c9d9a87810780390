// GET /customers: the filters, the full-text search and the page order, read as the route's loads.
import { and, eq, getTableColumns, gte, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded, Statement } from '../db/client';
import { beneficialOwners, customerCurrencies, customers, umaAddressIs, type BeneficialOwnerRow, type CustomerRow } from '../db/schema';
import { badRequest } from '../http/errors';
import { decodeCursor, keysetIds, keysetLoads, pageFrom, type KeysetLoads, type KeysetQuery } from '../http/pagination';
import { customerView } from './service';
import type { CustomerListQuery } from './schema';

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
 * the search index found (which sees the fields as one text).
 */
function matching(term: string): SQL | undefined {
  return or(...SEARCHED.map((field) => sql`instr(lower(${field}), lower(${term})) > 0`));
}

/**
 * The search index (migrations/0028_customer_search_by_platform.sql keeps it by triggers; not drizzle tables):
 * tokens tagged with the platform, so a search reads its own platform's entries only. `customer_search` holds
 * each trigram of the searched text in order (a term of 3 characters or more is one phrase of its trigrams: the
 * texts containing it), `customer_search_grams` each character and pair (a term of 1 or 2 is one token). Both
 * number a customer `(range << 32) + place`, its platform's range and its place in it, joined to the customer
 * through `customer_search_rows`.
 */
const searchRows = sql.raw('customer_search_rows');
const searchRange = (of: SQL, platformId: SQL) => sql`(SELECT ${of} FROM customer_search_ranges WHERE platform_id = ${platformId})`;

/** Stands for the platform's tag in a query (`replace`d in SQL, where the platform is known). */
const TAG = '\u0001';

/** The hex of a piece's UTF-8, as SQLite's hex() writes it (the tokenizer folds its case). */
function hexOf(piece: string): string {
  return Array.from(new TextEncoder().encode(piece), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The index and FTS5 query of a term: ASCII letters in lower case as the index holds them, every other character as
 * sent; one token (1 or 2 characters) or the phrase of its trigrams, each `TAG` + hex, so nothing in the term is
 * query syntax. `matching` keeps the service's exact rule. Exported for the migration tests.
 */
export function searchIndexQuery(term: string): { table: 'customer_search' | 'customer_search_grams'; match: string } {
  const chars = [...term.replace(/[A-Z]/g, (c) => c.toLowerCase())];
  if (chars.length < 3) return { table: 'customer_search_grams', match: `"${TAG}${hexOf(chars.join(''))}"` };
  const trigrams = chars.slice(2).map((_, i) => TAG + hexOf(chars.slice(i, i + 3).join('')));
  return { table: 'customer_search', match: `"${trigrams.join(' ')}"` };
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

/**
 * A filter on a field unique among live customers (`platformCustomerId`, `umaAddress`) selects at most one: its
 * total is counted through that unique index (one row at most), whatever the other filters.
 */
const uniqueFilter = (q: CustomerListQuery) => !q.isIncludingDeleted && (q.platformCustomerId !== undefined || q.umaAddress !== undefined);

/** The keyset query of GET /customers but `search`: each filter read through its index in the page's order. */
function customerPage(platformId: SQL, q: CustomerListQuery): KeysetQuery<CustomerRow> {
  const list = countedList(q);
  const total = list ? { counted: { platformId, list } } : uniqueFilter(q) ? { withTotal: true } : {};
  const common = { limit: q.limit, cursor: q.cursor, ...total };
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
 * `search`: the customers the platform's search index finds for the term, in the order the index holds them (the
 * order they were stored), that also meet `matching` and the other filters. It reads about the term's matches on
 * this platform, never the platform's customers and never another platform's entries. The cursor keeps the
 * customer's place in its platform's range.
 */
function searchLoads(db: Db, platformId: SQL, q: CustomerListQuery & { search: string }) {
  const { table, match } = searchIndexQuery(q.search);
  const index = sql.raw(table);
  const rowid = sql<number>`${index}.rowid`;
  const tag = sql`coalesce(${searchRange(sql`'p' || n || 'z'`, platformId)}, 'p0z')`;
  let where = and(sql`${index} MATCH replace(${match}, char(1), ${tag})`, customerFilters(platformId, q), matching(q.search));
  if (q.cursor) {
    const pos = decodeCursor(q.cursor);
    if (typeof pos.k !== 'number' || !Number.isSafeInteger(pos.k) || pos.k < 0)
      throw badRequest('Invalid cursor', { fields: [{ field: 'cursor', message: 'Not a cursor of this list' }] });
    where = and(where, sql`${rowid} > ${searchRange(sql`(n << 32) + ${pos.k}`, platformId)}`);
  }
  const joined = <F extends Record<string, unknown>>(fields: F) =>
    db
      .select(fields as never)
      .from(index)
      .innerJoin(searchRows, sql`${searchRows}.n = ${rowid}`)
      .innerJoin(customers, eq(customers.id, sql`${searchRows}.customer_id`))
      .where(where)
      .orderBy(rowid)
      .limit(q.limit + 1);
  return {
    rows: joined({ ...getTableColumns(customers), searchKey: sql<number>`${rowid} & 4294967295`.as('search_key') }),
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
