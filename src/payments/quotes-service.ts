// Quotes: reads, views, lists, expiry, and the Change that starts a quote's payment (execute or funded send).
import { and, eq, getTableColumns, gt, gte, lte, sql, type SQL } from 'drizzle-orm';
import { loadTogether, type Db, type Loaded } from '../db/client';
import { idIs, idIsOrNull } from '../db/id-key';
import {
  endAccountId,
  internalAccounts,
  quoteParties,
  quotes,
  transactionAccounts,
  transactions,
  type QuoteRow,
  type TransactionRow,
  type TransactionStatus,
} from '../db/schema';
import { ApiError, conflict, notFound } from '../http/errors';
import { keysetLoads, mapPage, pageFrom, type KeysetLoads, type Page } from '../http/pagination';
import { platformClock } from '../platform/service';
import { insufficientFunds } from './parties';
import type { QuoteListQuery, QuoteStatus, QuoteView } from './schema';
import { buildChange, changeOf, commitDraft, initiation, type PaymentDeps } from './transaction-change';
import type { Change } from '../http/change';
import { awaitingApproval, quoteStatus, quoteTransactionStatus, quoteView } from './views';

/** Quotes lock their price this long (the reference: 1 to 5 minutes on instant rails; we take the longest). */
export const QUOTE_TTL_MS = 5 * 60_000;

export const quoteNotFound = () => notFound('QUOTE_NOT_FOUND', 'Quote not found');

/** A quote of this platform with its transaction; another platform's id is 404 like an unknown one. */
export async function loadQuote(db: Db, platformId: string, quoteId: string): Promise<{ quote: QuoteRow; tx: TransactionRow }> {
  const [row] = await db
    .select({ quote: quotes, tx: transactions })
    .from(quotes)
    .innerJoin(transactions, eq(transactions.id, quotes.transactionId))
    .where(and(eq(quotes.id, quoteId), eq(quotes.platformId, platformId)))
    .limit(1);
  if (!row) throw quoteNotFound();
  return row;
}

/** GET /quotes/{id} as loads (`platformId` SQL: see `RouteSpec.load`): the quote and its transaction. */
export function quoteViewLoads(db: Db, platformId: SQL, quoteId: string) {
  const { quote, quoteTx } = quoteLoads(db, platformId, quoteId);
  return { quote, quoteTx };
}

/** `quoteViewFrom` of a platform known by id (an agent's customer's quote). */
export async function getQuote(db: Db, platformId: string, quoteId: string, now: number): Promise<QuoteView> {
  return quoteViewFrom(await loadTogether(db, quoteViewLoads(db, sql`${platformId}`, quoteId)), now);
}

/** The quote as GET /quotes/{id} shows it at `now` (its status follows its transaction and its expiry). */
export function quoteViewFrom(loaded: Loaded<ReturnType<typeof quoteViewLoads>>, now: number): QuoteView {
  const { quote, tx } = quoteFrom(loaded);
  return quoteView(quote, quoteTransactionStatus(quote, tx.status, now));
}

// Columns of the quote that GET /quotes filters on besides those generated from its ends (`quoteParties`): copied
// from its transaction by triggers (migrations: quotes_counts), each with an index (platform, column, createdAt).
const sendingUma = sql`${quotes}.sending_uma_lc`;
/** The status the quote's transaction gives it (QUOTE_STATUS_OF), before its expiry by time. */
const statusOfTransaction = sql`${quotes}.status`;

/**
 * SQL for quotes showing `status` at `now`, exactly as quoteTransactionStatus derives it: a list of disjoint
 * branches, since EXPIRED is two (read as one merged list, each by the status index).
 */
function quoteStatusIs(status: QuoteStatus, now: SQL): SQL[] {
  const pending = sql`${statusOfTransaction} = 'PENDING'`;
  // A quote expires QUOTE_TTL_MS after its creation: the same bound on `createdAt` lets the status index stop at
  // the live quotes instead of walking every stored PENDING quote whose time has passed.
  const live = and(gt(quotes.expiresAt, now), gt(quotes.createdAt, sql`${now} - ${QUOTE_TTL_MS}`));
  if (status === 'PENDING') return [and(pending, live)!];
  if (status === 'EXPIRED') return [sql`${statusOfTransaction} = 'EXPIRED'`, and(pending, lte(quotes.expiresAt, now))!];
  return [sql`${statusOfTransaction} = ${status}`];
}

