// insertSelect (src/db/insert-select.ts): one row in the table's column order, stored as drizzle stores it.
import { env } from 'cloudflare:test';
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { insertSelect } from '../../src/db/insert-select';
import { agentActions, type AgentActionRow } from '../../src/db/schema';

const db = () => database(env.DB);
let n = 0;
const action = (over: Partial<AgentActionRow> = {}): AgentActionRow => ({
  id: `AgentAction:insert-select-${Date.now()}-${n++}`,
  platformId: 'Platform:insert-select',
  agentId: 'Agent:insert-select',
  customerId: 'Customer:insert-select',
  type: 'TRANSFER_OUT',
  status: 'APPROVED',
  quoteId: null,
  transferDetails: { amount: 2_500, currency: 'USD', sourceAccountId: 'InternalAccount:a', destinationAccountId: 'ExternalAccount:b' },
  request: { amount: 2_500, nested: { ok: true } },
  transactionId: null,
  rejectionReason: null,
  failureReason: null,
  policyAmount: 2_500,
  counted: true,
  day: '2026-11-27',
  month: '2026-11',
  createdAt: 1_000,
  updatedAt: 2_000,
  ...over,
});
const read = (ids: string[]) => db().select().from(agentActions).where(inArray(agentActions.id, ids));

describe('insertSelect', () => {
  it('writes the row only where the tail holds, JSON and booleans as the table stores them', async () => {
    const kept = action();
    const dropped = action();
    await db().batch([insertSelect(db(), agentActions, kept, sql`WHERE 1`), insertSelect(db(), agentActions, dropped, sql`WHERE 0`)]);
    expect(await read([kept.id, dropped.id])).toEqual([kept]);
    // Stored as drizzle's own insert stores them: JSON as text, a boolean as 0/1.
    const raw = await env.DB.prepare('SELECT transfer_details, request, counted FROM agent_actions WHERE id = ?').bind(kept.id).first();
    expect(raw).toEqual({ transfer_details: JSON.stringify(kept.transferDetails), request: JSON.stringify(kept.request), counted: 1 });
  });

  it('takes a missing value from the column default, and SQL values from what the tail reads', async () => {
    const first = action();
    await insertSelect(db(), agentActions, first, sql`WHERE 1`);
    const { counted: _omitted, ...withoutCounted } = action({ customerId: 'Customer:other' });
    const copy = { ...withoutCounted, customerId: agentActions.customerId, policyAmount: sql`${agentActions.policyAmount} + 1` };
    await insertSelect(db(), agentActions, copy, sql`FROM ${agentActions} WHERE ${eq(agentActions.id, first.id)}`);
    const [row] = await read([copy.id]);
    expect(row).toMatchObject({ customerId: first.customerId, policyAmount: first.policyAmount + 1, counted: false });
  });
});
