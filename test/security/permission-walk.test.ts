import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, basic, BASE, newPlatform, type TestPlatform } from '../support/api';
import { individualBody } from '../support/customers';
import { bankInfo } from '../support/payments';
import { handle } from '../hostile/client';
import { validish, type Hints } from '../hostile/arbitraries';
import { fillPath, label, loadApiDoc, type Operation } from '../hostile/openapi';
import { changedTables, clientKeys, idsOf, isolateFromOutside, snapshotter } from '../hostile/world';

// Every operation of /openapi.json with every API-token permission set, and every agent operation with every
// agent policy: a caller lacking the permission an operation declares (`x-required-permission`,
// `x-agent-permission`, generated from the route declarations) gets 403 and changes nothing, and no
// combination causes an effect (a debit or credit, a token, a credential, an agent's powers) that its
// permissions do not allow — also through an agent it set up.

const doc = await loadApiDoc();
const raw = (await api('GET', '/openapi.json')).body;
const agentPermissionOf = (op: Operation): string[] | undefined => raw.paths[op.path][op.method.toLowerCase()]['x-agent-permission'];

const SEED = 20251013;
const TOKEN_PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'];
const AGENT_PERMISSIONS: string[] = raw.components.schemas.AgentPermission.enum;
/** The rule under test: the API-token permission whose power each agent permission hands on. */
const NEEDS: Record<string, string> = {
  VIEW_TRANSACTIONS: 'VIEW',
  CREATE_TRANSFERS: 'TRANSACT',
  CREATE_QUOTES: 'TRANSACT',
  EXECUTE_QUOTES: 'TRANSACT',
  MANAGE_EXTERNAL_ACCOUNTS: 'MANAGE',
};
const subsets = (items: string[]) => items.reduce<string[][]>((all, x) => [...all, ...all.map((s) => [...s, x])], [[]]);
const name = (set: string[]) => `[${set.join(',') || 'none'}]`;

