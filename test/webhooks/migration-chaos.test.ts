import { applyD1Migrations, env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { webhookDeliveries } from '../../src/db/schema';
import { platform, upTo } from '../support/migrations';

// Its own file: the upgrade database starts empty once per file, and 0025 must run after these rows exist.
describe('migration 0025 (webhook chaos) on a database of the previous release', () => {
  it('0025 names the resource of earlier deliveries (the id in their event data) and lets an event have a second delivery', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0024_'));
    const T = Date.parse('2026-11-01T00:00:00Z');
    const p = '0199c000-0000-7000-8000-000000000025';
    const delivery = (id: string, eventId: string) =>
      env.UPGRADE_DB.prepare(
        `INSERT INTO webhook_deliveries (id, platform_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', 'DELIVERED', 1, ?, ?, ?)`,
      ).bind(id, `Platform:${p}`, eventId, T, T, T);
    await env.UPGRADE_DB.batch([
      platform(p, 'upgrade25.example', T),
      env.UPGRADE_DB.prepare(`INSERT INTO webhook_events (id, platform_id, type, timestamp, data) VALUES (?, ?, ?, ?, ?)`).bind(
        'Webhook:e25',
        `Platform:${p}`,
        'INTERNAL_ACCOUNT.BALANCE_UPDATED',
        T,
        JSON.stringify({ id: 'InternalAccount:a25' }),
      ),
      delivery('WebhookDelivery:d25', 'Webhook:e25'),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const db = database(env.UPGRADE_DB);
    const rows = await db
      .select()
      .from(webhookDeliveries)
      .where(sql`${webhookDeliveries.eventId} = 'Webhook:e25'`);
    expect(rows).toMatchObject([{ id: 'WebhookDelivery:d25', resourceId: 'InternalAccount:a25', mode: 'NORMAL' }]);
    // The event id is no longer unique among deliveries: a DUPLICATE is a second row of the same event.
    await delivery('WebhookDelivery:d25b', 'Webhook:e25').run();
    expect(
      await db
        .select()
        .from(webhookDeliveries)
        .where(sql`${webhookDeliveries.eventId} = 'Webhook:e25'`),
    ).toHaveLength(2);
  });
});
