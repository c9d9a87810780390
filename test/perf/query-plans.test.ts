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
  /** A full-text table the plan must query by MATCH (`SCAN table VIRTUAL TABLE INDEX n:M…`), not walk. */
  match?: string;
}

/** Filled per list; `{customer}` and `{account}` are replaced by a real customer's ids. */
const CASES: Case[] = [
  { path: '/customers' },
  { path: '/customers?isIncludingDeleted=true' },
  { path: '/customers?platformCustomerId=p-1', uses: [['customers', 'platform_customer_id']] },
  { path: '/customers?platformCustomerId=p-1&isIncludingDeleted=true', uses: [['customers', 'platform_customer_id']] },
  { path: '/customers?customerType=BUSINESS', uses: [['customers', 'customer_type']] },
  { path: '/customers?customerType=INDIVIDUAL&isIncludingDeleted=true', uses: [['customers', 'customer_type']] },
  { path: '/customers?region=US', uses: [['customers', 'region']] },
  { path: '/customers?umaAddress=%24p-1%40x.test', uses: [['customers', '<expr>']] },
  { path: '/customers?umaAddress=%24p-1%40x.test&isIncludingDeleted=true', uses: [['customers', '<expr>']] },
  { path: '/customers?currency=EUR', uses: [['customer_currencies', 'currency']] },
  { path: '/customers?createdAfter=2020-01-01T00:00:00Z', uses: [['customers', 'created_at']] },
  { path: '/customers?createdBefore=2099-01-01T00:00:00Z', uses: [['customers', 'created_at']] },
  { path: '/customers?updatedAfter=2020-01-01T00:00:00Z', uses: [['customers', 'updated_at']] },
  { path: '/customers?updatedBefore=2099-01-01T00:00:00Z&isIncludingDeleted=true', uses: [['customers', 'updated_at']] },
  { path: '/customers?search=smith', match: 'customer_search' },
  { path: '/customers?search=smith&customerType=INDIVIDUAL&isIncludingDeleted=true', match: 'customer_search' },
  { path: '/transactions?status=FAILED', uses: [['transactions', 'status']] },
];

/** Plan lines that read a whole table (or a whole index) or sort outside an index. */
function badLines(plan: { detail: string }[]): string[] {
  return plan
    .map((row) => row.detail)
    .filter(
      (d) =>
        (/^SCAN (?!CONSTANT ROW)(?!json_each)(?!\(subquery)/.test(d) && !/ VIRTUAL TABLE INDEX \d+:M/.test(d)) || /USE TEMP B-TREE/.test(d),
    );
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
          // `<expr>`: an expression index's key, such as lower(uma_address).
          const searched = plan.some((r) => new RegExp(`^SEARCH ${table}\\b.*(?<!\\w)${column}[=<>]`).test(r.detail));
          if (!searched) lines.push(`no index search on ${table}.${column}  <-  ${s.query}`);
        }
        if (c.match && new RegExp(`\\b${c.match}\\b`).test(s.query)) {
          if (!plan.some((r) => new RegExp(`^SCAN ${c.match} VIRTUAL TABLE INDEX \\d+:M`).test(r.detail)))
            lines.push(`no full-text match on ${c.match}  <-  ${s.query}`);
        }
      }
      if (c.match && !res.cost.sql.some((s) => new RegExp(`\\b${c.match}\\b`).test(s.query))) {
        lines.push(`no statement reads ${c.match}`);
      }
      expect(lines).toEqual([]);
    });
  }
});
