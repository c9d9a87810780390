import { env } from 'cloudflare:test';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { vi } from 'vitest';
import { homeD1 } from '../../src/db/homes';
import { BASE, newPlatform, type TestPlatform } from '../support/api';
import { install as fakeWebhookReceivers } from '../support/webhooks';
import { validish, type Hints } from './arbitraries';
import { handle } from './client';
import { fillPath, isList, type ApiDoc } from './openapi';

/**
 * Tables a rejected request may legitimately write: `idempotency_keys` stores a 4xx answer so a retry
 * with the same key replays it (IETF Idempotency-Key draft).
 */
export const STATE_EXEMPT_TABLES = new Set(['idempotency_keys']);
/**
 * 4xx codes that report the outcome of a request that was accepted and acted on, not a rejection:
 * a TEST webhook is recorded (and listed) even when the endpoint refuses it.
 */
export const OUTCOME_CODES = new Set(['WEBHOOK_DELIVERY_ERROR']);

/**
 * Keeps the suite hermetic and its state snapshots stable: outbound fetches (webhook endpoints, JWKS)
 * get an empty 200 JSON answer, and queue messages are dropped so no background job changes rows
 * between two snapshots. The queue consumer and delivery have their own tests.
 */
export function isolateFromOutside(): void {
  vi.spyOn(globalThis, 'fetch').mockImplementation(async () => Response.json({ keys: [] }));
  vi.spyOn(env.JOBS, 'send').mockResolvedValue(undefined as never);
  vi.spyOn(env.JOBS, 'sendBatch').mockResolvedValue(undefined as never);
}

/**
 * A call through `handle`, for the hundreds of requests that populate a platform: each `SELF.fetch` in a file costs
 * more than the one before (see client.ts), and would slow every later test of the file.
 */
async function send(method: string, path: string, opts: { auth?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.Authorization = opts.auth;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const res = await handle(new Request(`${BASE}${path}`, { method, headers, body }));
  const text = await res.text();
  return { status: res.status, body: res.headers.get('Content-Type')?.includes('application/json') && text ? JSON.parse(text) : text };
}

/** Real P-256 public keys (uncompressed hex), for `clientPublicKey` fields. */
export function clientKeys(n = 4): string[] {
  return Array.from({ length: n }, () => bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false)));
}

/**
 * A customer with an e-mail (so its embedded wallet has an EMAIL_OTP credential) and a connected agent
 * for it, all through the API. Returns the wallet account id and the agent's bearer credentials.
 */
export async function seedWalletAndAgent(p: TestPlatform): Promise<{ accountId: string; agentId: string; agentAuth: string }> {
  const customer = await send('POST', '/customers', {
    auth: p.auth,
    body: { customerType: 'INDIVIDUAL', fullName: 'Hostile Tester', email: `wallet-${crypto.randomUUID()}@example.com` },
  });
  const accounts = await send(
    'GET',
    `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`,
    { auth: p.auth },
  );
  const agent = await send('POST', '/agents', {
    auth: p.auth,
    body: {
      name: 'Hostile agent',
      customerId: customer.body.id,
      policy: {
        permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'],
        defaultExecutionMode: 'AUTO',
        spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000 },
      },
    },
  });
  const redeemed = await send('POST', `/agents/device-codes/${agent.body.deviceCode.code}/redeem`);
  return { accountId: accounts.body.data[0].id, agentId: agent.body.agent.id, agentAuth: `Bearer ${redeemed.body.accessToken}` };
}

/** A platform and the data database ("home") it lives in: what the helpers below read. */
export type Homed = Pick<TestPlatform, 'id' | 'home'>;

/**
 * The D1 database of `p`'s home, after checking the platform is there: reading another home would find none of
 * its rows, and the checks built on these helpers would pass without having looked at anything.
 */
async function homeOf(p: Homed): Promise<D1Database> {
  const db = homeD1(env, p.home);
  const row = await db.prepare('SELECT 1 AS one FROM platforms WHERE id = ?').bind(p.id).first();
  if (!row) throw new Error(`Platform ${p.id} is not in its home ${p.home}`);
  return db;
}

