import { env } from 'cloudflare:test';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { webhookDeliveries, webhookEvents } from '../../src/db/schema';
import { settings } from '../../src/env';
import { deliverEvent } from '../../src/webhooks/delivery';
import { purgeSettledDeliveries } from '../../src/webhooks/retention';
import { api, newPlatform } from '../support/api';
import { deps, fakeEndpoint, hookUrl, runCron, writeEvent } from '../support/webhooks';

const db = () => database(env.DB);
const DAY = 86_400_000;

async function stored(eventIds: string[]) {
  const deliveries = await db().select().from(webhookDeliveries).where(inArray(webhookDeliveries.eventId, eventIds));
  // Events are carried by their deliveries; those written before migration 0035 have their own row too.
  const carried = deliveries.filter((d) => d.eventData !== null).map((d) => d.eventId);
  const legacy = await db().select({ id: webhookEvents.id }).from(webhookEvents).where(inArray(webhookEvents.id, eventIds));
  return { deliveries: deliveries.map((d) => d.eventId).sort(), events: [...new Set([...carried, ...legacy.map((e) => e.id)])].sort() };
}

describe('webhook retention', () => {
  it('defaults to 30 days, set by WEBHOOK_RETENTION_DAYS', () => {
    expect(settings({ ...env, WEBHOOK_RETENTION_DAYS: undefined }).webhookRetentionMs).toBe(30 * DAY);
    expect(settings({ ...env, WEBHOOK_RETENTION_DAYS: '7' }).webhookRetentionMs).toBe(7 * DAY);
    expect(settings({ ...env, WEBHOOK_RETENTION_DAYS: 'soon' }).webhookRetentionMs).toBe(30 * DAY);
  });

  it('the cron purges settled deliveries and their events once retention has passed since they settled; pending ones stay', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const bare = await newPlatform();
    fakeEndpoint(url, (n) => (n === 1 ? 200 : 500));
    const t = Date.now();
    const delivered = await writeEvent(p.id, t);
    const pending = await writeEvent(p.id, t);
    const skipped = await writeEvent(bare.id, t);
    expect(await deliverEvent(deps(), delivered, t)).toMatchObject({ result: 'delivered' });
    expect(await deliverEvent(deps(), pending, t)).toMatchObject({ result: 'retry' });
    expect(await deliverEvent(deps(), skipped, t)).toMatchObject({ result: 'skipped' });
    const all = [delivered, pending, skipped];
    const total = async (auth: string) => (await api('GET', '/webhooks/deliveries', { auth })).body.totalCount;
    expect(await total(p.auth)).toBe(2);

    // A day short of retention: everything is kept (the sweep retries the pending one, which now fails for good).
    await runCron(t + 29 * DAY);
    expect(await stored(all)).toEqual({ deliveries: [...all].sort(), events: [...all].sort() });
    expect((await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, pending)))[0]!.status).toBe('FAILED');

    // Past it: the two settled at t are gone with their events, and the list's counters follow; the one that
    // settled at t + 29 days is kept until its own retention ends.
    await runCron(t + 30 * DAY + 1);
    expect(await stored(all)).toEqual({ deliveries: [pending], events: [pending] });
    expect(await total(p.auth)).toBe(1);
    expect(await total(bare.auth)).toBe(0);
    expect((await api('GET', '/webhooks/deliveries?status=DELIVERED', { auth: p.auth })).body.totalCount).toBe(0);
    await runCron(t + 59 * DAY + 1);
    expect(await stored(all)).toEqual({ deliveries: [], events: [] });
  });

  it('purges in bounded batches, oldest first, and never a PENDING delivery', async () => {
    const p = await newPlatform();
    const t = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await writeEvent(p.id, t + i);
      // No endpoint: SKIPPED at t + i.
      await deliverEvent(deps(), id, t + i);
      ids.push(id);
    }
    const waiting = await writeEvent(p.id, t - 100 * DAY);
    expect(await purgeSettledDeliveries(db(), t + 10 * DAY, 10 * DAY - 2, 2)).toBe(2);
    expect((await stored(ids)).deliveries).toEqual(ids.slice(2).sort());
    expect(await purgeSettledDeliveries(db(), t + 10 * DAY, 10 * DAY - 2, 2)).toBe(1);
    expect((await stored(ids)).deliveries).toEqual(ids.slice(3).sort());
    expect((await stored([waiting])).deliveries).toEqual([waiting]);
  });
});