/** Destructive operations last, so the walk reaches every operation with its records still there. */
const rank = (op: Operation) => (op.path === '/sandbox/reset' ? 2 : op.method === 'DELETE' ? 1 : 0);
const ordered = (ops: Operation[]) => [...ops].sort((a, b) => rank(a) - rank(b));

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function call(method: string, target: string, auth: string | undefined, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { 'Idempotency-Key': crypto.randomUUID() };
  if (auth) headers.Authorization = auth;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await handle(
    new Request(`${BASE}${target}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** `call` that must succeed. (Not `api`: under this pool each `SELF.fetch` costs more than the one before.) */
async function ok(method: string, target: string, auth: string | undefined, body?: unknown): Promise<any> {
  const res = await call(method, target, auth, body);
  expect(res.status, `${method} ${target}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** A customer (of a fresh platform unless given) holding $100,000.00 in USD, and a USD bank account of it. */
async function fixture(platform?: TestPlatform) {
  const p = platform ?? (await newPlatform());
  const customerId = (await ok('POST', '/customers', p.auth, individualBody())).id as string;
  const accounts = (await ok('GET', `/customers/internal-accounts?customerId=${customerId}`, p.auth)).data;
  const usd = accounts.find((a: any) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD').id as string;
  await ok('POST', `/sandbox/internal-accounts/${usd}/fund`, p.auth, { amount: 10_000_000 });
  const bank = (
    await ok('POST', '/customers/external-accounts', p.auth, { customerId, currency: 'USD', accountInfo: bankInfo('USD', '789') })
  ).id;
  return { p, customerId, usd, bank: bank as string };
}

/** A connected agent of the fixture's customer, made with the platform's full token. */
async function connectedAgent(f: { p: TestPlatform; customerId: string }, policy: Record<string, unknown>) {
  const created = await ok('POST', '/agents', f.p.auth, { name: 'Walker', customerId: f.customerId, policy });
  return `Bearer ${(await ok('POST', `/agents/device-codes/${created.deviceCode.code}/redeem`, undefined)).accessToken}`;
}

/** The rows that say who can do what and what moved: one batch. */
async function effects(platformId: string) {
  const q = (sql: string) => env.DB.prepare(sql).bind(platformId);
  const [ledger, tokens, agents, codes, agentTokens, credentials, externals, quotes, actions] = await env.DB.batch<any>([
    q('SELECT count(*) AS n FROM ledger_movements WHERE platform_id = ?'),
    q('SELECT id, permissions FROM api_tokens WHERE platform_id = ?'),
    q('SELECT id, policy, deleted_at AS deletedAt FROM agents WHERE platform_id = ?'),
    q('SELECT code_hash AS code, agent_id AS agentId FROM agent_device_codes WHERE platform_id = ?'),
    q('SELECT id FROM agent_tokens WHERE platform_id = ?'),
    q('SELECT count(*) AS n FROM wallet_auth_index WHERE platform_id = ?'),
    q('SELECT count(*) AS n FROM external_accounts WHERE platform_id = ?'),
    q('SELECT count(*) AS n FROM quotes WHERE platform_id = ?'),
    q('SELECT count(*) AS n FROM agent_actions WHERE platform_id = ?'),
  ]);
  return {
    ledger: ledger!.results[0].n as number,
    tokens: new Map<string, string[]>(tokens!.results.map((r: any) => [r.id, JSON.parse(r.permissions)])),
    agents: new Map<string, { permissions: string[]; json: string; deleted: boolean }>(
      agents!.results.map((r: any) => [
        r.id,
        { permissions: JSON.parse(r.policy).permissions, json: r.policy, deleted: r.deletedAt !== null },
      ]),
    ),
    codes: codes!.results as { code: string; agentId: string }[],
    agentTokens: agentTokens!.results.length,
    credentials: credentials!.results[0].n as number,
    externals: externals!.results[0].n as number,
    quotes: quotes!.results[0].n as number,
    actions: actions!.results[0].n as number,
  };
}
type Effects = Awaited<ReturnType<typeof effects>>;

/** Values that ask for the most: a request the walk sends is the most powerful plausible one. */
const powerful: Hints['fields'] = {
  defaultExecutionMode: fc.constant('AUTO'),
  executionMode: fc.constant('AUTO'),
  perTransactionLimit: fc.constant(1_000_000_000),
  dailyLimit: fc.constant(null),
  monthlyLimit: fc.constant(null),
  dailyTransactionLimit: fc.constant(1_000_000),
  approvalThresholds: fc.constant({}),
  accountRestrictions: fc.constant({}),
  isPaused: fc.constant(false),
  currency: fc.constant('USD'),
  clientPublicKey: fc.constantFrom(...clientKeys(2)),
  accountInfo: fc.constant({
    accountType: 'USD_ACCOUNT',
    accountNumber: '1234567890',
    routingNumber: '021000021',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Walk Tester' },
  }),
};

/** A path parameter's value: an id of the kind its name says (`agentId`: an Agent, `actionId`: an AgentAction), else any. */
function idFor(param: string, pool: string[]): string {
  const kind = param.replace(/Id$/, '').toLowerCase();
  const type = (i: string) => i.split(':')[0]!.toLowerCase();
  const id = pool.findLast((i) => type(i) === kind) ?? pool.findLast((i) => type(i).endsWith(kind));
  return encodeURIComponent(id ?? pool[0]!);
}

function target(op: Operation, pool: string[], hints: Hints): string {
  const path = fillPath(op.path, Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, idFor(p.name, pool)])));
  const query = op.params
    .filter((p) => p.in === 'query' && p.required)
    .map(
      (p) => `${p.name}=${encodeURIComponent(fc.sample(validish(doc, p.schema, hints, p.name), { seed: SEED, numRuns: 1 })[0] as string)}`,
    )
    .join('&');
  return query ? `${path}?${query}` : path;
}

/** An agent policy (or its update) asking for the most: AUTO, no threshold, no account restriction, a huge limit. */
const UNBOUNDED = {
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000_000 },
  approvalThresholds: {},
  accountRestrictions: {},
};

/**
 * The walk's requests ask for the most: every permission of the kind a body names (an agent's or a token's),
 * and an agent policy without bounds.
 */
function empower(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(empower);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const kind = [AGENT_PERMISSIONS, TOKEN_PERMISSIONS].find((all) => Array.isArray(v) && v.some((x) => all.includes(x)));
    out[k] = k === 'permissions' && kind ? kind : empower(v);
  }
  return 'defaultExecutionMode' in out || 'spendingLimits' in out ? { ...out, ...UNBOUNDED } : out;
}

/** A few plausible bodies (none for multipart operations: the walk is about JSON requests). */
const bodies = (op: Operation, hints: Hints, n: number): unknown[] =>
  op.body?.contentType === 'application/json'
    ? fc.sample(validish(doc, op.body.schema, hints), { seed: SEED, numRuns: n }).map(empower)
    : [undefined];

