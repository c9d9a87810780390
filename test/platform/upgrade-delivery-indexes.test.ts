import { applyD1Migrations, env } from 'cloudflare:test';
import { and, asc, desc, eq, getTableColumns, gte, lt, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { apiTokens, webhookDeliveries } from '../../src/db/schema';
import { newToken } from '../../src/platform/tokens-service';
import { deliveryView } from '../../src/webhooks/service';
import { toBase64url } from '../../src/crypto/base64';
import { basic, expectError, failingFields, listPages, workerApi, type ApiResult } from '../support/api';
import { platform, upTo } from '../support/migrations';

// Its own file: each test file gets fresh storage, so UPGRADE_DB starts empty here. The Worker's real fetch handler
// serves the upgraded database (its DB binding replaced by UPGRADE_DB).

const T = Date.parse('2026-11-01T00:00:00Z');
const db = env.UPGRADE_DB;
const TYPES = ['OUTGOING_PAYMENT.COMPLETED', 'INCOMING_PAYMENT.COMPLETED', 'TEST'] as const;
const STATUSES = ['DELIVERED', 'FAILED', 'PENDING', 'SKIPPED'] as const;

/** A UUIDv7 of `ms` (its counter `n`), as the previous release wrote them: ids sort as their creation times. */
function uuid(ms: number, n: number, tag: number) {
  const h = ms.toString(16).padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8)}-7${n.toString(16).padStart(3, '0')}-8000-${String(tag).padStart(12, '0')}`;
}

interface Seeded {
  id: string;
  eventId: string;
}

/**
 * Deliveries of a platform as the previous release wrote them: statuses and types in turn, one second apart, and a
 * sandbox DUPLICATE pair (one event, two deliveries of the same millisecond, their ids in the order written).
 */
function deliveries(platformId: string, tag: number, count: number) {
  const statements: D1PreparedStatement[] = [];
  const seeded: Seeded[] = [];
  for (let i = 0; i < count; i++) {
    const at = T + tag * 100 + i * 1000;
    const type = TYPES[i % TYPES.length]!;
    const status = STATUSES[(i + tag) % STATUSES.length]!;
    const eventId = `Webhook:${uuid(at, i, tag)}`;
    statements.push(
      db
        .prepare(`INSERT INTO webhook_events (id, platform_id, type, timestamp, data) VALUES (?, ?, ?, ?, ?)`)
        .bind(eventId, platformId, type, at, JSON.stringify({ id: `Transaction:${uuid(at, i, tag)}` })),
    );
    const copies = i === 4 ? 2 : 1;
    for (let c = 0; c < copies; c++) {
      const id = `WebhookDelivery:${uuid(at, i * 2 + c, tag)}`;
      const settled = status !== 'PENDING';
      statements.push(
        db
          .prepare(
            `INSERT INTO webhook_deliveries (id, platform_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at,
               last_response_status, url, delivered_at, created_at, updated_at, payload, sweep_at, mode, resource_id)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .bind(
            id,
            platformId,
            eventId,
            type,
            status,
            settled ? 1 : 0,
            at,
            settled ? at + 10 : null,
            status === 'DELIVERED' ? 200 : status === 'FAILED' ? 500 : null,
            settled ? 'https://hooks.example/in' : null,
            status === 'DELIVERED' ? at + 10 : null,
            at,
            at + 10,
            settled ? JSON.stringify({ id: eventId, type }) : null,
            at + 10,
            copies === 2 ? 'DUPLICATE' : 'NORMAL',
            `Transaction:${uuid(at, i, tag)}`,
          ),
      );
      seeded.push({ id, eventId });
    }
  }
  return { statements, seeded };
}

/** A platform of the database, written as that release wrote one (its row and its first token), and its Basic credentials. */
async function platformOf() {
  const id = `Platform:${crypto.randomUUID()}`;
  const token = newToken(id, 'DB', 'Initial token', ['VIEW', 'TRANSACT', 'MANAGE'], T);
  await platform(id.slice('Platform:'.length), `${crypto.randomUUID()}.platform.test`, T).run();
  await database(db).insert(apiTokens).values(token.row);
  return { id, auth: basic(token.view.clientId, token.view.clientSecret) };
}

