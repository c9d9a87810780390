import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, newPlatform } from '../support/api';
import { consume, fakeEndpoint, hookUrl, writeEvent } from '../support/webhooks';

// Its own file: it turns this file's database (each test file has its own storage) back into the previous
// release's webhook events, as an upgrade finds them, and serves the API from it.

const count = async (sql: string) => (await env.DB.prepare(sql).first<{ n: number }>())!.n;

/** The previous release's events: each in its own webhook_events row, the deliveries without it, 0035 not applied. */
async function backToEventRows() {
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO webhook_events (id, platform_id, type, timestamp, data)
       SELECT event_id, platform_id, event_type, min(event_timestamp), min(event_data) FROM webhook_deliveries GROUP BY event_id`,
    ),
    env.DB.prepare('ALTER TABLE webhook_deliveries DROP COLUMN event_timestamp'),
    env.DB.prepare('ALTER TABLE webhook_deliveries DROP COLUMN event_data'),
    env.DB.prepare(`DELETE FROM d1_migrations WHERE name LIKE '0035\\_%' ESCAPE '\\'`),
  ]);
}

describe('upgrading to events carried by their deliveries (0035)', () => {
  it('delivers, lists and resends the events written before as they were, and writes new ones into their deliveries', async () => {
    const url = hookUrl();
    const hook = fakeEndpoint(url, () => 200);
    const p = await newPlatform({ webhookEndpoint: url });
    const t = Date.now();
    // One event sent before the upgrade, one still waiting for its first attempt.
    const sent = await writeEvent(p.id, t, 'OUTGOING_PAYMENT.COMPLETED', { id: 'Transaction:a', amount: 1 });
    const waiting = await writeEvent(p.id, t + 1, 'INCOMING_PAYMENT.COMPLETED', { id: 'Transaction:b', amount: 2 });
    await consume({ type: 'webhook.deliver', eventId: sent });
    expect(hook.calls).toHaveLength(1);
    const firstBody = hook.calls[0]!.body;
    const listed = await api('GET', '/webhooks/deliveries', { auth: p.auth });
    expect(listed.status).toBe(200);

    await backToEventRows();
    expect(await count('SELECT count(*) AS n FROM webhook_events')).toBe(2);
    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
    expect(await count('SELECT count(*) AS n FROM webhook_deliveries WHERE event_data IS NOT NULL')).toBe(0);

    // The list reads as before; the waiting event goes out with its data from its old row.
    expect(await api('GET', '/webhooks/deliveries', { auth: p.auth })).toMatchObject({ status: 200, body: listed.body });
    await consume({ type: 'webhook.deliver', eventId: waiting });
    expect(hook.calls).toHaveLength(2);
    expect(JSON.parse(hook.calls[1]!.body)).toEqual({
      id: waiting,
      type: 'INCOMING_PAYMENT.COMPLETED',
      timestamp: new Date(t + 1).toISOString(),
      data: { id: 'Transaction:b', amount: 2 },
    });
    // A resend of the one sent before sends its very bytes again.
    const [delivery] = listed.body.data.filter((d: { eventId: string }) => d.eventId === sent);
    const resent = await api('POST', `/webhooks/deliveries/${delivery.id}/resend`, { auth: p.auth });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(hook.calls[2]!.body).toBe(firstBody);

    // A new event is written into its delivery alone.
    const fresh = await writeEvent(p.id, t + 2, 'OUTGOING_PAYMENT.COMPLETED', { id: 'Transaction:c' });
    expect(await count(`SELECT count(*) AS n FROM webhook_events WHERE id = '${fresh}'`)).toBe(0);
    await consume({ type: 'webhook.deliver', eventId: fresh });
    expect(JSON.parse(hook.calls[3]!.body)).toMatchObject({ id: fresh, data: { id: 'Transaction:c' } });
  });
});