/** Every string `id` in the answer of a write: new records join the pool the walk draws path ids from (`keep` out: the walk's own credentials). */
function collectIds(value: unknown, into: string[], keep: string[] = []) {
  if (Array.isArray(value)) value.forEach((v) => collectIds(v, into, keep));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' && typeof v === 'string' && v.includes(':') && !into.includes(v) && !keep.includes(v)) into.push(v);
      else collectIds(v, into, keep);
    }
}

let violations: string[] = [];
const violate = (what: string) => void violations.push(what);

beforeAll(() => isolateFromOutside());
beforeEach(() => void (violations = []));
afterAll(() => vi.restoreAllMocks());

/** A 403 of the grant rule: the caller holds the operation's permission, not every power it asked to give. */
const grantRefusal = (res: Answer, held: string[]) =>
  res.status === 403 &&
  Array.isArray(res.body?.details?.missingPermissions) &&
  res.body.details.missingPermissions.every((x: string) => !held.includes(x));

describe('the permission walk', () => {
  it('no token permission set does, directly or through an agent it sets up, what its permissions do not allow', async () => {
    const basicOps = ordered(doc.operations.filter((op) => op.security.includes('BasicAuth')));
    expect(basicOps.length).toBeGreaterThan(50);
    for (const held of subsets(TOKEN_PERMISSIONS)) {
      // A platform per permission set: what one set deletes or resets cannot hide what another could do.
      const f = await fixture();
      const p = f.p;
      // The platform's own money agent, connected by its full token, where every transfer waits for approval.
      const bearers = [
        await connectedAgent(f, {
          permissions: AGENT_PERMISSIONS,
          defaultExecutionMode: 'APPROVAL_REQUIRED',
          spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000 },
          approvalThresholds: { currency: 'USD', amount: 100 },
        }),
      ];
      const token = await ok('POST', '/tokens', p.auth, { name: name(held), permissions: held });
      const auth = basic(token.clientId, token.clientSecret);
      const pool = (await idsOf(p)).filter((id) => id !== p.tokenId && id !== token.id);
      const hints: Hints = { ids: fc.constantFrom(...pool), fields: { ...powerful, customerId: fc.constant(f.customerId) } };
      const who = name(held);

      // Refused: every operation whose permission the token lacks answers 403 and changes nothing.
      const snapshot = await snapshotter([p]);
      const picture = await snapshot();
      for (const op of basicOps.filter((o) => !held.includes(o.permission!))) {
        const res = await call(op.method, target(op, pool, hints), auth, bodies(op, hints, 1)[0]);
        expect(res.status, `${who} ${label(op)} needs ${op.permission}: ${res.text}`).toBe(403);
        expect(res.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      }
      expect(changedTables(picture, await snapshot()), `${who}: refused requests changed rows`).toEqual([]);

      /** Agents act as the caller could have set them up: their money may move only when it holds TRANSACT. */
      const probe = async (after: string) => {
        const before = (await effects(p.id)).ledger;
        for (const bearer of bearers) {
          await call('POST', '/agents/me/transfer-out', bearer, {
            source: { accountId: f.usd },
            destination: { accountId: f.bank },
            amount: 1_000,
          });
        }
        if ((await effects(p.id)).ledger > before) violate(`${who}: an agent moved money after ${after}`);
      };
      /** What one request did, against what `held` allows (deleting is no debit: `/sandbox/reset` empties the ledger). Returns the rows as they are now. */
      const judge = async (op: Operation, before: Effects, res: Answer): Promise<Effects> => {
        const after = await effects(p.id);
        const what = `${who} ${label(op)} (${res.status})`;
        if (after.ledger > before.ledger && !held.includes('TRANSACT')) violate(`${what} moved money`);
        if (after.credentials > before.credentials && !held.includes('MANAGE')) violate(`${what} made a wallet credential`);
        for (const [id, permissions] of after.tokens) {
          if (before.tokens.has(id)) continue;
          if (!held.includes('MANAGE') || permissions.some((x) => !held.includes(x)))
            violate(`${what} made an API token with ${name(permissions)}`);
        }
        for (const [id, agent] of after.agents) {
          const was = before.agents.get(id);
          if (agent.deleted || was?.json === agent.json) continue;
          const added = agent.permissions.filter((x) => !was?.permissions.includes(x));
          if (!held.includes('MANAGE') || added.some((x) => !held.includes(NEEDS[x]!))) violate(`${what} gave agent ${id} ${name(added)}`);
        }
        for (const code of after.codes.filter((c) => !before.codes.some((b) => b.code === c.code))) {
          const needs = [...new Set((after.agents.get(code.agentId)?.permissions ?? []).map((x) => NEEDS[x]!))];
          if (!held.includes('MANAGE') || needs.some((x) => !held.includes(x)))
            violate(`${what} issued a device code for an agent needing ${name(needs)}`);
        }
        if (after.agentTokens > before.agentTokens) violate(`${what} made an agent token`);
        if (res.status >= 300) return after;
        // A device code in the answer is redeemed at once (no login needed): its agent joins the probes.
        const code = res.body?.deviceCode?.code ?? (op.path.endsWith('/device-codes') ? res.body?.code : undefined);
        if (typeof code === 'string') {
          const redeemed = await call('POST', `/agents/device-codes/${code}/redeem`, undefined);
          if (redeemed.status === 200) bearers.push(`Bearer ${redeemed.body.accessToken}`);
        }
        if (!held.includes('TRANSACT')) await probe(what);
        return effects(p.id);
      };

      // Allowed: the most powerful plausible requests, each judged by what it did.
      let rows = await effects(p.id);
      for (const op of basicOps.filter((o) => held.includes(o.permission!))) {
        const to = target(op, pool, hints);
        for (const body of bodies(op, hints, 4)) {
          const res = await call(op.method, to, auth, body);
          if (!grantRefusal(res, held))
            expect([401, 403], `${who} ${label(op)} holds ${op.permission}: ${res.text}`).not.toContain(res.status);
          if (res.status < 300 && op.method !== 'GET') collectIds(res.body, pool, [p.tokenId, token.id]);
          rows = await judge(op, rows, res);
          if (res.status < 300) break;
        }
      }
    }
    expect(violations.join('\n')).toBe('');
  }, 300_000);

  it('no agent policy lets an agent do what its permissions do not grant', async () => {
    const agentOps = ordered(doc.operations.filter((op) => op.security.includes('AgentAuth')));
    expect(agentOps.length).toBeGreaterThan(10);
    // One platform, a customer per policy: the refused requests' snapshot reads one platform's rows.
    const platform = await newPlatform();
    const snapshot = await snapshotter([platform]);
    for (const granted of subsets(AGENT_PERMISSIONS)) {
      const f = await fixture(platform);
      const bearer = await connectedAgent(f, {
        permissions: granted,
        defaultExecutionMode: 'AUTO',
        spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000 },
      });
      const pool = [f.usd, f.bank];
      const hints: Hints = {
        ids: fc.constantFrom(f.usd, f.bank),
        fields: { ...powerful, customerId: fc.constant(f.customerId), amount: fc.constant(1_000), immediatelyExecute: fc.constant(false) },
      };
      const who = name(granted);
      const grants = (op: Operation) => {
        const needs = agentPermissionOf(op);
        return !needs || needs.some((x) => granted.includes(x));
      };

      const picture = await snapshot();
      for (const op of agentOps.filter((o) => !grants(o))) {
        const res = await call(op.method, target(op, pool, hints), bearer, bodies(op, hints, 1)[0]);
        expect(res.status, `${who} ${label(op)} needs ${agentPermissionOf(op)}: ${res.text}`).toBe(403);
        expect(res.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      }
      expect(changedTables(picture, await snapshot()), `${who}: refused requests changed rows`).toEqual([]);

      let before = await effects(f.p.id);
      for (const op of agentOps.filter(grants)) {
        const to = target(op, pool, hints);
        for (const body of bodies(op, hints, 3)) {
          const res = await call(op.method, to, bearer, body);
          const what = `${who} ${label(op)} (${res.status})`;
          expect([401, 403], `${what}: ${res.text}`).not.toContain(res.status);
          const after = await effects(f.p.id);
          const moves = granted.includes('CREATE_TRANSFERS') || granted.includes('EXECUTE_QUOTES');
          if ((after.ledger > before.ledger || after.actions > before.actions) && !moves) violate(`${what} moved money`);
          if (after.quotes > before.quotes && !granted.includes('CREATE_QUOTES')) violate(`${what} made a quote`);
          if (after.externals !== before.externals && !granted.includes('MANAGE_EXTERNAL_ACCOUNTS'))
            violate(`${what} changed external accounts`);
          if (
            after.tokens.size !== before.tokens.size ||
            after.agentTokens !== before.agentTokens ||
            after.codes.length !== before.codes.length
          )
            violate(`${what} made a token or a device code`);
          if ([...after.agents].some(([id, a]) => before.agents.get(id)?.json !== a.json)) violate(`${what} changed an agent's policy`);
          before = after;
          if (res.status < 300) {
            if (op.method !== 'GET') collectIds(res.body, pool);
            break;
          }
        }
      }
    }
    expect(violations.join('\n')).toBe('');
  }, 300_000);
});
