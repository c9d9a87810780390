import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

const P1 = 'Platform:0199a000-0000-7000-8000-0000000000b1';
const P2 = 'Platform:0199a000-0000-7000-8000-0000000000b2';
const T = Date.parse('2026-10-01T00:00:00Z');

const delivery = (n: number, platformId: string, status: string, nextAttemptAt: number, updatedAt: number) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO webhook_deliveries (id, platform_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, 'OUTGOING_PAYMENT.COMPLETED', ?, 1, ?, ?, ?)`,
  ).bind(`WebhookDelivery:${n}`, platformId, `Webhook:${n}`, status, nextAttemptAt, T, updatedAt);

const transition = (n: number, platformId: string, dueAt: number, appliedAt: number | null) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO due_transitions (id, platform_id, subject_id, kind, due_at, applied_at, applications, created_at) VALUES (?, ?, ?, 'transfer.fail', ?, ?, ?, ?)`,
  ).bind(`Transition:${n}`, platformId, `Transaction:${n}`, dueAt, appliedAt, appliedAt === null ? 0 : 1, T);

describe('upgrading a database of the previous release (background work)', () => {
  it('fills the deliveries list counters and the sweep times of the rows already there', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0010_'));
    await env.UPGRADE_DB.batch([
      platform('0199a000-0000-7000-8000-0000000000b1', 'b1.example', T),
      platform('0199a000-0000-7000-8000-0000000000b2', 'b2.example', T),
      // P2's sandbox clock runs an hour ahead.
      env.UPGRADE_DB.prepare('UPDATE platforms SET clock_offset_ms = 3600000 WHERE id = ?').bind(P2),
      delivery(1, P1, 'PENDING', T + 30_000, T),
      delivery(2, P1, 'DELIVERED', T, T + 5),
      delivery(3, P1, 'FAILED', T, T + 6),
      delivery(4, P2, 'PENDING', T + 3_600_000 + 30_000, T),
      delivery(5, P2, 'SKIPPED', T, T + 3_600_000 + 7),
      transition(1, P1, T + 60_000, null),
      transition(2, P2, T + 3_600_000 + 60_000, null),
      transition(3, P1, T, T),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const { results: counts } = await env.UPGRADE_DB.prepare(
      "SELECT platform_id AS p, list, n FROM list_counts WHERE list LIKE 'webhook_deliveries%' AND n > 0 ORDER BY p, list",
    ).all();
    // Per status (the total, their sum since migration 0036, has no counter of its own).
    expect(counts).toEqual([
      { p: P1, list: 'webhook_deliveries:status=DELIVERED', n: 1 },
      { p: P1, list: 'webhook_deliveries:status=FAILED', n: 1 },
      { p: P1, list: 'webhook_deliveries:status=PENDING', n: 1 },
      { p: P2, list: 'webhook_deliveries:status=PENDING', n: 1 },
      { p: P2, list: 'webhook_deliveries:status=SKIPPED', n: 1 },
    ]);

    // Wall-clock sweep times: a pending row's due time, a settled row's settling time, each platform's offset taken off.
    const { results: deliveries } = await env.UPGRADE_DB.prepare('SELECT id, sweep_at AS s FROM webhook_deliveries ORDER BY id').all();
    expect(deliveries.map((d) => d.s)).toEqual([T + 30_000, T + 5, T + 6, T + 30_000, T + 7]);
    const { results: due } = await env.UPGRADE_DB.prepare('SELECT id, sweep_at AS s FROM due_transitions ORDER BY id').all();
    expect(due.map((d) => d.s)).toEqual([T + 60_000, T + 60_000, T]);

    // The counters keep counting on the upgraded database.
    await env.UPGRADE_DB.prepare("UPDATE webhook_deliveries SET status = 'DELIVERED' WHERE id = 'WebhookDelivery:1'").run();
    const { results: after } = await env.UPGRADE_DB.prepare(
      "SELECT list, n FROM list_counts WHERE platform_id = ? AND list LIKE 'webhook_deliveries:status=%' ORDER BY list",
    )
      .bind(P1)
      .all();
    expect(after).toEqual([
      { list: 'webhook_deliveries:status=DELIVERED', n: 2 },
      { list: 'webhook_deliveries:status=FAILED', n: 1 },
      { list: 'webhook_deliveries:status=PENDING', n: 0 },
    ]);
  });
});
