import { applyD1Migrations, env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { webhookDeliveries } from '../../src/db/schema';
import { deliveryView } from '../../src/webhooks/service';
import { sqlEventStatements } from '../../src/webhooks/sql-events';
import { platform, upTo } from '../support/migrations';

describe('migrations on a database of an earlier release', () => {
  it('0005 adds payload, signature and last_response_body as NULL: earlier deliveries render without them', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0004_'));
    const T = Date.parse('2025-12-01T00:00:00Z');
    const p = '0199c000-0000-7000-8000-000000000001';
    await env.UPGRADE_DB.batch([
      platform(p, 'hooks.example', T),
      env.UPGRADE_DB.prepare(
        `INSERT INTO webhook_deliveries (id, platform_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at, last_response_status, url, delivered_at, created_at, updated_at)
         VALUES ('WebhookDelivery:old', ?, 'Webhook:old', 'TEST', 'DELIVERED', 1, ?, ?, 200, 'https://hooks.example/', ?, ?, ?)`,
      ).bind(`Platform:${p}`, T + 5, T + 5, T + 5, T, T + 5),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const db = database(env.UPGRADE_DB);
    const [row] = await db.select().from(webhookDeliveries);
    expect(row).toMatchObject({ payload: null, signature: null, lastResponseBody: null });
    expect(deliveryView(row!)).toEqual({
      id: 'WebhookDelivery:old',
      eventId: 'Webhook:old',
      eventType: 'TEST',
      status: 'DELIVERED',
      // Deliveries made before the sandbox's webhook chaos are NORMAL.
      mode: 'NORMAL',
      attempts: 1,
      url: 'https://hooks.example/',
      lastResponseStatus: 200,
      lastAttemptAt: new Date(T + 5).toISOString(),
      deliveredAt: new Date(T + 5).toISOString(),
      createdAt: new Date(T).toISOString(),
      updatedAt: new Date(T + 5).toISOString(),
    });

    // Outbox rows written in SQL list every column by position: they still fit the migrated table.
    const { statements, eventId } = sqlEventStatements(db, {
      platformId: `Platform:${p}`,
      type: 'TEST',
      data: sql`json('{}')`,
      now: T + 9,
    });
    await db.batch(statements as [any, ...any[]]);
    const { results } = await env.UPGRADE_DB.prepare('SELECT status, payload FROM webhook_deliveries WHERE event_id = ?')
      .bind(eventId)
      .all();
    expect(results).toEqual([{ status: 'PENDING', payload: null }]);
  });
});
