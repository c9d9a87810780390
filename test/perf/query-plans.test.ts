import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, newPlatform, OPERATOR, type TestPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import { customerWithAccounts, externalAccount } from '../support/payments';
import { sql, type SQL } from 'drizzle-orm';
import { webhookDeliveries } from '../../src/db/schema';
import { pendingApprovalRequests } from '../../src/payments/incoming-approval';
import { deliveriesAbout } from '../../src/webhooks/outbox';
import { database } from '../../src/db/client';
import { PLATFORM_DATA } from '../../src/db/platform-data';
import { copyPage, movedTables } from '../../src/platform/move';
import { measured } from './counting';
import { deliverEvents } from '../../src/webhooks/delivery';
import { newMeter, withMeter, type Meter } from '../../src/db/meter';
import { deps, fakeEndpoint, hookUrl, writeEvent } from '../support/webhooks';

/**
 * Every list query is served by an index: SQLite's plan (EXPLAIN QUERY PLAN) of each statement a list request
 * runs never scans a table (a tenant-wide read) and never sorts the page in a temporary B-tree. Ordering the rows
 * of one index key by the tiebreaker as they are read is allowed ("FOR RIGHT PART" or "FOR LAST TERM OF ORDER
 * BY": the transaction and quote indexes end at created_at, and rows of one millisecond are ordered by id as
 * they are read). A case's `uses`
 * names the columns its filter must constrain in an index search (`status=?`), so an index that merely starts
 * with the platform (and walks the whole tenant to find the filter's rows) does not pass.
 */
interface Case {
  path: string;
  /** `table: column` pairs the plan must search by (`SEARCH table USING … (… column=? …)`). */
  uses?: [string, string][];
  /** Who calls: the platform's token (default), the agent's bearer (`/agents/me/...`) or the operator. */
  as?: 'agent' | 'operator';
  /**
   * Service-wide tables (no platform to search by) whose walk the plan may show: the page reads them in its
   * index's order up to its limit; `uma_providers` is also counted whole under a region or currency filter (a
   * small directory, not a tenant's data).
   */
  scans?: string[];
  /** A full-text table the plan must query by MATCH (`SCAN table VIRTUAL TABLE INDEX n:M…`), not walk. */
  match?: string;
}

/**
 * Columns of ids the money tables index by key (src/db/id-key.ts): the plan shows such a search as `<expr>=?`, so
 * the case names the index, searched by the platform's key and the id's (`(<expr>=? AND <expr>=?`).
 */
const KEYED: Record<string, string> = {
  'transactions.customer_id': 'transactions_customer_idx',
  'transactions.source_account': 'transactions_source_account_idx',
  'transactions.destination_account': 'transactions_destination_account_idx',
  'quotes.customer': 'quotes_customer_idx',
  'quotes.source_account': 'quotes_source_account_idx',
  'quotes.receiving_account_id': 'quotes_receiving_account_idx',
};

const D = '2020-01-01T00:00:00Z';
const UMA = encodeURIComponent('$Alice@Example.test');
const DAY = encodeURIComponent('2025-10-01T00:00:00Z');
/** An account identifier is an account id or a UMA address of either end: four indexed branches. */
const ENDS: [string, string][] = [
  ['transactions', 'source_account'],
  ['transactions', 'destination_account'],
  ['transactions', 'sender_uma_lc'],
  ['transactions', 'receiver_uma_lc'],
];