/** Names of the D1 tables of `db` with their columns (system tables left out). */
async function tables(db: D1Database): Promise<{ name: string; columns: string[] }[]> {
  const { results } = await db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name",
    )
    .all<{ name: string }>();
  const out = [];
  for (const { name } of results) {
    const cols = await db.prepare(`PRAGMA table_info("${name}")`).all<{ name: string }>();
    out.push({ name, columns: cols.results.map((c) => c.name) });
  }
  return out;
}

/** Every id in its home that belongs to `p` (rows with `id` and `platform_id` columns, and the platform itself). */
export async function idsOf(p: Homed): Promise<string[]> {
  const db = await homeOf(p);
  const ids = [p.id];
  for (const t of await tables(db)) {
    if (!t.columns.includes('id') || !t.columns.includes('platform_id')) continue;
    const { results } = await db.prepare(`SELECT id FROM "${t.name}" WHERE platform_id = ?`).bind(p.id).all<{ id: string }>();
    ids.push(...results.map((r) => r.id));
  }
  return ids;
}

/**
 * A comparable picture of the homes of `platforms`: in each, every table's row count, and the full content of the
 * rows of those platforms (tables with `platform_id`, and `platforms` itself). One D1 round trip per home. Keys
 * name the table and its home (`customers@DB_2`).
 */
export async function snapshotter(platforms: Homed[]): Promise<() => Promise<Record<string, string>>> {
  const homes = new Map<string, { db: D1Database; ids: string[] }>();
  for (const p of platforms) {
    const db = await homeOf(p);
    homes.set(p.home, { db, ids: [...(homes.get(p.home)?.ids ?? []), p.id] });
  }
  const pictures = await Promise.all(
    [...homes].map(async ([home, { db, ids }]) => {
      const list = (await tables(db)).filter((t) => !STATE_EXEMPT_TABLES.has(t.name));
      const marks = ids.map(() => '?').join(', ');
      const statements = list.map((t) => {
        const scope = t.columns.includes('platform_id') ? 'platform_id' : t.name === 'platforms' ? 'id' : undefined;
        const row = t.columns.map((c) => `quote("${c}")`).join(" || ',' || ");
        // Rows in content order: some tables (WITHOUT ROWID) have no rowid.
        const digest = scope
          ? `(SELECT group_concat(r, '|') FROM (SELECT ${row} AS r FROM "${t.name}" WHERE "${scope}" IN (${marks}) ORDER BY r))`
          : 'NULL';
        return db.prepare(`SELECT count(*) AS n, ${digest} AS rows FROM "${t.name}"`).bind(...(scope ? ids : []));
      });
      return async () => {
        const results = await db.batch<{ n: number; rows: string | null }>(statements);
        return list.map(
          (t, i) => [`${t.name}@${home}`, `${results[i]!.results[0]!.n} rows; ${results[i]!.results[0]!.rows ?? ''}`] as const,
        );
      };
    }),
  );
  return async () => Object.fromEntries((await Promise.all(pictures.map((take) => take()))).flat());
}

/** Names of the tables whose picture differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);
}

export interface World {
  /** The platform the hostile requests come from (valid credentials for most of them). */
  main: TestPlatform;
  /** Bearer credentials of a connected agent of `main` (for the agent-scoped routes). */
  mainAgent: string;
  /**
   * Other platforms with their own data, one in `main`'s database and one in another home: their ids must answer
   * like unknown ids.
   */
  others: TestPlatform[];
  ownIds: string[];
  hints: Hints;
}

/** Ids that look real but belong to nobody. */
const fabricatedIds = fc
  .tuple(
    fc.constantFrom(
      'ApiToken',
      'Customer',
      'InternalAccount',
      'AuthMethod',
      'Session',
      'Request',
      'WebhookDelivery',
      'Transaction',
      'Quote',
      'Platform',
    ),
    fc.uuid(),
  )
  .map(([type, uuid]) => `${type}:${uuid}`);

/**
 * Gives a platform data through its own API: an embedded wallet with its EMAIL_OTP credential, an OTP
 * e-mail and a session, a webhook endpoint with one TEST delivery, and for every POST
 * operation without path parameters the first of a few generated bodies that succeeds (so new
 * creation endpoints seed themselves).
 */