type QuoteListRow = { quote: QuoteRow; status: TransactionStatus };

/**
 * GET /quotes as loads: newest first by creation (`createdAt`, then id); each filter is served by an index of
 * the quotes (platform, filter, createdAt, id), so a page reads about its rows. The total is the platform's
 * maintained count for the unfiltered list, and left out when filtered. `platformId` is SQL (see
 * `RouteSpec.load`); `wall` the wall clock, to which the status filter adds the platform's sandbox clock offset
 * in SQL, as the view adds it to the same wall clock.
 */
export function quoteListLoads(db: Db, platformId: SQL, q: QuoteListQuery, wall: number) {
  const now = platformClock(platformId, wall);
  const where: (SQL | undefined)[] = [idIs(quotes.platformId, platformId)];
  // One equality (`IS`, so NULL matches the platform's own), which the customer index serves.
  if (q.customerId)
    where.push(idIsOrNull(quoteParties.customer, sql`(CASE WHEN ${q.customerId} = ${platformId} THEN NULL ELSE ${q.customerId} END)`));
  if (q.sendingAccountId) where.push(idIs(quoteParties.sourceAccount, q.sendingAccountId));
  if (q.receivingAccountId) where.push(idIs(quoteParties.receivingAccount, q.receivingAccountId));
  if (q.sendingUmaAddress) where.push(sql`${sendingUma} = lower(${q.sendingUmaAddress})`);
  if (q.receivingUmaAddress) where.push(sql`${quoteParties.receivingUma} = lower(${q.receivingUmaAddress})`);
  if (q.createdAfter !== undefined) where.push(gte(quotes.createdAt, q.createdAfter));
  if (q.createdBefore !== undefined) where.push(lte(quotes.createdAt, q.createdBefore));
  const { limit: _limit, cursor: _cursor, ...filters } = q;
  const unfiltered = Object.values(filters).every((value) => value === undefined);
  return keysetLoads<QuoteListRow>(db, {
    table: quotes,
    join: {
      table: transactions,
      on: eq(transactions.id, quotes.transactionId),
      fields: { quote: getTableColumns(quotes), status: transactions.status },
    },
    idColumn: quotes.id,
    sortColumn: quotes.createdAt,
    order: 'desc',
    where: and(...where),
    branches: q.status && quoteStatusIs(q.status, now),
    limit: q.limit,
    cursor: q.cursor,
    counted: unfiltered ? { platformId, list: 'quotes' } : undefined,
  });
}

/** The page `quoteListLoads` read, each quote as GET /quotes/{id} shows it at `now`. */
export function quoteListFrom(q: QuoteListQuery, loaded: Loaded<KeysetLoads>, now: number): Page<QuoteView> {
  const page = pageFrom<QuoteListRow>({ limit: q.limit, rowId: (row) => row.quote.id, sortKey: (row) => row.quote.createdAt }, loaded);
  return mapPage(page, (row) => quoteView(row.quote, quoteTransactionStatus(row.quote, row.status, now)));
}

/** Whether the quote can be executed now; a refusal names why (checked before a wallet challenge too). */
export function checkExecutable(quote: QuoteRow, tx: TransactionRow, now: number, via: 'execute' | 'send'): void {
  if (via === 'execute' && quote.sourceType === 'REALTIME_FUNDING') {
    throw new ApiError(
      'QUOTE_REQUIRES_FUNDING',
      'This quote is funded by paying its paymentInstructions (sandbox: POST /sandbox/send), not executed',
    );
  }
  if (via === 'send' && quote.sourceType !== 'REALTIME_FUNDING') {
    throw new ApiError(
      'QUOTE_NOT_REALTIME_FUNDED',
      'This quote is paid from an internal account: execute it with POST /quotes/{quoteId}/execute',
    );
  }
  if (awaitingApproval(tx)) throw conflict('The quote awaits platform approval: POST /transactions/{transactionId}/approve executes it');
  if (tx.status !== 'PENDING') throw conflict(`The quote is already ${quoteStatus(tx.status)}`, 'QUOTE_NOT_PENDING');
  if (now >= quote.expiresAt) throw conflict('The quote has expired; create a new one', 'QUOTE_EXPIRED');
}