/** Filled per list; `{customer}`, `{account}`, `{agent}` and `{platform}` are replaced by real ids. */
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
  { path: '/quotes?customerId={customer}', uses: [['quotes', 'customer']] },
  { path: '/quotes?customerId={platform}', uses: [['quotes', 'customer']] },
  { path: '/quotes?sendingAccountId={account}', uses: [['quotes', 'source_account']] },
  { path: '/quotes?receivingAccountId={account}', uses: [['quotes', 'receiving_account_id']] },
  { path: `/quotes?sendingUmaAddress=${UMA}`, uses: [['quotes', 'sending_uma_lc']] },
  { path: `/quotes?receivingUmaAddress=${UMA}`, uses: [['quotes', 'receiving_uma_lc']] },
  { path: '/quotes?status=PENDING', uses: [['quotes', 'status']] },
  { path: '/quotes?status=EXPIRED', uses: [['quotes', 'status']] },
  { path: '/quotes?status=FAILED', uses: [['quotes', 'status']] },
  { path: `/quotes?createdAfter=${DAY}`, uses: [['quotes', 'created_at']] },
  { path: `/quotes?createdBefore=${DAY}`, uses: [['quotes', 'created_at']] },
  // Tokens, agents and approvals: a date range pages in that date's order, from an index on it.
  { path: '/tokens' },
  { path: '/tokens?name=x', uses: [['api_tokens', 'name']] },
  { path: `/tokens?createdAfter=${D}`, uses: [['api_tokens', 'created_at']] },
  { path: `/tokens?createdBefore=${D}`, uses: [['api_tokens', 'created_at']] },
  { path: `/tokens?updatedAfter=${D}`, uses: [['api_tokens', 'updated_at']] },
  { path: `/tokens?updatedBefore=${D}`, uses: [['api_tokens', 'updated_at']] },
  { path: '/agents' },
  { path: '/agents?customerId={customer}', uses: [['agents', 'customer_id']] },
  { path: '/agents?isPaused=true', uses: [['agents', 'is_paused']] },
  { path: '/agents?isConnected=false', uses: [['agents', 'is_connected']] },
  { path: `/agents?createdAfter=${D}`, uses: [['agents', 'created_at']] },
  { path: `/agents?createdBefore=${D}`, uses: [['agents', 'created_at']] },
  { path: `/agents?updatedAfter=${D}`, uses: [['agents', 'updated_at']] },
  { path: `/agents?updatedBefore=${D}`, uses: [['agents', 'updated_at']] },
  { path: '/agents/approvals', uses: [['agent_actions', 'status']] },
  { path: '/agents/approvals?sortOrder=asc', uses: [['agent_actions', 'status']] },
  { path: '/agents/approvals?agentId={agent}', uses: [['agent_actions', 'agent_id']] },
  { path: '/agents/approvals?customerId={customer}', uses: [['agent_actions', 'customer_id']] },
  { path: `/agents/approvals?startDate=${D}`, uses: [['agent_actions', 'created_at']] },
  { path: `/agents/approvals?endDate=${D}&sortOrder=asc`, uses: [['agent_actions', 'created_at']] },
  { path: '/agents/me/actions', as: 'agent', uses: [['agent_actions', 'agent_id']] },
  { path: '/agents/me/actions?status=APPROVED', as: 'agent', uses: [['agent_actions', 'status']] },
  { path: '/agents/me/internal-accounts', as: 'agent', uses: [['internal_accounts', 'customer_id']] },
  { path: '/agents/me/internal-accounts?currency=USD', as: 'agent', uses: [['internal_accounts', 'customer_id']] },
  { path: '/agents/me/internal-accounts?type=INTERNAL_FIAT', as: 'agent', uses: [['internal_accounts', 'customer_id']] },
  { path: '/agents/me/external-accounts', as: 'agent', uses: [['external_accounts', 'customer_id']] },
  { path: '/agents/me/external-accounts?currency=USD', as: 'agent', uses: [['external_accounts', 'currency']] },
  // External and internal accounts.
  { path: '/customers/external-accounts' },
  { path: '/customers/external-accounts?customerId={customer}', uses: [['external_accounts', 'customer_id']] },
  { path: '/customers/external-accounts?currency=USD', uses: [['external_accounts', 'currency']] },
  { path: '/platform/external-accounts', uses: [['external_accounts', 'customer_id']] },
  { path: '/platform/external-accounts?currency=USD', uses: [['external_accounts', 'currency']] },
  { path: '/customers/internal-accounts' },
  { path: '/customers/internal-accounts?customerId={customer}', uses: [['internal_accounts', 'customer_id']] },
  { path: '/customers/internal-accounts?currency=USD', uses: [['internal_accounts', 'currency']] },
  { path: '/customers/internal-accounts?type=INTERNAL_FIAT', uses: [['internal_accounts', 'type']] },
  { path: '/platform/internal-accounts', uses: [['internal_accounts', 'customer_id']] },
  { path: '/platform/internal-accounts?currency=USD', uses: [['internal_accounts', 'customer_id']] },
  // KYC and documents.
  { path: '/beneficial-owners?customerId={customer}', uses: [['beneficial_owners', 'customer_id']] },
  { path: '/verifications' },
  { path: '/verifications?customerId={customer}', uses: [['verifications', 'customer_id']] },
  { path: '/verifications?verificationStatus=APPROVED', uses: [['verifications', 'verification_status']] },
  { path: '/documents' },
  // Invitations: the platform's own, newest first.
  { path: '/invitations', uses: [['invitations', 'platform_id']] },
  { path: '/invitations?limit=5' },
  { path: '/documents?documentHolder={customer}', uses: [['documents', 'document_holder']] },
  { path: '/sandbox/emails' },
  { path: '/sandbox/emails?to=a%40example.com', uses: [['sandbox_emails', 'to_address']] },
  // Receiver look-ups (not lists, but their sender is found by UMA address as well as by id).
  { path: '/receiver/uma/%24success.usd%40sandbox.uma.test?senderUmaAddress={sender}', uses: [['customers', '<expr>']] },
  { path: '/receiver/external-account/{external}?customerId={customer}' },
  // Service-wide lists.
  // The directory's page (the platforms' rows are then read by id in their homes).
  { path: '/operator/platforms', as: 'operator', scans: ['platform_homes'] },
  { path: '/uma-providers', scans: ['uma_providers'] },
  { path: '/uma-providers?sortOrder=asc', scans: ['uma_providers'] },
  { path: '/uma-providers?hasBlockedProviders=false', scans: ['uma_providers'] },
  { path: '/uma-providers?countryCode=US', scans: ['uma_providers'] },
  { path: '/uma-providers?currencyCode=USD', scans: ['uma_providers'] },
  { path: '/webhooks/deliveries' },
  { path: '/webhooks/deliveries?status=PENDING', uses: [['webhook_deliveries', 'status']] },
  { path: '/webhooks/deliveries?status=DELIVERED', uses: [['webhook_deliveries', 'status']] },
  { path: '/webhooks/deliveries?eventType=TEST', uses: [['webhook_deliveries', 'event_type']] },
  { path: '/webhooks/deliveries?eventId=Webhook%3Anone', uses: [['webhook_deliveries', 'event_id']] },
  { path: '/webhooks/deliveries?status=FAILED&eventType=TEST', uses: [['webhook_deliveries', 'event_type']] },
];

