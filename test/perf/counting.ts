import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/index';
import { BASE, type ApiResult, type CallOptions } from '../support/api';

/** What one request cost the Worker: D1 round trips (a statement or a batch), account object calls, queue sends. */
export interface Cost {
  d1: number;
  /** Statements per D1 round trip, in order (a single statement counts 1). */
  statements: number[];
  account: string[];
  queue: number;
  /** Every statement run, with its bound values (for EXPLAIN QUERY PLAN). */
  sql: { query: string; params: unknown[] }[];
}

/** A D1 binding that counts round trips and passes everything to the real one. */
function countingD1(real: D1Database, cost: Cost): D1Database {
  const real_ = new WeakMap<object, D1PreparedStatement>();
  const sqlOf = new WeakMap<object, { query: string; params: unknown[] }>();
  const wrap = (stmt: D1PreparedStatement, query: string, params: unknown[] = []): D1PreparedStatement => {
    const once = <T>(run: () => Promise<T>) => {
      cost.d1++;
      cost.statements.push(1);
      cost.sql.push({ query, params });
      return run();
    };
    const w = {
      bind: (...values: unknown[]) => wrap(stmt.bind(...values), query, values),
      first: (column?: string) => once(() => (column === undefined ? stmt.first() : stmt.first(column))),
      all: () => once(() => stmt.all()),
      run: () => once(() => stmt.run()),
      raw: (options?: { columnNames?: boolean }) => once(() => stmt.raw(options as { columnNames: true })),
    };
    real_.set(w, stmt);
    sqlOf.set(w, { query, params });
    return w as unknown as D1PreparedStatement;
  };
  // The binding and each of its sessions (the Worker's requests run on one) count alike.
  const counted = (target: D1Database | D1DatabaseSession) => ({
    prepare: (query: string) => wrap(target.prepare(query), query),
    batch: (statements: D1PreparedStatement[]) => {
      cost.d1++;
      cost.statements.push(statements.length);
      for (const s of statements) cost.sql.push(sqlOf.get(s) ?? { query: '?', params: [] });
      return target.batch(statements.map((s) => real_.get(s) ?? s));
    },
  });
  return {
    ...counted(real),
    exec: (query: string) => {
      cost.d1++;
      cost.statements.push(1);
      return real.exec(query);
    },
    dump: () => real.dump(),
    withSession: (start?: string) => {
      const session = real.withSession(start);
      return { ...counted(session), getBookmark: () => session.getBookmark() };
    },
  } as unknown as D1Database;
}

/** The account namespace, with every method called on a stub recorded by name. */
function countingAccounts(real: typeof env.ACCOUNT, cost: Cost): typeof env.ACCOUNT {
  return new Proxy(real, {
    get(target, prop) {
      if (prop !== 'get') {
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? (...args: unknown[]) => Reflect.apply(value, target, args) : value;
      }
      return (id: DurableObjectId) => {
        const stub = target.get(id);
        return new Proxy(stub, {
          get(s, method) {
            const value = Reflect.get(s, method);
            if (typeof method !== 'string' || typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              cost.account.push(method);
              return Reflect.apply(value, s, args);
            };
          },
        });
      };
    },
  });
}

function countingQueue(real: Queue<unknown>, cost: Cost): Queue<unknown> {
  return {
    send: (...args: Parameters<Queue<unknown>['send']>) => {
      cost.queue++;
      return real.send(...args);
    },
    sendBatch: (...args: Parameters<Queue<unknown>['sendBatch']>) => {
      cost.queue++;
      return real.sendBatch(...args);
    },
  } as Queue<unknown>;
}

/** One call through the Worker's fetch handler with counting bindings; the response and what it cost. */
export async function measured(method: string, path: string, opts: CallOptions = {}): Promise<ApiResult & { cost: Cost }> {
  const cost: Cost = { d1: 0, statements: [], account: [], queue: 0, sql: [] };
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.Authorization = opts.auth;
  let body = opts.raw;
  if (opts.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(opts.body);
  }
  const bindings = {
    ...env,
    DB: countingD1(env.DB, cost),
    ACCOUNT: countingAccounts(env.ACCOUNT, cost),
    JOBS: countingQueue(env.JOBS, cost),
  };
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers, body }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return {
    status: res.status,
    body: text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text,
    headers: res.headers,
    cost,
  };
}
