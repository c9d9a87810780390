// Rows read and written per request (and per queue batch or sweep), from D1's own counts.
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the D1 statements of one piece of work (a request, a queue batch, a sweep) cost: rows read and
 * written as D1 reports them in each result's `meta` (what D1 bills, and what makes a query slow as data
 * grows), and round trips (a statement or a batch). `parent` gets the same sums (an enclosing meter, e.g. a
 * test's around the request's).
 */
export interface Meter {
  rowsRead: number;
  rowsWritten: number;
  roundTrips: number;
  /** Statements whose result carried no meta: selects when `selectRows` is off (or a binding without the path `raw` needs). */
  unmetered: number;
  /**
   * Count the rows each select reads: drizzle reads selects through the binding's `raw()`, whose result drops
   * D1's meta, so the meter sends that very request through the binding's private method instead (`rawWithMeta`).
   * On in sandbox mode (its `X-D1-Rows-Read` header shows a request's cost) and in tests (the rows-read budgets);
   * off in production, which does not lean on a private method of workerd's binding (a workerd update that
   * changed it could break every read): there selects count as `unmetered` and the log line says how many.
   */
  selectRows: boolean;
  /** When present, each round trip's statement count is appended (tests). */
  statements?: number[];
  /** When present, each statement run is appended with its bound values and rows read and written (tests: EXPLAIN QUERY PLAN). */
  sql?: StatementRun[];
  parent?: Meter;
}

export interface StatementRun {
  query: string;
  params: unknown[];
  rowsRead?: number;
  rowsWritten?: number;
}

/** A meter summing into `parent` too; `selectRows` off in production (see `Meter.selectRows`). */
export function newMeter(parent?: Meter, selectRows = true): Meter {
  return { rowsRead: 0, rowsWritten: 0, roundTrips: 0, unmetered: 0, selectRows, parent };
}

const current = new AsyncLocalStorage<Meter>();

/**
 * The meter of one request, summing into the enclosing one (a test's). Selects count in sandbox mode, and in
 * production only under an enclosing meter that counts them (the rows-read budgets of production routes).
 */
export function requestMeter(mode: 'sandbox' | 'production'): Meter {
  const parent = current.getStore();
  return newMeter(parent, mode === 'sandbox' || parent?.selectRows === true);
}

/** Runs `work` with `meter` summing the D1 work it does through bindings `metering` wraps, awaited or not. */
export function withMeter<T>(meter: Meter, work: () => T): T {
  return current.run(meter, work);
}

/** The meter of the work running now, if any. */
export function currentMeter(): Meter | undefined {
  return current.getStore();
}

/** The totals as log fields (`unmetered`: statements whose rows the sums leave out, when there are any). */
export function meterFields(m: Meter): { d1: number; rowsRead: number; rowsWritten: number; unmetered?: number } {
  return { d1: m.roundTrips, rowsRead: m.rowsRead, rowsWritten: m.rowsWritten, ...(m.unmetered ? { unmetered: m.unmetered } : {}) };
}

interface Meta {
  rows_read?: number;
  rows_written?: number;
}

/** Counts a round trip of `sql`; the runs it recorded (when a meter records them) get their rows read. */
function roundTrip(sql: StatementRun[]): StatementRun[] | undefined {
  let runs: StatementRun[] | undefined;
  for (let m = current.getStore(); m; m = m.parent) {
    m.roundTrips++;
    m.statements?.push(sql.length);
    if (m.sql) m.sql.push(...(runs ??= sql.map((s) => ({ ...s }))));
  }
  return runs;
}

function add(meta: Meta | undefined, run?: StatementRun): void {
  const read = meta?.rows_read;
  if (run && typeof read === 'number') Object.assign(run, { rowsRead: read, rowsWritten: meta?.rows_written ?? 0 });
  for (let m = current.getStore(); m; m = m.parent) {
    if (typeof read === 'number') {
      m.rowsRead += read;
      m.rowsWritten += meta?.rows_written ?? 0;
    } else m.unmetered++;
  }
}

/**
 * The binding's own statement behind `raw()`: workerd's D1 binding (src/cloudflare/internal/d1-api.ts)
 * sends it as `_sendOrThrow('/query', statement, params, 'ROWS_AND_COLUMNS', span)` and drops the meta.
 */
interface BindingStatement {
  statement: string;
  params: unknown[];
  dbSession?: { _sendOrThrow?: (endpoint: string, query: string, params: unknown[], format: string, span: unknown) => Promise<unknown> };
}
interface QueryResult {
  meta?: Meta;
  results?: { columns: string[]; rows: unknown[][] } | Record<string, unknown>[];
}
const NO_SPAN = { setAttribute() {} };

