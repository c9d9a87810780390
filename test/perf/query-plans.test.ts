import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newPlatform, type TestPlatform } from '../support/api';
import { newAgent, type TestAgent } from '../support/agents';
import { customerWithAccounts } from '../support/payments';
import { measured } from './counting';

/**
 * Every list query is served by an index: SQLite's plan (EXPLAIN QUERY PLAN) of each statement a list request
 * runs never scans a table (a tenant-wide read) and never sorts the page in a temporary B-tree. A case's `uses`
 * names the columns its filter must constrain in an index search (`status=?`), so an index that merely starts
 * with the platform (and walks the whole tenant to find the filter's rows) does not pass.
 */
interface Case {
  path: string;
  /** `table: column` pairs the plan must search by (`SEARCH table USING … (… column=? …)`). */
  uses?: [string, string][];
  /** Who calls: the platform (default) or its customer's agent (`/agents/me/…`). */
  as?: 'agent';
}

const UMA = encodeURIComponent('$Alice@Example.test');
const DAY = encodeURIComponent('2025-10-01T00:00:00Z');
/** An account identifier is an account id or a UMA address of either end: four indexed branches. */
const ENDS: [string, string][] = [
  ['transactions', 'source_account_id'],
  ['transactions', 'destination_account_id'],
  ['transactions', 'sender_uma_lc'],
  ['transactions', 'receiver_uma_lc'],
];

/** Filled per list; `{customer}` and `{account}` are replaced by a real customer's ids, `{platform}` by the platform's. */
const CASES: Case[] = [
  { path: '/customers' },
  { path: '/transactions?status=FAILED', uses: [['transactions', 'status']] },
  { path: '/transactions' },
  { path: '/transactions?sortOrder=asc' },
  { path: '/transactions?customerId={customer}', uses: [['transactions', 'customer_id']] },
  { path: '/transactions?customerId={platform}', uses: [['transactions', 'customer_id']] },
  { path: '/transactions?platformCustomerId=pc-1', uses: [['transactions', 'platform_customer_id']] },
  { path: '/transactions?accountIdentifier={account}', uses: ENDS },
  { path: `/transactions?accountIdentifier=${UMA}&sortOrder=asc`, uses: ENDS },
  { path: '/transactions?senderAccountIdentifier={account}', uses: [ENDS[0]!, ENDS[2]!] },
  { path: `/transactions?receiverAccountIdentifier=${UMA}`, uses: [ENDS[1]!, ENDS[3]!] },
  { path: '/transactions?accountIdentifier={account}&status=COMPLETED&type=OUTGOING', uses: ENDS },
  { path: '/transactions?status=COMPLETED&sortOrder=asc', uses: [['transactions', 'status']] },
  { path: '/transactions?type=INCOMING', uses: [['transactions', 'type']] },
  { path: '/transactions?reference=UMA-123', uses: [['transactions', 'reference']] },
  { path: `/transactions?startDate=${DAY}`, uses: [['transactions', 'created_at']] },
  { path: `/transactions?endDate=${DAY}&sortOrder=asc`, uses: [['transactions', 'created_at']] },
  { path: '/agents/me/transactions', as: 'agent', uses: [['transactions', 'customer_id']] },
  { path: '/agents/me/transactions?status=PENDING&sortOrder=asc', as: 'agent' },
  { path: '/agents/me/transactions?accountIdentifier={account}', as: 'agent', uses: ENDS },
  { path: '/quotes' },
  { path: '/quotes?customerId={customer}', uses: [['quotes', 'customer_id']] },
  { path: '/quotes?customerId={platform}', uses: [['quotes', 'customer_id']] },
  { path: '/quotes?sendingAccountId={account}', uses: [['quotes', 'source_account_id']] },
  { path: '/quotes?receivingAccountId={account}', uses: [['quotes', 'receiving_account_id']] },
  { path: `/quotes?sendingUmaAddress=${UMA}`, uses: [['quotes', 'sending_uma_lc']] },
  { path: `/quotes?receivingUmaAddress=${UMA}`, uses: [['quotes', 'receiving_uma_lc']] },
  { path: '/quotes?status=PENDING', uses: [['quotes', 'status']] },
  { path: '/quotes?status=EXPIRED', uses: [['quotes', 'status']] },
  { path: '/quotes?status=FAILED', uses: [['quotes', 'status']] },
  { path: `/quotes?createdAfter=${DAY}`, uses: [['quotes', 'created_at']] },
  { path: `/quotes?createdBefore=${DAY}`, uses: [['quotes', 'created_at']] },
];

/** Plan lines that read a whole table (or a whole index) or sort outside an index. */
function badLines(plan: { detail: string }[]): string[] {
  return plan
    .map((row) => row.detail)
    .filter((d) => /^SCAN (?!CONSTANT ROW)(?!json_each)(?!\(subquery)/.test(d) || /USE TEMP B-TREE/.test(d));
}

async function planOf(query: string, params: unknown[]) {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results;
}

describe('list queries are served by indexes', () => {
  let p: TestPlatform;
  let ids: Record<string, string>;
  let agent: TestAgent;
  beforeAll(async () => {
    p = await newPlatform();
    const c = await customerWithAccounts(p);
    ids = { customer: c.customer.id, account: c.accounts.USD!, platform: p.id };
    agent = await newAgent({ p });
  });

  for (const c of CASES) {
    it(c.path, async () => {
      const path = c.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
      const res = await measured('GET', path, { auth: c.as === 'agent' ? agent.bearer : p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const lines: string[] = [];
      for (const s of res.cost.sql.filter((s) => /^\s*select/i.test(s.query))) {
        const plan = await planOf(s.query, s.params);
        for (const bad of badLines(plan)) lines.push(`${bad}  <-  ${s.query}`);
        for (const [table, column] of c.uses ?? []) {
          if (!new RegExp(`\\b${table}\\b`).test(s.query)) continue;
          const searched = plan.some((r) => new RegExp(`^SEARCH ${table}\\b.*\\b${column}[=<>]`).test(r.detail));
          if (!searched) lines.push(`no index search on ${table}.${column}  <-  ${s.query}`);
        }
      }
      expect(lines).toEqual([]);
    });
  }
});
