import { createExecutionContext, env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { database } from '../../src/db/client';
import { dueTransitions, webhookDeliveries, webhookEvents } from '../../src/db/schema';
import { logger } from '../../src/http/log';
import {
  applyDueTransitions,
  dispatchTransitions,
  scheduleTransition,
  type TransitionHandler,
  type TransitionInput,
} from '../../src/transitions/schedule';
import { eventFields, eventStatements, legacyEvent } from '../../src/webhooks/outbox';
import { jobDeps, transitions } from '../../src/jobs/deps';
import { settings } from '../../src/env';
import { api, BASE, expectError, failingFields, newPlatform, tokenWith } from '../support/api';
import { consume, runCron } from '../support/webhooks';

const db = () => database(env.DB);
const deps = () => jobDeps(env, settings(env), logger('error'), db());
/** Test-only kinds join the consumer's map, so the real consumer and sweep apply them. */
const register = (kind: string, handler: TransitionHandler) => Object.assign(transitions, { [kind]: handler });
const T0 = Date.parse('2031-07-01T08:00:00.000Z');
/** Platform times the test handler was called with, by transition id. */
const seenAt = new Map<string, number[]>();
let failuresLeft = 0;

beforeAll(() => {
  // Test-only handler: each application writes one webhook event about the subject, so applying twice would show.
  register('test.settle', ({ db, row, now }) => {
    seenAt.set(row.id, [...(seenAt.get(row.id) ?? []), now]);
    const { statements, eventId } = eventStatements(db, {
      platformId: row.platformId,
      type: 'OUTGOING_PAYMENT.FAILED',
      data: { id: row.subjectId, from: row.fromStatus, status: row.toStatus, ...row.data },
      now,
    });
    return { statements, eventIds: [eventId] };
  });
  register('test.flaky', () => {
    if (failuresLeft > 0) {
      failuresLeft--;
      throw new Error('subject temporarily unavailable');
    }
    return { statements: [] };
  });
});

afterEach(() => {
  vi.useRealTimers();
});

async function schedule(input: Partial<TransitionInput> & { platformId: string }) {
  const t = scheduleTransition(db(), {
    subjectId: `Transaction:${crypto.randomUUID()}`,
    kind: 'test.settle',
    from: 'PENDING',
    to: 'FAILED',
    data: { failureReason: 'OFFRAMP_FAILED' },
    dueAt: T0 + 30_000,
    now: T0,
    ...input,
  });
  await db().batch([t.statement]);
  return t;
}

async function eventsAbout(subjectId: string) {
  const rows = await db().select(eventFields).from(webhookDeliveries).leftJoin(webhookEvents, legacyEvent);
  return rows.filter((r) => r.data.id === subjectId);
}

async function row(id: string) {
  return (await db().select().from(dueTransitions).where(eq(dueTransitions.id, id)))[0]!;
}

describe('due transitions', () => {
  it('scheduleTransition: a row plus a queue delay until due, capped at 12 hours', async () => {
    const p = await newPlatform();
    const t = await schedule({ platformId: p.id });
    expect(t.id).toMatch(/^Transition:/);
    expect(t.delaySeconds).toBe(30);
    expect(await row(t.id)).toMatchObject({
      platformId: p.id,
      kind: 'test.settle',
      fromStatus: 'PENDING',
      toStatus: 'FAILED',
      dueAt: T0 + 30_000,
      appliedAt: null,
      applications: 0,
    });
    expect(
      scheduleTransition(db(), { platformId: p.id, subjectId: 's', kind: 'k', dueAt: T0 + 2 * 86_400_000, now: T0 }).delaySeconds,
    ).toBe(43_200);
    expect(scheduleTransition(db(), { platformId: p.id, subjectId: 's', kind: 'k', dueAt: T0 - 5_000, now: T0 }).delaySeconds).toBe(0);
  });

  it('the consumer applies a transition once it is due, with the platform time', async () => {
    const p = await newPlatform();
    const t = await schedule({ platformId: p.id });
    const subject = (await row(t.id)).subjectId;
    vi.setSystemTime(T0 + 29_999);
    await consume({ type: 'transition.due', id: t.id });
    expect((await row(t.id)).appliedAt).toBeNull();

    vi.setSystemTime(T0 + 30_500);
    await consume({ type: 'transition.due', id: t.id });
    expect(await row(t.id)).toMatchObject({ appliedAt: T0 + 30_500, applications: 1 });
    const events = await eventsAbout(subject);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({ id: subject, from: 'PENDING', status: 'FAILED', failureReason: 'OFFRAMP_FAILED' });
    expect(seenAt.get(t.id)).toEqual([T0 + 30_500]);
  });

  it('applies exactly once under duplicate messages and a racing sweep', async () => {
    const p = await newPlatform();
    const ts = await Promise.all([1, 2, 3].map(() => schedule({ platformId: p.id })));
    vi.setSystemTime(T0 + 31_000);
    const message = (id: string) => ({ type: 'transition.due', id });
    await Promise.all([
      consume(...ts.map((t) => message(t.id)), ...ts.map((t) => message(t.id))),
      consume(...ts.map((t) => message(t.id))),
      runCron(T0 + 31_000),
      runCron(T0 + 31_000),
      applyDueTransitions(deps(), T0 + 31_000, { platformId: p.id }),
    ]);
    for (const t of ts) {
      expect(await row(t.id)).toMatchObject({ applications: 1 });
      expect(await eventsAbout((await row(t.id)).subjectId)).toHaveLength(1);
    }
    // Later sweeps find nothing due.
    expect(await applyDueTransitions(deps(), T0 + 86_400_000, { platformId: p.id })).toEqual({ applied: 0, skipped: 0, failed: 0 });
  });

  it('applies a subject’s transitions in due order; a failing one stays due and holds back the rest', async () => {
    const p = await newPlatform();
    const subjectId = `Quote:${crypto.randomUUID()}`;
    const flaky = await schedule({ platformId: p.id, subjectId, kind: 'test.flaky', dueAt: T0 + 1_000 });
    const after = await schedule({ platformId: p.id, subjectId, from: 'COMPLETED', to: 'FAILED', dueAt: T0 + 2_000 });
    const unrelated = await schedule({ platformId: p.id, dueAt: T0 + 1_500 });
    failuresLeft = 1;
    // The failure is logged at error level (asserted here, not printed).
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await applyDueTransitions(deps(), T0 + 5_000, { platformId: p.id })).toEqual({ applied: 1, skipped: 0, failed: 1 });
    expect(printed.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      {
        level: 'error',
        msg: 'transition failed; it stays due',
        kind: 'test.flaky',
        id: flaky.id,
        error: 'subject temporarily unavailable',
      },
    ]);
    printed.mockRestore();
    expect((await row(flaky.id)).appliedAt).toBeNull();
    expect((await row(after.id)).appliedAt).toBeNull();
    expect((await row(unrelated.id)).applications).toBe(1);

    await runCron(T0 + 65_000);
    expect(await row(flaky.id)).toMatchObject({ applications: 1, appliedAt: T0 + 65_000 });
    expect(await row(after.id)).toMatchObject({ applications: 1, appliedAt: T0 + 65_000 });
  });

  it("evaluates due times on each platform's own sandbox clock", async () => {
    const ahead = await newPlatform();
    const other = await newPlatform();
    await api('POST', '/sandbox/clock/advance', { auth: ahead.auth, body: { seconds: 3600 } });
    // Due at platform time T0 + 1 h: that is wall-clock T0 for `ahead`, but T0 + 1 h for `other`.
    const a = await schedule({ platformId: ahead.id, dueAt: T0 + 3_600_000, now: T0 + 3_000_000 });
    const b = await schedule({ platformId: other.id, dueAt: T0 + 3_600_000, now: T0 });
    await runCron(T0);
    expect(await row(a.id)).toMatchObject({ applications: 1, appliedAt: T0 + 3_600_000 });
    expect((await row(b.id)).applications).toBe(0);
  });

  it('dispatchTransitions sends a delayed message; the real queue delivers it to the consumer', async () => {
    const p = await newPlatform();
    const now = Date.now();
    const t = await schedule({ platformId: p.id, dueAt: now, now });
    await dispatchTransitions(env.JOBS, [t]);
    for (let i = 0; i < 50 && (await row(t.id)).applications === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await row(t.id)).applications).toBe(1);
    const failing = { sendBatch: () => Promise.reject(new Error('queue down')) } as unknown as Queue<unknown>;
    await expect(dispatchTransitions(failing, [t], logger('error'))).resolves.toBeUndefined();
  });
});