/** Marks an expired quote's transaction EXPIRED (QUOTE_EXPIRED); a concurrent change wins silently. */
export async function expireQuote(
  deps: PaymentDeps,
  tx: TransactionRow,
  now: number,
  set: Partial<TransactionRow> = {},
): Promise<TransactionRow | null> {
  const change = await buildChange(deps.db, tx, [{ status: 'EXPIRED', set: { ...set, failureReason: 'QUOTE_EXPIRED' } }], {
    now,
    mode: deps.mode,
  });
  return (await commitDraft(deps, change)) === 'applied' ? change.row : null;
}

/**
 * A quote with its transaction and the internal accounts its payment moves, as loads for one round trip
 * (authentication's: `platformId` SQL, see `RouteSpec.load`); `quoteFrom` checks they found it. Separate
 * selects, since in a D1 batch drizzle maps a join's rows by position after D1 merged same-named columns.
 */
export function quoteLoads(db: Db, platformId: SQL, quoteId: string) {
  const mine = and(eq(quotes.id, quoteId), eq(quotes.platformId, platformId));
  const txId = db.select({ id: quotes.transactionId }).from(quotes).where(mine);
  const internal = (id: SQL | ReturnType<typeof db.select>) =>
    db
      .select()
      .from(internalAccounts)
      .where(and(eq(internalAccounts.platformId, platformId), eq(internalAccounts.id, id as SQL)))
      .limit(1);
  return {
    quote: db.select().from(quotes).where(mine).limit(1),
    quoteTx: db.select().from(transactions).where(eq(transactions.id, txId)).limit(1),
    source: internal(sql`(${db.select({ id: quoteParties.sourceAccount }).from(quotes).where(mine)})`),
    destination: internal(sql`(${db.select({ id: transactionAccounts.destination }).from(transactions).where(eq(transactions.id, txId))})`),
  };
}
export type QuoteLoaded = Loaded<ReturnType<typeof quoteLoads>>;

/** The quote and its transaction `quoteLoads` read (404 when there is none). */
export function quoteFrom(loaded: Pick<QuoteLoaded, 'quote' | 'quoteTx'>): { quote: QuoteRow; tx: TransactionRow } {
  const [quote, tx] = [loaded.quote[0], loaded.quoteTx[0]];
  if (!quote || !tx) throw quoteNotFound();
  return { quote, tx };
}

/** The internal accounts a quote's payment moves, as read (their balance events then need no read). */
export const quoteAccounts = (loaded: QuoteLoaded) => [loaded.source[0], loaded.destination[0]].filter((a) => a !== undefined);

/**
 * The Change that starts a quote's payment from what `quoteLoads` read: executed from its internal account
 * (POST /quotes/{quoteId}/execute; a wallet's signed retry has already passed), or (`send`) funded by its
 * paymentInstructions: the debit and the plan's first steps, atomically, once. An expired quote is refused
 * and its transaction ends EXPIRED; concurrent executes move money once. Its answer is the transaction.
 */
export async function quotePaymentChange(
  deps: PaymentDeps,
  loaded: QuoteLoaded,
  now: number,
  via: 'execute' | 'send',
): Promise<Change<TransactionRow>> {
  const { quote, tx } = quoteFrom(loaded);
  if (tx.status === 'PENDING' && now >= quote.expiresAt && !awaitingApproval(tx)) await expireQuote(deps, tx, now);
  checkExecutable(quote, tx, now, via);
  deps.rail.ready(tx.scenario);
  const start = initiation(deps.db, tx, now, deps.mode);
  const draft = await buildChange(deps.db, tx, start.hops, {
    now,
    mode: deps.mode,
    transitions: start.transitions,
    accounts: quoteAccounts(loaded),
  });
  return changeOf(
    draft,
    { status: 200, body: draft.row },
    {
      shortfall: insufficientFunds(endAccountId(quote.source) ?? ''),
      // Another execute (or the expiry) changed the quote's transaction first.
      conflict: conflict('The quote is no longer pending: it changed concurrently', 'QUOTE_NOT_PENDING'),
    },
  );
}
