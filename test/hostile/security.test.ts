import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, BASE, newPlatform, OPERATOR, tokenWith, type TestPlatform } from '../support/api';
import { handle } from './client';
import { validish, type Hints } from './arbitraries';
import { fillPath, isList, label, loadApiDoc, type Operation } from './openapi';
import { changedTables, clientKeys, idsOf, isolateFromOutside, populate, snapshotter } from './world';

// Generic security properties over every route of /openapi.json (read at run time, so new routes are covered).
const doc = await loadApiDoc();
const SEED = 20251013;
const PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** One call through the Worker; every answer, whatever its status, must be `Cache-Control: no-store`. */
async function call(method: string, target: string, opts: { auth?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.Authorization = opts.auth;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await handle(
    new Request(`${BASE}${target}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
  );
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  expect(
    res.headers.get('Cache-Control') ?? '(none)',
    `${method} ${target} answered ${res.status} without Cache-Control: no-store`,
  ).toContain('no-store');
  return { status: res.status, headers: res.headers, text, body };
}

const basicOps = doc.operations.filter((op) => op.security.includes('BasicAuth'));
const securedOps = doc.operations.filter((op) => op.security.length > 0);

/** A path with a made-up id for every parameter: authentication and permissions are checked before any lookup. */
const anyTarget = (op: Operation) =>
  fillPath(op.path, Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, 'Unknown:0'])));

let a: TestPlatform;
/** Platform B of the tenancy checks in each home: A's (`DB`, the harder case: one database), and another. */
const bs = new Map<string, { b: TestPlatform; bIds: string[] }>();
const B_HOMES = ['DB', 'DB_2'];
let aIds: string[];

beforeAll(async () => {
  isolateFromOutside();
  a = await newPlatform();
  await populate(doc, a, SEED);
  aIds = await idsOf(a);
  for (const home of B_HOMES) {
    const b = await newPlatform({ home });
    await populate(doc, b, SEED + 1);
    bs.set(home, { b, bIds: await idsOf(b) });
  }
}, 90_000);

describe('authentication and permissions of every route', () => {
  it('every secured route answers 401 without credentials and with bogus ones', async () => {
    expect(securedOps.length).toBeGreaterThan(10);
    const bogus = [
      undefined,
      'Basic',
      `Basic ${btoa('nobody:nothing')}`,
      basic(a.clientId, 'wrong-secret'),
      `Bearer ${'x'.repeat(40)}`,
      'Digest username="x"',
    ];
    for (const op of securedOps) {
      // A platform's Basic credentials open nothing on the operator surface, and the operator token nothing on a platform's.
      const crossed = op.security.includes('BasicAuth') ? OPERATOR : a.auth;
      for (const auth of [...bogus, crossed]) {
        const res = await call(op.method, anyTarget(op), { auth, body: op.body ? {} : undefined });
        expect(res.status, `${label(op)} with ${auth ?? 'no credentials'}: ${res.text}`).toBe(401);
        expect(res.body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
        expect(res.headers.get('WWW-Authenticate'), label(op)).toBeTruthy();
      }
    }
  });

  it('every BasicAuth route answers 403 to a token without the permission it declares, and not to one with it', async () => {
    // Its own platform: the allowed calls act (POST /sandbox/reset among them).
    const d = await newPlatform();
    const none = await tokenWith(d, []);
    const only = Object.fromEntries(await Promise.all(PERMISSIONS.map(async (p) => [p, await tokenWith(d, [p])] as const)));
    const allBut = Object.fromEntries(
      await Promise.all(
        PERMISSIONS.map(
          async (p) =>
            [
              p,
              await tokenWith(
                d,
                PERMISSIONS.filter((q) => q !== p),
              ),
            ] as const,
        ),
      ),
    );
    for (const op of basicOps) {
      expect(PERMISSIONS, `${label(op)} declares x-required-permission`).toContain(op.permission);
      const target = anyTarget(op);
      const body = op.body ? {} : undefined;
      for (const auth of [none, allBut[op.permission!]!]) {
        const res = await call(op.method, target, { auth, body });
        expect(res.status, `${label(op)}: ${res.text}`).toBe(403);
        expect(res.body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      }
      const allowed = await call(op.method, target, { auth: only[op.permission!]!, body });
      expect([401, 403], `${label(op)} with only ${op.permission}: ${allowed.text}`).not.toContain(allowed.status);
    }
  });
});

describe('Cache-Control', () => {
  // Its work grows with the number of operations (several calls each): minutes on a loaded 2-core machine are not a fault.
  it('every route answers with Cache-Control: no-store, success and errors alike', { timeout: 180_000 }, async () => {
    // Its own platform: this sweep changes things (the sandbox clock, tokens) the tenancy checks rely on.
    const c = await newPlatform();
    const { agentAuth } = await populate(doc, c, SEED + 2);
    const cIds = (await idsOf(c)).filter((id) => id !== c.tokenId);
    const hints: Hints = { ids: fc.constantFrom(...cIds), fields: { clientPublicKey: fc.constantFrom(...clientKeys(2)) } };
    const byType = new Map<string, string>();
    for (const id of cIds) byType.set(id.split(':')[0]!, id);
    let successes = 0;
    // What deletes (DELETE routes, POST /sandbox/reset) goes last, so the sweep does not depend on the
    // order the document lists the areas' routes in.
    const deletes = (op: (typeof doc.operations)[number]) => op.method === 'DELETE' || op.path.endsWith('/sandbox/reset');
    const ordered = [...doc.operations.filter((op) => !deletes(op)), ...doc.operations.filter(deletes)];
    for (const op of ordered) {
      const auth = op.security.includes('OperatorAuth') ? OPERATOR : op.security.includes('AgentAuth') ? agentAuth : c.auth;
      const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
      // One id of each kind the platform has: the right kind reaches the record, the others answer 404.
      const targets = pathNames.length
        ? [...byType.values()].map((id) => fillPath(op.path, Object.fromEntries(pathNames.map((n) => [n, encodeURIComponent(id)]))))
        : [op.path];
      const bodies = op.body ? fc.sample(validish(doc, op.body.schema, hints), { seed: SEED, numRuns: 3 }) : [undefined];
      const query = op.params
        .filter((p) => p.in === 'query' && p.required)
        .map(
          (p) =>
            `${p.name}=${encodeURIComponent(fc.sample(validish(doc, p.schema, hints, p.name), { seed: SEED, numRuns: 1 })[0] as string)}`,
        )
        .join('&');
      for (const target of targets) {
        for (const body of bodies) {
          const res = await call(op.method, query ? `${target}?${query}` : target, { auth, body });
          if (res.status < 300) successes++;
        }
      }
      // Errors too: unknown path below the route, a method it does not allow.
      await call(op.method, `${op.path.replace(/\{\w+\}/g, 'x')}/nope`, { auth });
      const other = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !doc.methodsByPath.get(op.path)!.includes(m));
      if (other) expect((await call(other, anyTarget(op), { auth })).status).toBe(405);
    }
    expect(successes, 'some requests of the sweep succeeded').toBeGreaterThan(doc.operations.length / 2);
  });
});

describe.each(B_HOMES)('tenancy, platform B in %s (A in DB)', (home) => {
  let b: TestPlatform;
  let bIds: string[];
  beforeAll(() => void ({ b, bIds } = bs.get(home)!));

  it("B's records are really read: many ids of several kinds, from B's home", () => {
    expect(b.home).toBe(home);
    expect(bIds.length).toBeGreaterThan(15);
    const kinds = (ids: string[]) => [...new Set(ids.map((id) => id.split(':')[0]))].sort();
    expect(kinds(bIds).length).toBeGreaterThan(5);
    // Populated alike (the same seed), B has the same kinds of records in either home.
    expect(kinds(bIds)).toEqual(kinds(bs.get('DB')!.bIds));
    // A's and B's records are apart.
    expect(bIds.filter((id) => aIds.includes(id))).toEqual([]);
  });

  /** Walks a list page by page (limit 1, so cursors are exercised) and returns every answer's text. */
  async function walk(op: Operation, auth: string, query: string, cursor?: string): Promise<Answer[]> {
    const out: Answer[] = [];
    for (let page = 0; page < 50; page++) {
      const q = [query, op.params.some((p) => p.name === 'limit') ? 'limit=1' : '', cursor ? `cursor=${encodeURIComponent(cursor)}` : '']
        .filter(Boolean)
        .join('&');
      const res = await call('GET', q ? `${op.path}?${q}` : op.path, { auth });
      out.push(res);
      cursor = res.status === 200 ? res.body.nextCursor : undefined;
      if (!cursor) break;
    }
    return out;
  }

  /** Values for a list's required query parameters: for id parameters, each of `ids` of a kind that list accepts. */
  function queries(op: Operation, ids: string[]): string[] {
    const required = op.params.filter((p) => p.in === 'query' && p.required);
    if (!required.length) return [''];
    return ids.map((id) => required.map((p) => `${p.name}=${encodeURIComponent(/(^id$|Id$)/.test(p.name) ? id : 'x')}`).join('&'));
  }

  it("no list endpoint ever shows platform B another platform's records", async () => {
    const lists = basicOps.filter((op) => isList(doc, op));
    expect(lists.length).toBeGreaterThan(3);
    const foreign = aIds.filter((id) => id !== a.id);
    const showedOwner = new Set<string>();
    const showedB = new Set<string>();
    for (const op of lists) {
      for (const q of queries(op, aIds)) {
        const own = await walk(op, a.auth, q);
        if (own.some((res) => foreign.some((id) => res.text.includes(id)))) showedOwner.add(label(op));
        // B lists with A's ids in the query and with A's own cursors.
        const cursors = own.map((r) => r.body?.nextCursor).filter(Boolean) as string[];
        for (const cursor of [undefined, ...cursors.slice(0, 3)]) {
          for (const res of await walk(op, b.auth, q, cursor)) {
            const leaked = foreign.filter((id) => res.text.includes(id) && !q.includes(encodeURIComponent(id)));
            expect(leaked, `${label(op)}?${q} as B: ${res.text.slice(0, 300)}`).toEqual([]);
          }
        }
      }
      for (const q of queries(op, bIds)) {
        if ((await walk(op, b.auth, q)).some((res) => bIds.some((id) => id !== b.id && res.text.includes(id)))) showedB.add(label(op));
      }
    }
    // The sweep can fail: both platforms see their own records through most of these lists.
    expect(showedOwner.size, [...showedOwner].join(', ')).toBeGreaterThanOrEqual(Math.min(4, lists.length));
    expect([...showedB].sort()).toEqual([...showedOwner].sort());
  });

  it("no route answers 2xx for another platform's id, and such requests change nothing of that platform", async () => {
    const ops = basicOps.filter((op) => op.params.some((p) => p.in === 'path'));
    expect(ops.length).toBeGreaterThan(3);
    const hints: Hints = { ids: fc.constantFrom(...bIds), fields: { clientPublicKey: fc.constantFrom(...clientKeys(2)) } };
    const snapshotB = await snapshotter([b]);
    const before = await snapshotB();
    let notFound = 0;
    for (const op of ops) {
      const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
      const body = op.body ? fc.sample(validish(doc, op.body.schema, hints), { seed: SEED, numRuns: 1 })[0] : undefined;
      for (const id of bIds) {
        const target = fillPath(op.path, Object.fromEntries(pathNames.map((n) => [n, encodeURIComponent(id)])));
        const res = await call(op.method, target, { auth: a.auth, body });
        expect(res.status, `${label(op)} as A with B's ${id}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${label(op)} as A with B's ${id}: ${res.text}`).toBeLessThan(500);
        if (res.status === 404) notFound++;
      }
    }
    expect(notFound).toBeGreaterThan(ops.length);
    expect(changedTables(before, await snapshotB()), "B's rows after A named them").toEqual([]);
    // B's own credentials still work.
    expect((await call('GET', '/config', { auth: b.auth })).status).toBe(200);
  });
});