const upgraded = (method: string, path: string, auth: string, body?: unknown): Promise<ApiResult> =>
  workerApi(method, path, { DB: db }, { auth, body });

/** Every page of a list, `limit` at a time, through the API: the items in order, and the first page's total. */
async function allPages(path: string, auth: string, limit: number) {
  const items: unknown[] = [];
  let totalCount: number | undefined;
  let page = 0;
  for await (const body of listPages((query) => upgraded('GET', query, auth), path, limit)) {
    if (page++ === 0) totalCount = body.totalCount;
    items.push(...body.data);
    if (body.hasMore) expect(body.data).toHaveLength(limit);
    else expect(body.nextCursor).toBeUndefined();
  }
  return { items, totalCount };
}

describe('upgrading a database of the previous release (the deliveries’ index set, 0034)', () => {
  it('lists and replays each platform’s deliveries through the API in the order and with the results the previous release gave', async () => {
    await applyD1Migrations(db, upTo('0031_'));
    const p1 = await platformOf();
    const p2 = await platformOf();
    const one = deliveries(p1.id, 1, 11);
    const two = deliveries(p2.id, 2, 7);
    await db.batch([...one.statements, ...two.statements]);

    // What the previous release answered: its list statement (newest first by id), its totals (the maintained
    // counters: all and per status; an event's few rows counted; none by event type), and its replay's pick
    // (oldest first by creation time, then id), each over this data.
    const d = database(db);
    // The previous release's columns (the event's moved into its deliveries later, migration 0035).
    const { eventTimestamp: _t, eventData: _d, ...previous } = getTableColumns(webhookDeliveries);
    const listed = async (where: SQL) =>
      (await d.select(previous).from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id))).map((r) =>
        deliveryView({ ...r, eventTimestamp: null, eventData: null }),
      );
    const mine = (p: { id: string }) => eq(webhookDeliveries.platformId, p.id);
    const DUPLICATE_EVENT = one.seeded[4]!.eventId;
    const lists: [string, { id: string; auth: string }, SQL, boolean][] = [
      ['/webhooks/deliveries', p1, mine(p1), true],
      ['/webhooks/deliveries', p2, mine(p2), true],
      ...STATUSES.map((s): [string, typeof p1, SQL, boolean] => [
        `/webhooks/deliveries?status=${s}`,
        p1,
        and(mine(p1), eq(webhookDeliveries.status, s))!,
        true,
      ]),
      ...TYPES.map((t): [string, typeof p1, SQL, boolean] => [
        `/webhooks/deliveries?eventType=${t}`,
        p1,
        and(mine(p1), eq(webhookDeliveries.eventType, t))!,
        false,
      ]),
      [
        '/webhooks/deliveries?eventType=TEST&status=FAILED',
        p1,
        and(mine(p1), eq(webhookDeliveries.eventType, 'TEST'), eq(webhookDeliveries.status, 'FAILED'))!,
        false,
      ],
      [
        `/webhooks/deliveries?eventId=${encodeURIComponent(DUPLICATE_EVENT)}`,
        p1,
        and(mine(p1), eq(webhookDeliveries.eventId, DUPLICATE_EVENT))!,
        true,
      ],
      [
        `/webhooks/deliveries?eventId=${encodeURIComponent(DUPLICATE_EVENT)}`,
        p2,
        and(mine(p2), eq(webhookDeliveries.eventId, DUPLICATE_EVENT))!,
        true,
      ],
    ];
    const before = await Promise.all(lists.map(([, , where]) => listed(where)));
    expect(before[0]).toHaveLength(12);
    expect(before[1]).toHaveLength(8);
    expect(before.at(-2)).toHaveLength(2);
    // Another platform's event id finds nothing.
    expect(before.at(-1)).toEqual([]);
    // Each status and type of the first platform has rows, and the pair's two rows share their creation time.
    for (const rows of before.slice(2, 9)) expect(rows.length).toBeGreaterThan(0);
    expect(before.at(-2)!.map((r) => r.createdAt)).toEqual([before.at(-2)![0]!.createdAt, before.at(-2)![0]!.createdAt]);

    const at = (s: number) => new Date(T + 100 + s * 1000).toISOString();
    // Status filters first: a replay makes its rows PENDING, which only the later replays' status-free filters ignore.
    const replays: [{ id: string; auth: string }, Record<string, string>][] = [
      [p1, { status: 'FAILED' }],
      [p1, { type: 'INCOMING_PAYMENT.COMPLETED', status: 'DELIVERED' }],
      [p1, { status: 'SKIPPED', createdAfter: at(2), createdBefore: at(9) }],
      [p1, { type: 'OUTGOING_PAYMENT.COMPLETED' }],
      [p1, { type: 'TEST', createdBefore: at(6) }],
      [p1, { createdAfter: at(4), createdBefore: at(5) }],
      [p1, {}],
      [p2, { status: 'DELIVERED' }],
      [p2, { createdAfter: at(3) }],
    ];
    const picked = async (p: { id: string }, f: Record<string, string>) =>
      (
        await d
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(
            and(
              mine(p),
              f.type ? eq(webhookDeliveries.eventType, f.type) : undefined,
              f.status ? eq(webhookDeliveries.status, f.status as (typeof STATUSES)[number]) : undefined,
              f.createdAfter ? gte(webhookDeliveries.createdAt, Date.parse(f.createdAfter)) : undefined,
              f.createdBefore ? lt(webhookDeliveries.createdAt, Date.parse(f.createdBefore)) : undefined,
            ),
          )
          .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
      ).map((r) => r.id);
    // Each replay's pick before the upgrade, given the ones before it (they make their rows PENDING).
    const expectedReplays: string[][] = [];
    for (const [p, f] of replays) {
      const ids = await picked(p, f);
      expectedReplays.push(ids);
      for (const id of ids) await db.prepare(`UPDATE webhook_deliveries SET status = 'PENDING' WHERE id = ?`).bind(id).run();
    }
    // ...and undone: the upgrade meets the data as written.
    await db.prepare(`DELETE FROM webhook_deliveries`).run();
    await db.prepare(`DELETE FROM webhook_events`).run();
    await db.batch([...one.statements, ...two.statements]);
    expect(await Promise.all(lists.map(([, , where]) => listed(where)))).toEqual(before);
    for (const ids of expectedReplays) expect(ids.length).toBeGreaterThan(0);
    expect(expectedReplays[6]).toHaveLength(12);

    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    const indexes = (
      await db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries' AND sql IS NOT NULL ORDER BY name`,
        )
        .all<{ name: string }>()
    ).results.map((r) => r.name);
    expect(indexes).toEqual([
      'webhook_deliveries_event_idx',
      'webhook_deliveries_platform_created_idx',
      'webhook_deliveries_platform_status_created_idx',
      'webhook_deliveries_platform_type_created_idx',
      'webhook_deliveries_resource_idx',
      'webhook_deliveries_sweep_idx',
    ]);

    // The lists through the API, paged two and five at a time: the same items in the same order, the same totals.
    for (const [i, [path, p, , counted]] of lists.entries()) {
      for (const limit of [2, 5]) {
        const { items, totalCount } = await allPages(path, p.auth, limit);
        expect(items, `${path} (${p.id}) by ${limit}`).toEqual(before[i]);
        expect(totalCount, `${path} total`).toBe(counted ? before[i]!.length : undefined);
      }
    }
    // A cursor of the previous release (the id alone) is refused with a 400 in the error shape, not misread.
    const oldCursor = toBase64url(new TextEncoder().encode(JSON.stringify({ id: before[0]![1]!.id })));
    const refused = await upgraded('GET', `/webhooks/deliveries?limit=2&cursor=${oldCursor}`, p1.auth);
    expectError(refused, 400, 'INVALID_INPUT');
    expect(failingFields(refused)).toEqual(['cursor']);

    // The replays through the API: the same deliveries, oldest first, each platform only its own.
    for (const [i, [p, f]] of replays.entries()) {
      const res = await upgraded('POST', '/webhooks/deliveries/replay', p.auth, f);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body, JSON.stringify(f)).toEqual({ count: expectedReplays[i]!.length, deliveryIds: expectedReplays[i] });
    }
    const after = await upgraded('GET', '/webhooks/deliveries?status=PENDING&limit=100', p1.auth);
    expect(after.status).toBe(200);
    expect(after.body.data.map((r: { id: string }) => r.id)).toEqual(before[0]!.map((r) => r.id));
    expect(after.body.totalCount).toBe(12);
  });
});