export async function populate(doc: ApiDoc, p: TestPlatform, seed: number): Promise<{ agentId: string; agentAuth: string }> {
  const { accountId, agentId, agentAuth } = await seedWalletAndAgent(p);
  // Generated bodies first: one may move the sandbox clock, which would expire the session made below.
  const pool = await idsOf(p);
  const hints: Hints = {
    ids: fc.constantFrom(...pool, accountId),
    // External account identifiers carry check digits that generated strings almost never satisfy.
    fields: { clientPublicKey: fc.constantFrom(...clientKeys(2)), accountInfo: fc.constant(SEED_BANK_ACCOUNT) },
  };
  for (const op of doc.operations) {
    if (op.method !== 'POST' || !op.security.includes('BasicAuth') || op.path.includes('{') || !op.body) continue;
    const bodies = fc.sample(validish(doc, op.body.schema, hints), { seed, numRuns: 10 });
    for (const body of bodies) {
      if ((await send('POST', op.path, { auth: p.auth, body })).status < 300) break;
    }
  }
  // Faked at fetch (an unregistered hooks.test URL answers 410 at once): a sweep's sends and resends never wait on the network.
  fakeWebhookReceivers();
  await send('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: 'https://hooks.test/hostile' } });
  await send('POST', '/sandbox/webhooks/test', { auth: p.auth });
  const credentials = await send('GET', `/auth/credentials?accountId=${encodeURIComponent(accountId)}`, { auth: p.auth });
  // An OTP e-mail and a session (sandbox code), so the wallet's lists have records too.
  const otp = credentials.body?.data?.[0]?.id;
  if (otp) {
    await send('POST', `/auth/credentials/${encodeURIComponent(otp)}/challenge`, { auth: p.auth, body: {} });
    await send('POST', `/auth/credentials/${encodeURIComponent(otp)}/verify`, {
      auth: p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: clientKeys(1)[0] },
    });
  }
  // Reading each list once lets lazily created records (an account's first credential) exist before the run.
  for (const op of doc.operations) {
    if (!isList(doc, op) || !op.security.includes('BasicAuth')) continue;
    const query = op.params
      .filter((q) => q.in === 'query' && q.required)
      .map((q) => `${q.name}=${encodeURIComponent(/(^id$|Id$)/.test(q.name) ? accountId : 'x')}`)
      .join('&');
    await send('GET', `${fillPath(op.path, {})}${query ? `?${query}` : ''}`, { auth: p.auth });
  }
  return { agentId, agentAuth };
}

/** One of `ids`, each id type (the part before `:`) equally likely, so rare types are tried as often as common ones. */
function byType(ids: string[]): fc.Arbitrary<string> {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const type = id.split(':')[0]!;
    groups.set(type, [...(groups.get(type) ?? []), id]);
  }
  return fc.constantFrom(...groups.values()).chain((group) => fc.constantFrom(...group));
}

/** A valid US bank account (ABA routing checksum) for the seeded external accounts. */
const SEED_BANK_ACCOUNT = {
  accountType: 'USD_ACCOUNT',
  accountNumber: '1234567890',
  routingNumber: '021000021',
  beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Hostile Tester' },
};

/** Three populated platforms (`main` and another in `DB`, one in `DB_2`) and the hints that point generated requests at their records. */
export async function buildWorld(doc: ApiDoc, seed: number): Promise<World> {
  const main = await newPlatform();
  const others = [await newPlatform(), await newPlatform({ home: 'DB_2' })];
  const mainAgent = await populate(doc, main, seed);
  for (const other of others) await populate(doc, other, seed + 1);
  // The run's own token and agent stay out of the pool: deleting either would turn the rest of the run into 401s.
  const ownIds = (await idsOf(main)).filter((id) => id !== main.tokenId && id !== mainAgent.agentId);
  const otherIds = await Promise.all(others.map((other) => idsOf(other)));
  const hints: Hints = {
    ids: fc.oneof({ weight: 3, arbitrary: byType(ownIds) }, ...otherIds.map((ids) => ({ weight: 1, arbitrary: byType(ids) })), {
      weight: 1,
      arbitrary: fabricatedIds,
    }),
    fields: {
      clientPublicKey: fc.constantFrom(...clientKeys()),
      otp: fc.constantFrom('000000', '123456', '00000', 'abcdef'),
    },
  };
  return { main, mainAgent: mainAgent.agentAuth, others, ownIds, hints };
}
