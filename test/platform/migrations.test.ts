import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

describe('migrations on a database of an earlier release', () => {
  it('0002 keeps each shared umaDomain for its oldest platform, moves the others to unique .invalid names, then enforces uniqueness', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0001_'));
    const T = Date.parse('2025-10-01T00:00:00Z');
    // Shared domains in any case, a tie on created_at broken by id, and a domain nobody shares.
    await env.UPGRADE_DB.batch([
      platform('0199a000-0000-7000-8000-000000000003', 'Shared.example', T + 2),
      platform('0199a000-0000-7000-8000-000000000001', 'shared.example', T + 1),
      platform('0199a000-0000-7000-8000-000000000002', 'SHARED.EXAMPLE', T + 1),
      platform('0199a000-0000-7000-8000-000000000005', 'tie.example', T),
      platform('0199a000-0000-7000-8000-000000000004', 'tie.example', T),
      platform('0199a000-0000-7000-8000-000000000006', 'alone.example', T),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const { results } = await env.UPGRADE_DB.prepare(
      'SELECT id, uma_domain AS umaDomain, updated_at AS updatedAt, created_at AS createdAt FROM platforms ORDER BY id',
    ).all<{ id: string; umaDomain: string; updatedAt: number; createdAt: number }>();
    expect(Object.fromEntries(results.map((r) => [r.id, r.umaDomain]))).toEqual({
      'Platform:0199a000-0000-7000-8000-000000000001': 'shared.example',
      'Platform:0199a000-0000-7000-8000-000000000002': 'dup-0199a000000070008000000000000002.invalid',
      'Platform:0199a000-0000-7000-8000-000000000003': 'dup-0199a000000070008000000000000003.invalid',
      'Platform:0199a000-0000-7000-8000-000000000004': 'tie.example',
      'Platform:0199a000-0000-7000-8000-000000000005': 'dup-0199a000000070008000000000000005.invalid',
      'Platform:0199a000-0000-7000-8000-000000000006': 'alone.example',
    });
    // A renamed platform's config shows that it changed.
    for (const r of results) expect(r.updatedAt > r.createdAt, r.id).toBe(r.umaDomain.endsWith('.invalid'));

    await expect(platform('0199a000-0000-7000-8000-000000000007', 'ALONE.example', T).run()).rejects.toThrow(/UNIQUE constraint failed/);
    await platform('0199a000-0000-7000-8000-000000000008', 'fresh.example', T).run();
  });
});
