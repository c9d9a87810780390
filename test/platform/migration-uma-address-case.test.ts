import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

// Its own file: each test file gets fresh storage, so UPGRADE_DB starts empty here.

const customer = (id: string, platformId: string, umaAddress: string, createdAt: number, isDeleted = 0) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, uma_address, verification_status, info, is_deleted, created_at, updated_at)
     VALUES (?, ?, ?, 'INDIVIDUAL', ?, 'UNVERIFIED', '{}', ?, ?, ?)`,
  ).bind(`Customer:${id}`, `Platform:${platformId}`, `pc-${id}`, umaAddress, isDeleted, createdAt, createdAt);

const P1 = '0199b000-0000-7000-8000-0000000000a1';
const P2 = '0199b000-0000-7000-8000-0000000000a2';
const c = (n: number) => `0199b000-0000-7000-8000-00000000000${n}`;

describe('migration 0007 on a database of an earlier release', () => {
  it("keeps each case-insensitively shared UMA address for the platform's oldest active customer, moves the others to unique .invalid domains, then enforces it", async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0005_'));
    const T = Date.parse('2025-10-01T00:00:00Z');
    await env.UPGRADE_DB.batch([
      platform(P1, 'one.example', T),
      platform(P2, 'two.example', T),
      // Three spellings of one address; the oldest is not the lowest id, a tie on created_at is broken by id.
      customer(c(3), P1, '$Alice@one.example', T + 1),
      customer(c(1), P1, '$ALICE@one.example', T + 2),
      customer(c(2), P1, '$alice@one.example', T + 2),
      // A deleted customer is outside the index: it keeps its address and takes nothing from the living.
      customer(c(4), P1, '$alice@ONE.example', T, 1),
      // Another platform's customer with the same spelling, and an address nobody shares.
      customer(c(5), P2, '$alice@one.example', T + 3),
      customer(c(6), P1, '$bob@one.example', T + 3),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const { results } = await env.UPGRADE_DB.prepare(
      'SELECT id, uma_address AS umaAddress, created_at AS createdAt, updated_at AS updatedAt FROM customers ORDER BY id',
    ).all<{ id: string; umaAddress: string; createdAt: number; updatedAt: number }>();
    expect(Object.fromEntries(results.map((r) => [r.id, r.umaAddress]))).toEqual({
      [`Customer:${c(1)}`]: '$ALICE@dup-0199b000000070008000000000000001.invalid',
      [`Customer:${c(2)}`]: '$alice@dup-0199b000000070008000000000000002.invalid',
      [`Customer:${c(3)}`]: '$Alice@one.example',
      [`Customer:${c(4)}`]: '$alice@ONE.example',
      [`Customer:${c(5)}`]: '$alice@one.example',
      [`Customer:${c(6)}`]: '$bob@one.example',
    });
    // A moved customer shows that it changed.
    for (const r of results) expect(r.updatedAt > r.createdAt, r.id).toBe(r.umaAddress.endsWith('.invalid'));

    await expect(customer(c(7), P1, '$BOB@one.example', T + 4).run()).rejects.toThrow(/UNIQUE constraint failed/);
    await expect(customer(c(8), P1, '$aLiCe@one.example', T + 4).run()).rejects.toThrow(/UNIQUE constraint failed/);
    await customer(c(9), P1, '$carol@one.example', T + 4).run();
  });
});
