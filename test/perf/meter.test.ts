import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { database } from '../../src/db/client';
import { newMeter, withMeter } from '../../src/db/meter';
import { customers, internalAccounts } from '../../src/db/schema';
import { api, BASE, newPlatform, productionApi } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { customerWithAccounts } from '../support/payments';
import { newAgent } from '../support/agents';

/**
 * The service's D1 meter (src/db/meter.ts): rows read and written per request from D1's own `meta`, in the
 * request log line and, in sandbox mode only, in response headers; without a round trip of its own.
 */

afterEach(() => vi.restoreAllMocks());

/** The binding's one method every statement, batch and raw() read goes through: one call is one request to D1. */
function d1Requests() {
  // The class that defines the method: the binding's own session and the D1 sessions requests open (Sessions API) share it.
  let owner = Object.getPrototypeOf((env.DB.prepare('SELECT 1') as unknown as { dbSession: object }).dbSession) as object;
  while (!Object.prototype.hasOwnProperty.call(owner, '_sendOrThrow')) owner = Object.getPrototypeOf(owner) as object;
  return vi.spyOn(owner as { _sendOrThrow: (...args: unknown[]) => Promise<unknown> }, '_sendOrThrow');
}

describe('the D1 meter', () => {
  it('reads a join whose tables share column names exactly, and meters it (drizzle reads it through raw())', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const db = database(env.DB);
    const meter = newMeter();
    // async: a drizzle query runs when awaited, so inside the metered work.
    const rows = await withMeter(
      meter,
      async () =>
        await db
          .select()
          .from(customers)
          .innerJoin(internalAccounts, eq(internalAccounts.customerId, customers.id))
          .where(eq(customers.id, customer.id))
          .orderBy(internalAccounts.id),
    );
    // Both tables have id, platform_id, created_at...: each side keeps its own.
    expect(rows.length).toBe(Object.keys(accounts).length);
    for (const row of rows) {
      expect(row.customers.id).toBe(customer.id);
      expect(row.internal_accounts.id).toMatch(/^InternalAccount:/);
      expect(row.internal_accounts.customerId).toBe(customer.id);
      expect(row.customers.platformCustomerId).toBe(customer.platformCustomerId);
    }
    expect(new Set(rows.map((r) => r.internal_accounts.id))).toEqual(new Set(Object.values(accounts)));
    expect(meter).toMatchObject({ roundTrips: 1, unmetered: 0 });
    // The customer by its key, then its accounts by index: at least a row each, never the table.
    expect(meter.rowsRead).toBeGreaterThanOrEqual(rows.length);
    expect(meter.rowsRead).toBeLessThan(3 * rows.length + 5);
  });

  it('meters raw() with column names, first(), all(), run() and batch() of the binding as D1 reports them', async () => {
    const p = await newPlatform();
    const d1 = database(env.DB).$client;
    const meter = newMeter();
    const [header, ...rows] = await withMeter(meter, () =>
      d1
        .prepare('SELECT c.id, a.id, 1 AS "1" FROM platforms c JOIN platforms a ON a.id = c.id WHERE c.id = ?')
        .bind(p.id)
        .raw({ columnNames: true }),
    );
    // Duplicate names and a numeric column name keep their order, as the binding's raw() gives them.
    expect(header).toEqual(['id', 'id', '1']);
    expect(rows).toEqual([[p.id, p.id, 1]]);
    const read = meter.rowsRead;
    expect(read).toBeGreaterThan(0);
    expect(await withMeter(meter, () => d1.prepare('SELECT id FROM platforms WHERE id = ?').bind(p.id).first('id'))).toBe(p.id);
    expect(await withMeter(meter, () => d1.prepare('SELECT id FROM platforms WHERE id = ?').bind('none').first())).toBeNull();
    const written = await withMeter(meter, () =>
      d1.prepare('UPDATE platforms SET updated_at = updated_at + 1 WHERE id = ?').bind(p.id).run(),
    );
    expect(written.meta.rows_written).toBeGreaterThan(0);
    const batch = await withMeter(meter, () =>
      d1.batch([d1.prepare('SELECT id FROM platforms WHERE id = ?').bind(p.id), d1.prepare('SELECT 1 AS one')]),
    );
    expect(batch[0]!.results).toEqual([{ id: p.id }]);
    expect(meter).toMatchObject({ roundTrips: 5, unmetered: 0 });
    expect(meter.rowsWritten).toBe(written.meta.rows_written);
    expect(meter.rowsRead).toBeGreaterThan(read + 2);
  });

  it('counts nothing outside metered work, and adds to an enclosing meter', async () => {
    const p = await newPlatform();
    const db = database(env.DB);
    const outer = newMeter();
    const inner = newMeter(outer);
    await withMeter(inner, async () => await db.select().from(customers).where(eq(customers.platformId, p.id)));
    await db.select().from(customers).where(eq(customers.platformId, p.id));
    expect(outer).toMatchObject({ roundTrips: 1, rowsRead: inner.rowsRead, rowsWritten: 0 });
    expect(inner.roundTrips).toBe(1);
  });

  it('adds no request to D1: every round trip it counts is exactly one request the binding sends', async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p, individualBody());
    const sends = d1Requests();
    for (const [method, path, body] of [
      ['GET', '/customers?limit=5'],
      ['GET', `/customers/${customer.id}`],
      ['PATCH', `/customers/${customer.id}`, { customerType: 'INDIVIDUAL', fullName: 'Metered Person' }],
      ['GET', '/transactions?limit=5'],
    ] as const) {
      sends.mockClear();
      const meter = newMeter();
      const ctx = createExecutionContext();
      const res = await withMeter(meter, async () => {
        const res = await worker.fetch(
          new Request(`${BASE}${path}`, {
            method,
            headers: { Authorization: p.auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
            body: body ? JSON.stringify(body) : undefined,
          }),
          env,
          ctx,
        );
        await waitOnExecutionContext(ctx);
        return res;
      });
      expect(res.status, path).toBe(200);
      expect(meter.roundTrips, `${method} ${path}`).toBeGreaterThan(0);
      expect(sends.mock.calls.length, `${method} ${path}`).toBe(meter.roundTrips);
      expect(meter.unmetered).toBe(0);
    }
  });
});