/** Plan lines that read a whole table (or a whole index) or sort outside an index. */
function badLines(plan: { detail: string }[], scans: string[] = []): string[] {
  return plan
    .map((row) => row.detail)
    .filter(
      (d) =>
        (/^SCAN (?!CONSTANT ROW)(?!json_each)(?!\(subquery)/.test(d) && !/ VIRTUAL TABLE INDEX \d+:M/.test(d)) ||
        /USE TEMP B-TREE(?! FOR (RIGHT PART|LAST TERM) OF ORDER BY)/.test(d),
    )
    .filter((d) => !scans.some((table) => new RegExp(`^SCAN ${table}\\b`).test(d)));
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
  let auth: Record<'platform' | 'agent' | 'operator', string>;
  beforeAll(async () => {
    p = await newPlatform();
    const c = await customerWithAccounts(p);
    const agent = await newAgent({ p });
    const external = await externalAccount(p, c.customer.id, 'EUR', '123');
    ids = {
      customer: c.customer.id,
      account: c.accounts.USD!,
      agent: agent.agentId,
      platform: p.id,
      sender: c.customer.umaAddress,
      external,
    };
    auth = { platform: p.auth, agent: agent.bearer, operator: OPERATOR };
  });

  for (const c of CASES) {
    it(c.path, async () => {
      const path = c.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
      const res = await measured('GET', path, { auth: auth[c.as ?? 'platform'] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const lines: string[] = [];
      const unseen = new Set((c.uses ?? []).map(([table, column]) => `${table}.${column}`));
      for (const s of res.cost.sql.filter((s) => /^\s*select/i.test(s.query))) {
        const plan = await planOf(s.query, s.params);
        for (const bad of badLines(plan, c.scans)) lines.push(`${bad}  <-  ${s.query}`);
        for (const [table, column] of c.uses ?? []) {
          // A statement that constrains the column (other statements of the request, authentication's, do not);
          // `<expr>`: an expression index's key, such as lower(uma_address), in a statement that computes one.
          // A column only custom SQL knows (a generated one) is named bare.
          const mentions = new RegExp(`\\b${table}\\b`).test(s.query);
          const constrains =
            column === '<expr>'
              ? mentions && /\blower\(/.test(s.query)
              : s.query.includes(`"${table}"."${column}"`) ||
                s.query.includes(`"${table}".${column}`) ||
                (mentions && new RegExp(`(?<![\\w."])${column}(?![\\w"])`).test(s.query));
          if (!constrains) continue;
          unseen.delete(`${table}.${column}`);
          const keyed = KEYED[`${table}.${column}`];
          const search = keyed
            ? new RegExp(`^SEARCH ${table} USING INDEX ${keyed} \\(<expr>=\\? AND <expr>=\\?`)
            : new RegExp(`^SEARCH ${table}\\b.*(?<!\\w)${column}[=<>]`);
          const searched = plan.some((r) => search.test(r.detail));
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
      for (const filter of unseen) lines.push(`no statement constrains ${filter}`);
      expect(lines).toEqual([]);
    });
  }
});

describe("a platform's rows are found through indexes (sandbox reset and snapshots)", () => {
  // Reset deletes, a snapshot copies and a restore compares exactly these rows: each table's through an index of
  // its own or of its parent's (the history through its transactions, import chunks through their job).
  // Known exceptions, read whole today (no platform index): agents' tokens and device codes, the wallet index.
  const scanned = new Set(['agentTokens', 'agentDeviceCodes', 'walletAuthIndex']);
  for (const { kind, table, rowsOf } of PLATFORM_DATA.filter((t) => !scanned.has(t.kind))) {
    it(kind, async () => {
      const { sql: query, params } = database(env.DB)
        .select({ one: sql`1` })
        .from(table)
        .where(rowsOf('Platform:plan'))
        .toSQL();
      const plan = await planOf(query, params);
      expect(plan.length).toBeGreaterThan(0);
      expect(badLines(plan)).toEqual([]);
    });
  }
});

describe("a move's page reads the platform's index in order", () => {
  // src/platform/move.ts pages transactions, quotes and webhook deliveries by (created_at, id), and a few tables
  // by the columns of their platform index (INDEX_KEYS): the first page and every page after a saved place search
  // that index, sorting at most the rows of one value of its last column (one created_at, one customer).
  const ORDERED: Record<string, RegExp> = {
    transactions: /^SEARCH transactions USING INDEX transactions_platform_idx \(<expr>=\?( AND created_at>\?)?\)$/,
    quotes: /^SEARCH quotes USING INDEX quotes_platform_idx \(<expr>=\?( AND created_at>\?)?\)$/,
    webhook_deliveries:
      /^SEARCH webhook_deliveries USING INDEX webhook_deliveries_platform_created_idx \(platform_id=\?( AND \(created_at,id\)>\(\?,\?\))?\)$/,
    invitations:
      /^SEARCH invitations USING INDEX invitations_platform_created_idx \(platform_id=\?( AND \(created_at,code\)>\(\?,\?\))?\)$/,
    beneficial_owners:
      /^SEARCH beneficial_owners USING INDEX beneficial_owners_customer_idx \(platform_id=\?( AND \(customer_id,id\)>\(\?,\?\))?\)$/,
    sandbox_faults: /^SEARCH sandbox_faults USING INDEX sandbox_faults_platform_idx \(platform_id=\?( AND \(created_at,id\)>\(\?,\?\))?\)$/,
    internal_accounts:
      /^SEARCH internal_accounts USING INDEX internal_accounts_platform_idx \(platform_id=\?( AND \(customer_id,id\)>\(\?,\?\))?\)$/,
    external_accounts:
      /^SEARCH external_accounts USING INDEX external_accounts_platform_idx \(platform_id=\?( AND \(customer_id,id\)>\(\?,\?\))?\)$/,
    kyc_links: /^SEARCH kyc_links USING INDEX kyc_links_platform_customer_idx \(platform_id=\?( AND customer_id>\?)?\)$/,
    receiver_lookups: /^SEARCH receiver_lookups USING INDEX receiver_lookups_platform_idx \(platform_id=\?( AND expires_at>\?)?\)$/,
    otp_email_sends:
      /^SEARCH otp_email_sends USING INDEX otp_email_sends_address_idx \(platform_id=\?( AND \(address,sent_at\)>\(\?,\?\))?\)$/,
  };
  // The tables whose pages still sort the platform's rows (no whole platform index orders them by columns set once
  // and never NULL) or walk the table's key (no index holds their platform): docs/engineering/storage-and-capacity.md.
  const SORTED = ['agent_actions', 'bulk_import_jobs', 'due_transitions', 'ledger_entries', 'sandbox_snapshot_rows', 'sandbox_snapshots'];
  const WALKED = ['agent_device_codes', 'agent_tokens', 'sandbox_fault_firings', 'wallet_auth_index'];
  // Accounts are paged by (customer, id); the platform's own come first (no customer): a place among them reads on
  // through the index, in order, past the platform's own accounts before it.
  for (const name of ['internal_accounts', 'external_accounts']) {
    it(`${name}, a page after a saved place among the platform's own accounts`, async () => {
      const index = movedTables().findIndex((t) => t.name === name);
      const { sql: query, params } = copyPage(database(env.DB), index, 'Platform:plan', [null, 'Account:plan'], 100).toSQL();
      const plan = (await planOf(query, params)).map((r) => r.detail);
      expect(plan).toEqual([`SEARCH ${name} USING INDEX ${name}_platform_idx (platform_id=?)`]);
    });
  }
  for (const [index, { name, keyLength }] of movedTables().entries()) {
    for (const after of [null, Array.from({ length: keyLength }, () => 1)]) {
      it(`${name}, ${after ? 'a page after a saved place' : 'the first page'}`, async () => {
        const { sql: query, params } = copyPage(database(env.DB), index, 'Platform:plan', after, 100).toSQL();
        const plan = (await planOf(query, params)).map((r) => r.detail);
        if (ORDERED[name]) expect(plan.filter((d) => d.startsWith(`SEARCH ${name} `))).toEqual([expect.stringMatching(ORDERED[name]!)]);
        // The lists of what still sorts or walks stay true: a table that stops doing so leaves them.
        const bad = badLines(plan.map((detail) => ({ detail })));
        if (SORTED.includes(name)) expect(bad, plan.join(' | ')).toContain('USE TEMP B-TREE FOR ORDER BY');
        else if (WALKED.includes(name)) expect(plan.join(' | ')).not.toMatch(new RegExp(`(SEARCH|SCAN) ${name} [^|]*platform_id`));
        else expect(bad, plan.join(' | ')).toEqual([]);
      });
    }
  }
});

describe('the lookups of past events go through the deliveries’ resource index', () => {
  // The conditions src/payments/incoming-approval.ts (a payment's pending approval requests, stopped at its
  // deadline) and src/customers/bulk-chunks.ts (a job's end event, written once) put on webhook_deliveries: bounded
  // by the resource, never a walk of the platform's deliveries of a type or a status.
  const conditions: [string, SQL][] = [
    ['incoming approval deadline', pendingApprovalRequests({ platformId: 'Platform:plan', id: 'Transaction:plan' })],
    ['bulk import completion', deliveriesAbout('Platform:plan', 'BulkCustomerImportJob:plan', 'BULK_UPLOAD.COMPLETED')],
  ];
  for (const [name, condition] of conditions) {
    it(name, async () => {
      const { sql: query, params } = database(env.DB)
        .select({ one: sql`1` })
        .from(webhookDeliveries)
        .where(condition)
        .toSQL();
      const plan = await planOf(query, params);
      expect(plan.map((r) => r.detail).join('\n')).toMatch(
        /SEARCH webhook_deliveries USING INDEX webhook_deliveries_resource_idx \(platform_id=\? AND resource_id=\?\)/,
      );
      expect(badLines(plan)).toEqual([]);
    });
  }
});

describe("a queue batch's claims find each event's deliveries through the event index", () => {
  // Three statements a batch (settle those without an endpoint, claim the rest, read their events): each an
  // index probe per event of the batch, never a walk of the pending deliveries.
  it('the settling, the claim and the context read', async () => {
    const url = hookUrl();
    fakeEndpoint(url, () => 200);
    const [withHook, without] = [await newPlatform({ webhookEndpoint: url }), await newPlatform()];
    const ids = [await writeEvent(withHook.id, Date.now()), await writeEvent(without.id, Date.now())];
    const meter: Meter = { ...newMeter(), statements: [], sql: [] };
    const outcomes = await withMeter(meter, () => deliverEvents(deps(), ids, Date.now()));
    expect(outcomes.map((o) => o.result)).toEqual(['delivered', 'skipped']);
    expect(meter.statements).toEqual([3, 1]);
    for (const s of meter.sql!.slice(0, 3)) {
      const plan = await planOf(s.query, s.params);
      expect(plan.map((r) => r.detail).join('\n'), s.query).toMatch(
        /SEARCH webhook_deliveries USING INDEX webhook_deliveries_event_idx \(event_id=\?\)/,
      );
      expect(badLines(plan), s.query).toEqual([]);
    }
  });
});

describe('webhook deliveries: the list and the replay read one index set, platform first, in (created_at, id) order', () => {
  // Migration 0034: (platform_id[, status | event_type], created_at, id) serve every list filter (newest first, a
  // cursor's page too) and every replay variant (oldest first within a creation-time range): no sort, no walk of
  // another platform's entries. The list by eventId goes through the event's index (its few rows).
  let p: TestPlatform;
  let cursor: string;
  beforeAll(async () => {
    p = await newPlatform();
    for (let i = 0; i < 3; i++) {
      const sent = await api('POST', '/sandbox/webhooks/send', { auth: p.auth, body: { type: 'TEST', data: {} } });
      expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
    }
    const first = await api('GET', '/webhooks/deliveries?limit=1', { auth: p.auth });
    expect(first.status).toBe(200);
    expect(first.body.hasMore).toBe(true);
    cursor = encodeURIComponent(first.body.nextCursor);
  });

  /** The plan lines searching webhook_deliveries of the request's statements that read it, and any bad line. */
  async function deliveryPlans(method: string, path: string, body?: unknown) {
    const res = await measured(method, path, { auth: p.auth, body });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const searches: string[] = [];
    const bad: string[] = [];
    for (const s of res.cost.sql.filter((s) => /\bwebhook_deliveries\b/.test(s.query) && /^\s*(select|update)/i.test(s.query))) {
      const plan = await planOf(s.query, s.params);
      for (const line of badLines(plan)) bad.push(`${line}  <-  ${s.query}`);
      searches.push(
        ...plan.map((r) => r.detail).filter((d) => /^SEARCH webhook_deliveries USING (COVERING )?INDEX webhook_deliveries_/.test(d)),
      );
    }
    return { searches, bad };
  }

  const LIST: [string, RegExp][] = [
    ['', /platform_created_idx \(platform_id=\?\)$/],
    ['?status=FAILED', /platform_status_created_idx \(platform_id=\? AND status=\?\)$/],
    ['?eventType=TEST', /platform_type_created_idx \(platform_id=\? AND event_type=\?\)$/],
    ['?eventType=TEST&status=PENDING', /platform_type_created_idx \(platform_id=\? AND event_type=\?\)$/],
    ['?limit=1&cursor={cursor}', /platform_created_idx \(platform_id=\? AND created_at<\?\)$/],
    ['?status=PENDING&limit=1&cursor={cursor}', /platform_status_created_idx \(platform_id=\? AND status=\? AND created_at<\?\)$/],
    ['?eventType=TEST&limit=1&cursor={cursor}', /platform_type_created_idx \(platform_id=\? AND event_type=\? AND created_at<\?\)$/],
    ['?eventId=Webhook%3Anone', /event_idx \(event_id=\?\)$/],
  ];
  for (const [query, index] of LIST) {
    it(`GET /webhooks/deliveries${query}`, async () => {
      const { searches, bad } = await deliveryPlans('GET', `/webhooks/deliveries${query.replace('{cursor}', () => cursor)}`);
      expect(bad).toEqual([]);
      // The page (and, by eventId, the count of its few rows) through this index.
      expect(searches.length).toBeGreaterThan(0);
      for (const search of searches) expect(search).toMatch(index);
    });
  }

  const AFTER = '2020-01-01T00:00:00Z';
  const BEFORE = '2099-01-01T00:00:00Z';
  const REPLAY: [Record<string, string>, RegExp][] = [
    [{}, /platform_created_idx \(platform_id=\?\)$/],
    [{ createdAfter: AFTER, createdBefore: BEFORE }, /platform_created_idx \(platform_id=\? AND created_at>\? AND created_at<\?\)$/],
    [{ type: 'TEST' }, /platform_type_created_idx \(platform_id=\? AND event_type=\?\)$/],
    [{ type: 'TEST', createdAfter: AFTER }, /platform_type_created_idx \(platform_id=\? AND event_type=\? AND created_at>\?\)$/],
    [{ status: 'FAILED' }, /platform_status_created_idx \(platform_id=\? AND status=\?\)$/],
    [{ status: 'DELIVERED', createdBefore: BEFORE }, /platform_status_created_idx \(platform_id=\? AND status=\? AND created_at<\?\)$/],
    [{ type: 'TEST', status: 'PENDING' }, /platform_type_created_idx \(platform_id=\? AND event_type=\?\)$/],
  ];
  for (const [body, index] of REPLAY) {
    it(`POST /webhooks/deliveries/replay ${JSON.stringify(body)}`, async () => {
      const { searches, bad } = await deliveryPlans('POST', '/webhooks/deliveries/replay', body);
      expect(bad).toEqual([]);
      // The pick (by the index of its filter), then the update of what it picked by primary key.
      expect(
        searches.some((s) => index.test(s)),
        searches.join('\n'),
      ).toBe(true);
      expect(
        searches.filter((s) => !index.test(s)).every((s) => /sqlite_autoindex|\(id=\?\)/.test(s)),
        searches.join('\n'),
      ).toBe(true);
    });
  }
});
