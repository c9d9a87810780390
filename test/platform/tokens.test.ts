import { describe, expect, it } from 'vitest';
import { api, basic, expectError, failingFields, newPlatform, OPERATOR, tokenWith } from '../support/api';
import { walk } from '../support/customers';

const TOKEN_KEYS = ['clientId', 'createdAt', 'id', 'name', 'permissions', 'updatedAt'];

describe('API tokens', () => {
  it('creates a token whose secret is shown once, has 256 bits and authenticates', async () => {
    const p = await newPlatform();
    const res = await api('POST', '/tokens', { auth: p.auth, body: { name: 'ci', permissions: ['VIEW', 'TRANSACT'] } });
    expect(res.status).toBe(201);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual([...TOKEN_KEYS, 'clientSecret'].sort());
    expect(res.body.id).toMatch(/^Token:[0-9a-f-]{36}$/);
    expect(res.body.name).toBe('ci');
    expect(res.body.permissions).toEqual(['VIEW', 'TRANSACT']);
    expect(res.body.createdAt).toMatch(/Z$/);
    // 32 random bytes in base64url: 43 characters.
    expect(res.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const auth = basic(res.body.clientId, res.body.clientSecret);
    expect((await api('GET', '/config', { auth })).status).toBe(200);

    const again = await api('GET', `/tokens/${res.body.id}`, { auth: p.auth });
    expect(Object.keys(again.body).sort()).toEqual(TOKEN_KEYS);
    expect(JSON.stringify(again.body)).not.toContain(res.body.clientSecret);
  });

  it('accepts an empty permission list (a token that can do nothing) and dedupes', async () => {
    const p = await newPlatform();
    const none = await api('POST', '/tokens', { auth: p.auth, body: { name: 'none', permissions: [] } });
    expect(none.status).toBe(201);
    expect(none.body.permissions).toEqual([]);
    expectError(await api('GET', '/config', { auth: basic(none.body.clientId, none.body.clientSecret) }), 403, 'FORBIDDEN');
    const dup = await api('POST', '/tokens', { auth: p.auth, body: { name: 'dup', permissions: ['VIEW', 'VIEW'] } });
    expect(dup.body.permissions).toEqual(['VIEW']);
  });

  it('a token grants only permissions it holds: asking for more is 403 naming them, and creates nothing', async () => {
    const p = await newPlatform();
    const manage = await tokenWith(p, ['MANAGE']);
    const before = (await api('GET', '/tokens?limit=100', { auth: p.auth })).body.data.map((t: any) => t.id);

    const res = await api('POST', '/tokens', { auth: manage, body: { name: 'escalate', permissions: ['VIEW', 'TRANSACT', 'MANAGE'] } });
    const error = expectError(res, 403, 'FORBIDDEN');
    expect(error.details).toEqual({ missingPermissions: ['VIEW', 'TRANSACT'] });
    expect(error.message).toContain('VIEW');
    expect(error.message).toContain('TRANSACT');
    expectError(await api('POST', '/tokens', { auth: manage, body: { name: 'escalate', permissions: ['TRANSACT'] } }), 403, 'FORBIDDEN');
    const after = (await api('GET', '/tokens?limit=100', { auth: p.auth })).body.data.map((t: any) => t.id);
    expect(after).toEqual(before);

    // Within its own permissions it may create tokens, down to one that can do nothing.
    const same = await api('POST', '/tokens', { auth: manage, body: { name: 'manager', permissions: ['MANAGE'] } });
    expect(same.status).toBe(201);
    expect(same.body.permissions).toEqual(['MANAGE']);
    const none = await api('POST', '/tokens', { auth: manage, body: { name: 'none', permissions: [] } });
    expect(none.status).toBe(201);
    expect(none.body.permissions).toEqual([]);

    // A token with every permission may grant any of them.
    const all = await api('POST', '/tokens', { auth: p.auth, body: { name: 'all', permissions: ['VIEW', 'TRANSACT', 'MANAGE'] } });
    expect(all.status).toBe(201);
    expect(all.body.permissions).toEqual(['VIEW', 'TRANSACT', 'MANAGE']);
  });

  it('validates name and permissions', async () => {
    const p = await newPlatform();
    expect(failingFields(await api('POST', '/tokens', { auth: p.auth, body: { name: 'x', permissions: ['ROOT'] } }))).toEqual([
      'permissions.0',
    ]);
    expect(failingFields(await api('POST', '/tokens', { auth: p.auth, body: { name: 'x' } }))).toEqual(['permissions']);
    expect(failingFields(await api('POST', '/tokens', { auth: p.auth, body: { name: '  ', permissions: [] } }))).toEqual(['name']);
    expect(failingFields(await api('POST', '/tokens', { auth: p.auth, body: { name: 'x'.repeat(256), permissions: [] } }))).toEqual([
      'name',
    ]);
  });

  it('lists tokens with keyset pagination, filters, and never a secret or hash', async () => {
    const p = await newPlatform();
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push((await api('POST', '/tokens', { auth: p.auth, body: { name: i % 2 ? 'odd' : 'even', permissions: ['VIEW'] } })).body);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await api('GET', `/tokens?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { auth: p.auth });
      expect(res.status).toBe(200);
      expect(res.body.totalCount).toBe(pages === 0 ? 6 : 7);
      for (const t of res.body.data) {
        expect(Object.keys(t).sort()).toEqual(TOKEN_KEYS);
        seen.push(t.id);
      }
      if (res.body.hasMore) expect(res.body.nextCursor).toEqual(expect.any(String));
      else expect(res.body).not.toHaveProperty('nextCursor');
      cursor = res.body.nextCursor;
      pages++;
      // A token created between page fetches does not disturb the walk.
      if (pages === 1) created.push((await api('POST', '/tokens', { auth: p.auth, body: { name: 'late', permissions: [] } })).body);
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([p.tokenId, ...created.slice(0, 5).map((t) => t.id)]));

    const listing = JSON.stringify((await api('GET', '/tokens?limit=100', { auth: p.auth })).body);
    for (const t of created) expect(listing).not.toContain(t.clientSecret);
    expect(listing).not.toMatch(/secret|hash/i);

    const odd = await api('GET', '/tokens?name=odd', { auth: p.auth });
    expect(odd.body.data.map((t: any) => t.name)).toEqual(['odd', 'odd']);
    expect(odd.body).not.toHaveProperty('totalCount'); // filtered views have no maintained count

    const after = created[3].createdAt;
    const recent = await api('GET', `/tokens?createdAfter=${encodeURIComponent(after)}`, { auth: p.auth });
    expect(recent.body.data.every((t: any) => t.createdAt >= after)).toBe(true);
    const none = await api('GET', `/tokens?createdBefore=2000-01-01T00:00:00Z`, { auth: p.auth });
    expect(none.body).toEqual({ data: [], hasMore: false });
  });

  it('a date range pages in that date order, each token once; a cursor of the unfiltered list is refused there', async () => {
    const p = await newPlatform();
    const made: any[] = [];
    for (let i = 0; i < 5; i++) made.push((await api('POST', '/tokens', { auth: p.auth, body: { name: `t${i}`, permissions: [] } })).body);
    const after = encodeURIComponent(made[0].createdAt);
    const created = await walk(`/tokens?createdAfter=${after}&limit=2`, p.auth);
    expect(created.map((t: any) => t.id)).toEqual(made.filter((t) => t.createdAt >= made[0].createdAt).map((t) => t.id));
    // Tokens are never updated: the update-time range pages them the same way.
    expect((await walk(`/tokens?updatedAfter=${after}&limit=2`, p.auth)).map((t: any) => t.id)).toEqual(created.map((t: any) => t.id));
    const plain = (await api('GET', '/tokens?limit=1', { auth: p.auth })).body;
    expectError(await api('GET', `/tokens?createdAfter=${after}&cursor=${plain.nextCursor}`, { auth: p.auth }), 400, 'INVALID_INPUT');
  });

  it('gets a token by id; unknown and other platforms answer 404 TOKEN_NOT_FOUND', async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    expect((await api('GET', `/tokens/${a.tokenId}`, { auth: a.auth })).body.id).toBe(a.tokenId);
    expectError(await api('GET', `/tokens/${a.tokenId}`, { auth: b.auth }), 404, 'TOKEN_NOT_FOUND');
    expectError(await api('GET', '/tokens/Token:00000000-0000-7000-8000-000000000000', { auth: a.auth }), 404, 'TOKEN_NOT_FOUND');
    expectError(await api('GET', '/tokens/%E0%A4%A', { auth: a.auth }), 404, 'TOKEN_NOT_FOUND');
    const list = await api('GET', '/tokens', { auth: b.auth });
    expect(list.body.data.map((t: any) => t.id)).toEqual([b.tokenId]);
  });

  it('deletes a token: 204, it stops authenticating at once, and another platform cannot delete it', async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    const t = (await api('POST', '/tokens', { auth: a.auth, body: { name: 'temp', permissions: ['VIEW'] } })).body;
    const auth = basic(t.clientId, t.clientSecret);
    expect((await api('GET', '/config', { auth })).status).toBe(200);

    expectError(await api('DELETE', `/tokens/${t.id}`, { auth: b.auth }), 404, 'TOKEN_NOT_FOUND');
    expect((await api('GET', '/config', { auth })).status).toBe(200);

    const del = await api('DELETE', `/tokens/${t.id}`, { auth: a.auth });
    expect(del.status).toBe(204);
    expect(del.body).toBe('');
    expectError(await api('GET', '/config', { auth }), 401, 'UNAUTHORIZED');
    expectError(await api('DELETE', `/tokens/${t.id}`, { auth: a.auth }), 404, 'TOKEN_NOT_FOUND');
    expectError(await api('GET', `/tokens/${t.id}`, { auth: a.auth }), 404, 'TOKEN_NOT_FOUND');
  });

  it('a token can delete itself', async () => {
    const a = await newPlatform();
    expect((await api('DELETE', `/tokens/${a.tokenId}`, { auth: a.auth })).status).toBe(204);
    expectError(await api('GET', '/config', { auth: a.auth }), 401);
  });

  it('operator responses never contain a secret hash', async () => {
    await newPlatform();
    const list = await api('GET', '/operator/platforms?limit=100', { auth: OPERATOR });
    expect(JSON.stringify(list.body)).not.toMatch(/secret|hash/i);
  });
});