describe('rows read per request, as the service shows them', () => {
  it('sandbox responses carry the rows read and written; a write writes rows, a read writes none', async () => {
    const p = await newPlatform();
    const created = await api('POST', '/customers', { auth: p.auth, body: individualBody() });
    expect(created.status).toBe(201);
    expect(Number(created.headers.get('X-D1-Rows-Written'))).toBeGreaterThan(0);
    expect(Number(created.headers.get('X-D1-Rows-Read'))).toBeGreaterThan(0);
    const read = await api('GET', `/customers/${created.body.id}`, { auth: p.auth });
    expect(read.status).toBe(200);
    expect(read.headers.get('X-D1-Rows-Written')).toBe('0');
    expect(Number(read.headers.get('X-D1-Rows-Read'))).toBeGreaterThan(0);
    // Errors too: a refused credential still read its token row.
    const refused = await api('GET', '/customers', { auth: 'Basic bm9uZTpub25l' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('X-D1-Rows-Read')).toMatch(/^\d+$/);
  });

  it('production responses never carry them', async () => {
    const res = await productionApi('GET', '/customers', { auth: 'Basic bm9uZTpub25l' });
    expect(res.status).toBe(401);
    expect(res.headers.get('X-D1-Rows-Read')).toBeNull();
    expect(res.headers.get('X-D1-Rows-Written')).toBeNull();
  });

  it('the request log line states them, with the round trips', async () => {
    const p = await newPlatform();
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}/customers`, {
        method: 'POST',
        headers: { Authorization: p.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(individualBody()),
      }),
      { ...env, LOG_LEVEL: 'info' },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(201);
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request');
    expect(line).toMatchObject({ method: 'POST', status: 201, d1: 2 });
    expect(line.rowsRead).toBe(Number(res.headers.get('X-D1-Rows-Read')));
    expect(line.rowsWritten).toBe(Number(res.headers.get('X-D1-Rows-Written')));
    expect(line.rowsWritten).toBeGreaterThan(0);
  });

  it('production counts a select’s rows only where D1’s public results carry them, and its log line says how many it left out', async () => {
    const a = await newAgent();
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    const call = async (overrides: Record<string, string>) => {
      const meter = newMeter();
      const ctx = createExecutionContext();
      const res = await withMeter(meter, () =>
        worker.fetch(
          new Request(`${BASE}/agents/me`, { headers: { Authorization: a.bearer } }),
          { ...env, LOG_LEVEL: 'info', ...overrides },
          ctx,
        ),
      );
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(200);
      return { meter, line: lines.map((l) => JSON.parse(l)).findLast((l) => l.msg === 'request') };
    };
    // The agent's usage is a select after its bearer lookup: drizzle reads it through raw(), whose result drops meta.
    const sandbox = await call({});
    expect(sandbox.meter.unmetered).toBe(0);
    expect(sandbox.line.unmetered).toBeUndefined();
    // Production never reaches into the binding's private method for it: the select is left out, and said so.
    const production = await call({ SERVICE_ENV: 'production', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: 'http://localhost' });
    expect(production.meter.unmetered).toBeGreaterThan(0);
    expect(production.line.unmetered).toBe(production.meter.unmetered);
    expect(production.meter.roundTrips).toBe(sandbox.meter.roundTrips);
    expect(production.meter.rowsRead).toBeLessThan(sandbox.meter.rowsRead);
  });

  it('the sweep logs what it read and wrote', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    await worker.scheduled({ scheduledTime: Date.now(), cron: '* * * * *', noRetry() {} } as ScheduledController, {
      ...env,
      LOG_LEVEL: 'info',
    });
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'sweep');
    expect(line).toMatchObject({ d1: expect.any(Number), rowsRead: expect.any(Number), rowsWritten: expect.any(Number) });
    expect(line.d1).toBeGreaterThan(0);
  });
});
