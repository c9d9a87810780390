import { createScheduledController, env } from 'cloudflare:test';
import { and, count, eq, isNotNull } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { database, type Statement } from '../../src/db/client';
import { dueTransitions, receiverLookups, webhookDeliveries } from '../../src/db/schema';
import { APPLIED_RETENTION_MS, scheduleTransition, SWEEP_INLINE_ROUNDS, SWEEP_QUEUED } from '../../src/transitions/schedule';
import { SWEEP_INLINE, SWEEP_QUEUED as DELIVERIES_QUEUED } from '../../src/webhooks/sweep';
import { eventStatements } from '../../src/webhooks/outbox';
import { transitions } from '../../src/jobs/deps';
import { api, newPlatform } from '../support/api';
import { consume, fakeEndpoint, hookUrl } from '../support/webhooks';

const db = () => database(env.DB);
const HOUR = 3_600_000;

beforeAll(() => {
  // Test-only kind: applying it changes nothing but its own applied mark, which the test counts.
  Object.assign(transitions, { 'test.noop': () => ({ statements: [] }) });
});

async function inBatches(statements: Statement[]) {
  for (let i = 0; i < statements.length; i += 200) await db().batch(statements.slice(i, i + 200) as [Statement, ...Statement[]]);
}

/** `n` transitions of `platformId`, due at platform time `dueAt`, scheduled at platform time `now`. */
async function transitionsDue(platformId: string, n: number, dueAt: number, now: number) {
  await inBatches(
    Array.from(
      { length: n },
      () => scheduleTransition(db(), { platformId, subjectId: `Quote:${crypto.randomUUID()}`, kind: 'test.noop', dueAt, now }).statement,
    ),
  );
}

/** `n` webhook events (and their PENDING deliveries, due at once) written at platform time `now`. */
async function eventsAt(platformId: string, n: number, now: number) {
  await inBatches(
    Array.from(
      { length: n },
      () => eventStatements(db(), { platformId, type: 'OUTGOING_PAYMENT.COMPLETED', data: { id: 'x' }, now }).statements,
    ).flat(),
  );
}

/**
 * Runs the real cron handler on a D1 binding that records every statement, then reads what each statement
 * costs from D1 itself (`meta.rows_read` of the same statement on the same data: with nothing due, the
 * sweep changed nothing).
 */
async function sweepRowsRead(scheduledTime: number) {
  const statements: { query: string; params: unknown[] }[] = [];
  const real = env.DB;
  const recording = new Proxy(real, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (query: string) => {
          const record = { query, params: [] as unknown[] };
          statements.push(record);
          const stmt = target.prepare(query);
          return new Proxy(stmt, {
            get(s, method) {
              if (method === 'bind')
                return (...values: unknown[]) => {
                  record.params = values;
                  return s.bind(...values);
                };
              const value = Reflect.get(s, method);
              return typeof value === 'function' ? value.bind(s) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '* * * * *' }), { ...env, DB: recording });
  let rowsRead = 0;
  const perStatement: [number, string][] = [];
  for (const s of statements) {
    const { meta } = await real
      .prepare(s.query)
      .bind(...s.params)
      .all();
    rowsRead += meta.rows_read;
    perStatement.push([meta.rows_read, s.query.slice(0, 120)]);
  }
  return { rowsRead, perStatement, statements: statements.length };
}

async function applied(platformId: string) {
  const [row] = await db()
    .select({ n: count() })
    .from(dueTransitions)
    .where(and(eq(dueTransitions.platformId, platformId), isNotNull(dueTransitions.appliedAt)));
  return row!.n;
}

async function delivered(platformId: string) {
  const [row] = await db()
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.platformId, platformId), eq(webhookDeliveries.status, 'DELIVERED')));
  return row!.n;
}

async function pending(platformId: string) {
  const [row] = await db()
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.platformId, platformId), eq(webhookDeliveries.status, 'PENDING')));
  return row!.n;
}

async function until(check: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check()) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
}

