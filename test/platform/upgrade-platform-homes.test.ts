import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { apiTokens } from '../../src/db/schema';
import { database } from '../../src/db/client';
import { newToken } from '../../src/platform/tokens-service';
import { basic, expectError, OPERATOR, workerApi } from '../support/api';
import { platform, upTo } from '../support/migrations';

// A database of the release before homes (migrations up to 0036) becomes the first home, with all its platforms,
// by applying the migrations: nothing to do by hand.

const T = Date.parse('2026-11-01T00:00:00Z');
const db = env.UPGRADE_DB;
const upgraded = (method: string, path: string, opts: { auth?: string; body?: unknown } = {}) => workerApi(method, path, { DB: db }, opts);

describe('upgrading a database of the previous release (homes, 0037)', () => {
  it('becomes the first home: its platforms and their credentials work, the list and its count are the directory’s', async () => {
    await applyD1Migrations(db, upTo('0036'));
    const seeded = [];
    for (const n of [1, 2]) {
      const id = `0195a000-0000-7000-8000-00000000000${n}`;
      const domain = `old-${n}-${crypto.randomUUID()}.platform.test`;
      const token = newToken(`Platform:${id}`, 'DB', 'Initial token', ['VIEW', 'TRANSACT', 'MANAGE'], T);
      await platform(id, domain, T + n).run();
      await database(db).insert(apiTokens).values(token.row);
      seeded.push({ id: `Platform:${id}`, domain, auth: basic(token.view.clientId, token.view.clientSecret) });
    }
    // That release counted its platforms with triggers on the platforms table.
    const counted = () => db.prepare(`SELECT n FROM list_counts WHERE platform_id = '*' AND list = 'platforms'`).first<{ n: number }>();
    expect((await counted())?.n).toBe(2);

    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    const directory = await db.prepare('SELECT platform_id, home, uma_domain FROM platform_homes ORDER BY platform_id').all();
    expect(directory.results).toEqual(seeded.map((s) => ({ platform_id: s.id, home: 'DB', uma_domain: s.domain })));

    // Their tokens (no home mark) reach the first home, as before.
    for (const s of seeded) {
      const config = await upgraded('GET', '/config', { auth: s.auth });
      expect(config.status, JSON.stringify(config.body)).toBe(200);
      expect(config.body.umaDomain).toBe(s.domain);
    }
    const list = await upgraded('GET', '/operator/platforms', { auth: OPERATOR });
    expect(list.status).toBe(200);
    expect(list.body.totalCount).toBe(2);
    expect(list.body.data.map((p: { id: string; home: string }) => [p.id, p.home])).toEqual(seeded.map((s) => [s.id, 'DB']));

    // Their UMA domains are taken in every home; a new platform in the second home is counted and listed with them.
    expectError(
      await upgraded('POST', '/operator/platforms', {
        auth: OPERATOR,
        body: { name: 'n', umaDomain: seeded[0]!.domain.toUpperCase(), home: 'DB_2' },
      }),
      409,
      'CONFLICT',
      'UMA_DOMAIN_TAKEN',
    );
    const created = await upgraded('POST', '/operator/platforms', {
      auth: OPERATOR,
      body: { name: 'new', umaDomain: `new-${crypto.randomUUID()}.platform.test`, home: 'DB_2' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const after = await upgraded('GET', '/operator/platforms', { auth: OPERATOR });
    expect(after.body.totalCount).toBe(3);
    expect(after.body.data.map((p: { id: string }) => p.id)).toContain(created.body.platform.id);
    expect((await counted())?.n).toBe(3);
    // The count follows the directory now, not a home's platforms table.
    const triggers = (
      await db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'platform%counts%'`).all<{ name: string }>()
    ).results
      .map((r) => r.name)
      .sort();
    expect(triggers).toEqual(['platform_homes_counts_delete', 'platform_homes_counts_insert']);
  });
});
