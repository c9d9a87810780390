import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newPlatform, type TestPlatform } from '../support/api';
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
}

/** Filled per list; `{customer}` and `{account}` are replaced by a real customer's ids. */
const CASES: Case[] = [
  { path: '/customers' },
  { path: '/transactions?status=FAILED', uses: [['transactions', 'status']] },
  { path: '/webhooks/deliveries' },
  { path: '/webhooks/deliveries?status=PENDING', uses: [['webhook_deliveries', 'status']] },
  { path: '/webhooks/deliveries?status=DELIVERED', uses: [['webhook_deliveries', 'status']] },
  { path: '/webhooks/deliveries?eventType=TEST', uses: [['webhook_deliveries', 'event_type']] },
  { path: '/webhooks/deliveries?eventId=Webhook%3Anone', uses: [['webhook_deliveries', 'event_id']] },
  { path: '/webhooks/deliveries?status=FAILED&eventType=TEST', uses: [['webhook_deliveries', 'event_type']] },
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
  beforeAll(async () => {
    p = await newPlatform();
    const c = await customerWithAccounts(p);
    ids = { customer: c.customer.id, account: c.accounts.USD! };
  });

  for (const c of CASES) {
    it(c.path, async () => {
      const path = c.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
      const res = await measured('GET', path, { auth: p.auth });
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
