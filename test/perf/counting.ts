import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/index';
import { newMeter, withMeter, type Meter, type StatementRun } from '../../src/db/meter';
import { expect } from 'vitest';
import { BASE, type ApiResult, type CallOptions } from '../support/api';

/**
 * What one request cost the Worker: D1 round trips (a statement or a batch) and rows read and written, account
 * object calls, queue sends. D1 is measured by the service's own meter (src/db/meter.ts), enclosing the
 * request's: everything the request runs, before and after its response (waitUntil), is counted.
 */
export interface Cost {
  d1: number;
  rowsRead: number;
  rowsWritten: number;
  /** Statements per D1 round trip, in order (a single statement counts 1). */
  statements: number[];
  account: string[];
  queue: number;
  /** Every statement run, with its bound values (for EXPLAIN QUERY PLAN). */
  sql: StatementRun[];
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

/** One call through the Worker's fetch handler with counting bindings (`overrides` replacing some: production settings); the response and what it cost. */
export async function measured(
  method: string,
  path: string,
  opts: CallOptions = {},
  overrides: Partial<typeof env> = {},
): Promise<ApiResult & { cost: Cost }> {
  const cost: Cost = { d1: 0, rowsRead: 0, rowsWritten: 0, statements: [], account: [], queue: 0, sql: [] };
  const meter: Meter = { ...newMeter(), statements: cost.statements, sql: cost.sql };
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.Authorization = opts.auth;
  let body = opts.raw;
  if (opts.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(opts.body);
  }
  const bindings = {
    ...env,
    ...overrides,
    ACCOUNT: countingAccounts(env.ACCOUNT, cost),
    JOBS: countingQueue(env.JOBS, cost),
  };
  const ctx = createExecutionContext();
  const res = await withMeter(meter, async () => {
    const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers, body }), bindings, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  });
  Object.assign(cost, { d1: meter.roundTrips, rowsRead: meter.rowsRead, rowsWritten: meter.rowsWritten });
  expect(meter.unmetered, `${method} ${path}: statements without rows read`).toBe(0);
  const text = await res.text();
  return {
    status: res.status,
    body: text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text,
    headers: res.headers,
    cost,
  };
}
