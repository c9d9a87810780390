import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { apiTokens } from '../../src/db/schema';
import { database } from '../../src/db/client';
import { newToken } from '../../src/platform/tokens-service';
import { basic, OPERATOR, workerApi } from '../support/api';
import { platform, upTo } from '../support/migrations';

// A database of the release before a move kept its progress (migrations up to 0037), holding a platform whose
// move stopped after that release copied it: the copy in the target has no progress, so the move, asked again
// after the upgrade, deletes it and copies again, with nothing doubled.

const T = Date.parse('2026-11-20T00:00:00Z');
const db = env.UPGRADE_DB;
const upgraded = (method: string, path: string, opts: { auth?: string; body?: unknown } = {}) => workerApi(method, path, { DB: db }, opts);

describe('upgrading a database with a move under way (0038)', () => {
  it('finishes the move: one copy in the new home, the credentials working through their forward', async () => {
    await applyD1Migrations(db, upTo('0037'));
    const uuid = '0195b000-0000-7000-8000-000000000001';
    const id = `Platform:${uuid}`;
    const domain = `moving-${crypto.randomUUID()}.platform.test`;
    const token = newToken(id, 'DB', 'Initial token', ['VIEW', 'TRANSACT', 'MANAGE'], T);
    await platform(uuid, domain, T).run();
    await database(db).insert(apiTokens).values(token.row);
    // That release's move, stopped after its copy: held, the directory naming the target, the rows in DB_2.
    await db.batch([
      db.prepare("INSERT INTO platform_homes (platform_id, home, uma_domain, moving_to) VALUES (?, 'DB', ?, 'DB_2')").bind(id, domain),
      db.prepare('UPDATE platforms SET held_since = ? WHERE id = ?').bind(T, id),
    ]);
    const row = await db.prepare('SELECT * FROM platforms WHERE id = ?').bind(id).first<Record<string, unknown>>();
    const columns = Object.keys(row!);
    await env
      .DB_2!.prepare(`INSERT INTO platforms (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
      .bind(...columns.map((c) => row![c]))
      .run();
    await database(env.DB_2!).insert(apiTokens).values(token.row);

    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    const moved = await upgraded('POST', `/operator/platforms/${id}/move`, { auth: OPERATOR, body: { home: 'DB_2' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ platformId: id, home: 'DB_2', from: 'DB', done: true });

    const count = async (d: D1Database, sql: string) => (await d.prepare(sql).bind(id).first<{ n: number }>())!.n;
    expect(await count(env.DB_2!, 'SELECT count(*) AS n FROM platforms WHERE id = ?')).toBe(1);
    expect(await count(env.DB_2!, 'SELECT count(*) AS n FROM api_tokens WHERE platform_id = ?')).toBe(1);
    expect(await count(db, 'SELECT count(*) AS n FROM platforms WHERE id = ?')).toBe(0);
    // Its token (no home mark) reaches the old home, whose forward leads to the new one; writes go through again.
    const auth = basic(token.view.clientId, token.view.clientSecret);
    const config = await upgraded('GET', '/config', { auth });
    expect(config.status, JSON.stringify(config.body)).toBe(200);
    expect(config.body.umaDomain).toBe(domain);
    const made = await upgraded('POST', '/tokens', { auth, body: { name: 'after', permissions: ['VIEW'] } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.clientId).toMatch(/\.2$/);
  });
});