describe('POST /sandbox/clock/advance', () => {
  it("moves the platform's clock and applies what became due, once", async () => {
    const p = await newPlatform();
    const before = Date.now();
    const sixMinutes = await schedule({ platformId: p.id, dueAt: before + 6 * 60_000, now: before });
    const res = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 300 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sandboxTime: expect.stringMatching(/Z$/), clockOffsetSeconds: 300, appliedTransitions: 0 });
    expect(Date.parse(res.body.sandboxTime) - before).toBeGreaterThanOrEqual(300_000);
    expect(Date.parse(res.body.sandboxTime) - Date.now()).toBeLessThanOrEqual(300_000);

    const again = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 60 } });
    expect(again.body).toMatchObject({ clockOffsetSeconds: 360, appliedTransitions: 1 });
    const applied = await row(sixMinutes.id);
    expect(applied.applications).toBe(1);
    expect(applied.appliedAt! - before).toBeGreaterThanOrEqual(360_000);
    expect(await eventsAbout(applied.subjectId)).toHaveLength(1);

    expect((await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 3600 } })).body).toMatchObject({
      clockOffsetSeconds: 3960,
      appliedTransitions: 0,
    });
    // Requests now run on the moved clock.
    const config = await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: 'moved.test' } });
    expect(Date.parse(config.body.updatedAt) - Date.now()).toBeGreaterThan(3_950_000);
  });

  it("leaves other platforms' clocks and transitions alone", async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const now = Date.now();
    const theirs = await schedule({ platformId: other.id, dueAt: now + 60_000, now });
    const res = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 120 } });
    expect(res.body.appliedTransitions).toBe(0);
    expect((await row(theirs.id)).applications).toBe(0);
    const config = await api('PATCH', '/config', { auth: other.auth, body: { umaDomain: 'still.test' } });
    expect(Math.abs(Date.parse(config.body.updatedAt) - Date.now())).toBeLessThan(5_000);
  });

  it('validates seconds (1 to 30 days, integer)', async () => {
    const p = await newPlatform();
    for (const body of [
      { seconds: 0 },
      { seconds: -5 },
      { seconds: 1.5 },
      { seconds: 2_592_001 },
      { seconds: '60' },
      {},
      { seconds: 60, extra: 1 },
    ]) {
      const res = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res)).toEqual([Object.keys(body).includes('extra') ? 'extra' : 'seconds']);
    }
    expect((await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 2_592_000 } })).body.clockOffsetSeconds).toBe(
      2_592_000,
    );
  });

  it('needs TRANSACT, answers 401 without credentials and 404 in production', async () => {
    const p = await newPlatform();
    expectError(
      await api('POST', '/sandbox/clock/advance', { auth: await tokenWith(p, ['VIEW', 'MANAGE']), body: { seconds: 1 } }),
      403,
      'FORBIDDEN',
    );
    expectError(await api('POST', '/sandbox/clock/advance', { body: { seconds: 1 } }), 401, 'UNAUTHORIZED');
    expect((await api('POST', '/sandbox/clock/advance', { auth: await tokenWith(p, ['TRANSACT']), body: { seconds: 1 } })).status).toBe(
      200,
    );

    const request = new Request(`${BASE}/sandbox/clock/advance`, {
      method: 'POST',
      headers: { Authorization: p.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ seconds: 60 }),
    });
    const res = await worker.fetch(request, { ...env, SERVICE_ENV: 'production' }, createExecutionContext());
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND', details: { reason: 'ROUTE_NOT_FOUND' } });
    // Nothing moved.
    expect((await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 1 } })).body.clockOffsetSeconds).toBe(2);
  });
});

describe('cron sweep', () => {
  it('runs transitions, webhooks and key purging each on their own', async () => {
    const p = await newPlatform();
    const t = await schedule({ platformId: p.id, dueAt: T0, now: T0 });
    await runCron(T0);
    expect((await row(t.id)).applications).toBe(1);
    const [ev] = await eventsAbout((await row(t.id)).subjectId);
    // No endpoint configured: the sweep attempted the event's delivery and skipped it.
    const delivery = await db().query.webhookDeliveries.findFirst({ where: (d) => and(eq(d.eventId, ev!.id)) });
    expect(delivery).toMatchObject({ status: 'SKIPPED' });
  });
});