describe('cron sweep cost', () => {
  it('reads about nothing when nothing is due, however many rows wait on however many clocks', { timeout: 120_000 }, async () => {
    const now = Date.now();
    const plain = await newPlatform();
    const ahead = await newPlatform();
    // `ahead` runs a day early: its rows are due at platform time, an hour from its now.
    await api('POST', '/sandbox/clock/advance', { auth: ahead.auth, body: { seconds: 86_400 } });
    await transitionsDue(plain.id, 1_000, now + HOUR, now);
    await transitionsDue(ahead.id, 1_000, now + 86_400_000 + HOUR, now + 86_400_000);
    await eventsAt(plain.id, 1_000, now + HOUR);
    await eventsAt(ahead.id, 1_000, now + 86_400_000 + HOUR);

    // About 30 (index probes of a dozen statements), whatever the 4,000 rows waiting: before `sweepAt`, ~4,000.
    const cost = await sweepRowsRead(now);
    expect(cost.rowsRead, JSON.stringify(cost.perStatement, null, 1)).toBeLessThanOrEqual(40);
    expect(await applied(plain.id)).toBe(0);
    expect(await applied(ahead.id)).toBe(0);

    // Advancing `ahead` by two hours brings its rows due: the sweep finds them (its advance applied most already).
    await api('POST', '/sandbox/clock/advance', { auth: ahead.auth, body: { seconds: 2 * 3600 } });
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);
    await until(async () => (await applied(ahead.id)) === 1_000 && (await pending(ahead.id)) === 0);
    expect(await applied(ahead.id)).toBe(1_000);
    // Its deliveries came due too (no endpoint: each settled as SKIPPED); the other platform's still wait.
    expect(await pending(ahead.id)).toBe(0);
    expect(await applied(plain.id)).toBe(0);
    expect(await pending(plain.id)).toBe(1_000);
  });

  it('drains a transition backlog larger than one tick through the queue: at least 1,000 a tick', { timeout: 120_000 }, async () => {
    const p = await newPlatform();
    const now = Date.now();
    const backlog = 1_300;
    await transitionsDue(p.id, backlog, now - 1_000, now - 2_000);

    // One tick applies SWEEP_INLINE_ROUNDS batches of 50 itself and queues SWEEP_QUEUED more.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);
    await until(async () => (await applied(p.id)) >= SWEEP_INLINE_ROUNDS * 50 + SWEEP_QUEUED, 60_000);
    // Let stragglers (none expected) land before judging what one tick did.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await applied(p.id)).toBe(SWEEP_INLINE_ROUNDS * 50 + SWEEP_QUEUED);
    expect(await applied(p.id)).toBeGreaterThanOrEqual(1_000);

    // The next tick takes the rest; the queued rows were leased, so it does not queue them again.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);
    await until(async () => (await applied(p.id)) === backlog);
    expect(await applied(p.id)).toBe(backlog);
    const [twice] = await db().select({ n: count() }).from(dueTransitions).where(eq(dueTransitions.applications, 2));
    expect(twice!.n).toBe(0);
  });

  it('drains a delivery backlog larger than one tick through the queue: at least 1,000 a tick', { timeout: 120_000 }, async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const hook = fakeEndpoint(url, () => 200);
    const backlog = 1_160;
    await eventsAt(p.id, backlog, Date.now() - 1_000);

    // One tick attempts SWEEP_INLINE itself and queues DELIVERIES_QUEUED more.
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);
    await until(async () => (await delivered(p.id)) >= SWEEP_INLINE + DELIVERIES_QUEUED, 60_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await delivered(p.id)).toBe(SWEEP_INLINE + DELIVERIES_QUEUED);
    expect(await delivered(p.id)).toBeGreaterThanOrEqual(1_000);

    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), env);
    await until(async () => (await delivered(p.id)) === backlog);
    expect(await delivered(p.id)).toBe(backlog);
    // Each event was POSTed once.
    expect(hook.calls).toHaveLength(backlog);
  });

  it('purges applied transitions a week after they were applied; a late duplicate message then applies nothing', async () => {
    const p = await newPlatform();
    const now = Date.now();
    const t = scheduleTransition(db(), {
      platformId: p.id,
      subjectId: `Quote:${crypto.randomUUID()}`,
      kind: 'test.noop',
      dueAt: now - 1,
      now: now - 2,
    });
    await db().batch([t.statement]);
    await worker.scheduled(createScheduledController({ scheduledTime: now, cron: '* * * * *' }), env);
    expect(await applied(p.id)).toBe(1);
    await worker.scheduled(createScheduledController({ scheduledTime: now + APPLIED_RETENTION_MS - 1_000, cron: '* * * * *' }), env);
    expect(await applied(p.id)).toBe(1);
    // The purge takes 1,000 of the oldest a tick (this file applied a few thousand before): a few ticks reach it.
    const stored = async () => db().select().from(dueTransitions).where(eq(dueTransitions.id, t.id));
    for (let tick = 0; tick < 10 && (await stored()).length > 0; tick++) {
      await worker.scheduled(createScheduledController({ scheduledTime: now + APPLIED_RETENTION_MS + 1, cron: '* * * * *' }), env);
    }
    expect(await stored()).toEqual([]);
    await consume({ type: 'transition.due', id: t.id });
    expect(await db().select().from(dueTransitions).where(eq(dueTransitions.id, t.id))).toEqual([]);
  });

  it('purges expired receiver look-ups, 500 a tick through the expiry index, and keeps live ones', async () => {
    const p = await newPlatform();
    const now = Date.now();
    const row = (expiresAt: number) => ({
      id: `LookupRequest:${crypto.randomUUID()}`,
      platformId: p.id,
      receiverType: 'UMA_ADDRESS' as const,
      receiver: '$success.usd@sandbox.uma.test',
      customerId: null,
      currencies: ['USD'],
      requiredPayerFields: [],
      receiverName: null,
      expiresAt,
      createdAt: expiresAt - 15 * 60_000,
    });
    await inBatches([
      ...Array.from({ length: 700 }, (_, i) =>
        db()
          .insert(receiverLookups)
          .values(row(now - 1 - i)),
      ),
      ...Array.from({ length: 5 }, () =>
        db()
          .insert(receiverLookups)
          .values(row(now + HOUR)),
      ),
    ]);
    const left = async () => {
      const rows = await db()
        .select({ expiresAt: receiverLookups.expiresAt })
        .from(receiverLookups)
        .where(eq(receiverLookups.platformId, p.id));
      return { expired: rows.filter((r) => r.expiresAt <= now).length, live: rows.filter((r) => r.expiresAt > now).length };
    };
    await worker.scheduled(createScheduledController({ scheduledTime: now, cron: '* * * * *' }), env);
    expect(await left()).toEqual({ expired: 200, live: 5 });
    await worker.scheduled(createScheduledController({ scheduledTime: now, cron: '* * * * *' }), env);
    expect(await left()).toEqual({ expired: 0, live: 5 });
  });
});
