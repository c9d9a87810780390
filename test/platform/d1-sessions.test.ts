import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, OPERATOR, workerApi, type CallOptions } from '../support/api';
import { individualBody } from '../support/customers';
import { measured } from '../perf/counting';

/**
 * Reads near the user (D1 Sessions API): every request runs on one D1 session; an operator request's response
 * carries its bookmark in X-D1-Bookmark, a request that sends one back reads at least that fresh (a platform's
 * requests read at the primary and answer none: test/security/global-positions.test.ts). Local D1 has no
 * replicas, so these tests hold the plumbing and the policy (where each session starts), not replica lag.
 */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** Where each D1 session of one request starts (a constraint or a bookmark), through the real binding. */
async function sessionsOf(method: string, path: string, opts: CallOptions = {}) {
  const starts: string[] = [];
  const DB = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === 'withSession')
        return (start?: string) => {
          starts.push(start ?? '');
          return target.withSession(start);
        };
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const res = await workerApi(method, path, { DB }, opts);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return starts;
}

describe('D1 sessions and bookmarks', () => {
  it('/openapi.json tells clients about the bookmark header', async () => {
    const doc = await api('GET', '/openapi.json');
    expect(doc.body.info.description).toContain('`X-D1-Bookmark`');
  });

  it("the operator's answers carry a bookmark; sent back, the read answers with one at least as fresh", async () => {
    const first = await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR });
    expect(first.status).toBe(200);
    const seen = first.headers.get('X-D1-Bookmark');
    expect(seen).toMatch(BOOKMARK);
    const p = await newPlatform();
    const list = await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR, headers: { 'X-D1-Bookmark': seen! } });
    expect(list.status).toBe(200);
    const after = list.headers.get('X-D1-Bookmark');
    expect(after).toMatch(BOOKMARK);
    // Bookmarks order lexicographically, oldest first: this one has the new platform's write.
    expect(after! > seen!).toBe(true);
    // A platform's request honours a bookmark by reading at the primary, which is always fresher.
    const read = await api('GET', '/config', { auth: p.auth, headers: { 'X-D1-Bookmark': after! } });
    expect(read.status).toBe(200);
    expect(read.headers.get('X-D1-Bookmark')).toBeNull();
  });

  it('a malformed bookmark is a 400 naming the header, after authentication, and changes nothing', async () => {
    const p = await newPlatform();
    for (const bad of ['garbage', '', '00000000-0000000d-00000000', 'FFFFFFFF-FFFFFFFF-FFFFFFFF-FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF']) {
      const body = individualBody();
      const res = await api('POST', '/customers', { auth: p.auth, body, headers: { 'X-D1-Bookmark': bad } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res)).toEqual(['X-D1-Bookmark']);
      const found = await api('GET', `/customers?platformCustomerId=${encodeURIComponent(body.platformCustomerId)}`, { auth: p.auth });
      expect(found.body.data).toEqual([]);
    }
    // Authentication's refusal comes first, as for any invalid input.
    expectError(await api('GET', '/customers', { auth: 'Basic bm86cGU=', headers: { 'X-D1-Bookmark': 'garbage' } }), 401);
    // A route with loads in the authentication round trip refuses it too.
    const listed = await api('GET', '/customers', { auth: p.auth, headers: { 'X-D1-Bookmark': 'garbage' } });
    expectError(listed, 400, 'INVALID_INPUT');
  });

  it('whatever must see the latest write starts at the primary; only a credential-free read may start at a replica', async () => {
    const p = await newPlatform();
    const fresh = (await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR })).headers.get('X-D1-Bookmark')!;
    expect(fresh).toMatch(BOOKMARK);
    // Authentication reads the token on the primary (a deleted token fails on the next request), bookmark or not.
    expect(await sessionsOf('GET', '/customers', { auth: p.auth })).toEqual(['first-primary']);
    expect(await sessionsOf('GET', '/customers', { auth: p.auth, headers: { 'X-D1-Bookmark': fresh } })).toEqual(['first-primary']);
    // Writes (claims, balances, conditional money movements) start at the primary.
    expect(await sessionsOf('POST', '/customers', { auth: p.auth, body: individualBody() })).toEqual(['first-primary']);
    // The operator's token is a setting, not a stored credential: its reads may go to any replica, as fresh as the bookmark.
    expect(await sessionsOf('GET', '/operator/platforms?limit=1', { auth: OPERATOR })).toEqual(['first-unconstrained']);
    expect(await sessionsOf('GET', '/operator/platforms?limit=1', { auth: OPERATOR, headers: { 'X-D1-Bookmark': fresh } })).toEqual([
      fresh,
    ]);
  });

  it('the round-trip counter (test/perf/counting.ts) sees the statements a request runs on its session', async () => {
    const p = await newPlatform();
    const res = await measured('GET', '/customers', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.cost.d1).toBe(1);
    expect(res.cost.sql.some((s) => /from "customers"/.test(s.query))).toBe(true);
  });
});