/**
 * `raw()` with its meta. drizzle reads every select with fields through `raw()` (arrays: a join's
 * same-named columns stay apart), whose public result has no meta; `all()` has meta but keys rows by column
 * name, which would merge those columns. So this sends the very request `raw()` sends, through the binding's
 * own method, and keeps both; on a binding without it, or where the work's meter does not count selects (production),
 * it calls `raw()` and counts an unmetered statement.
 */
async function rawWithMeta(
  stmt: D1PreparedStatement,
  options: { columnNames?: boolean } | undefined,
  run?: StatementRun,
): Promise<unknown[][]> {
  const s = stmt as unknown as BindingStatement;
  const send = current.getStore()?.selectRows ? s.dbSession?._sendOrThrow : undefined;
  if (typeof send !== 'function' || typeof s.statement !== 'string' || !Array.isArray(s.params)) {
    add(undefined);
    return stmt.raw(options as { columnNames: true });
  }
  const answer = await send.call(s.dbSession, '/query', s.statement, s.params, 'ROWS_AND_COLUMNS', NO_SPAN);
  const result = (Array.isArray(answer) ? answer[0] : answer) as QueryResult;
  add(result.meta, run);
  const results = result.results;
  if (!results) return [];
  if (Array.isArray(results)) {
    // An upstream that answered objects (the binding's raw() reads them the same way).
    const rows = results.map((row) => Object.values(row));
    return options?.columnNames && results[0] ? [Object.keys(results[0]), ...rows] : rows;
  }
  return options?.columnNames ? [results.columns, ...results.rows] : results.rows;
}

/** A metered statement's binding statement and SQL, for a batch of them. */
const inner = new WeakMap<object, { stmt: D1PreparedStatement; sql: StatementRun }>();

function meteredStatement(stmt: D1PreparedStatement, query: string, params: unknown[] = []): D1PreparedStatement {
  const sql = [{ query, params }];
  const wrapped = {
    bind: (...values: unknown[]) => meteredStatement(stmt.bind(...values), query, values),
    async first(column?: string) {
      // first() has no meta either: all() is the same request (the binding's first() reads all()'s rows).
      const run = roundTrip(sql);
      const result = await stmt.all();
      add(result.meta as Meta, run?.[0]);
      const row = result.results[0] as Record<string, unknown> | undefined;
      if (!row) return null;
      if (column === undefined) return row;
      if (!(column in row)) throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
      return row[column];
    },
    async all() {
      const run = roundTrip(sql);
      const result = await stmt.all();
      add(result.meta as Meta, run?.[0]);
      return result;
    },
    async run() {
      const run = roundTrip(sql);
      const result = await stmt.run();
      add(result.meta as Meta, run?.[0]);
      return result;
    },
    raw(options?: { columnNames?: boolean }) {
      return rawWithMeta(stmt, options, roundTrip(sql)?.[0]);
    },
  };
  inner.set(wrapped, { stmt, sql: sql[0]! });
  return wrapped as unknown as D1PreparedStatement;
}

type Binding = Pick<D1Database, 'prepare' | 'batch'> & Partial<Pick<D1Database, 'exec' | 'withSession' | 'dump'>>;

const wrappers = new WeakMap<object, D1Database>();

/**
 * The binding (or a session of it) with every statement's rows read and written added to the current meter
 * (`withMeter`). Same requests, same results: no round trip is added. Built once per binding, so the drizzle
 * client over it is too (db/client.ts).
 */
export function metering<B extends Binding>(d1: B): B {
  let wrapped = wrappers.get(d1);
  if (!wrapped) {
    const w: Binding = {
      prepare: (query: string) => meteredStatement(d1.prepare(query), query),
      async batch<T>(statements: D1PreparedStatement[]) {
        const runs = roundTrip(statements.map((s) => inner.get(s)?.sql ?? { query: '?', params: [] }));
        const results = await d1.batch<T>(statements.map((s) => inner.get(s)?.stmt ?? s));
        results.forEach((r, i) => add(r.meta as Meta, runs?.[i]));
        return results;
      },
    };
    if (d1.exec) {
      const exec = d1.exec.bind(d1);
      // exec() reports no rows (migrations and scripts use it, not requests).
      w.exec = (query: string) => {
        roundTrip([{ query, params: [] }]);
        add(undefined);
        return exec(query);
      };
    }
    if (d1.withSession) {
      const withSession = d1.withSession.bind(d1);
      w.withSession = ((constraint?: string) => {
        const session = withSession(constraint as never);
        return Object.assign(metering(session), { getBookmark: () => session.getBookmark() });
      }) as D1Database['withSession'];
    }
    if (d1.dump) w.dump = d1.dump.bind(d1);
    wrapped = w as D1Database;
    wrappers.set(d1, wrapped);
  }
  return wrapped as unknown as B;
}
