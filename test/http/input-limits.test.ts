import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform } from '../support/api';
import { individualBody } from '../support/customers';

/** A JSON body whose `field` holds an array nested `depth` deep. */
const deep = (body: Record<string, unknown>, field: string, depth: number) =>
  JSON.stringify({ ...body, [field]: 0 }).replace('"' + field + '":0', `"${field}":${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('JSON bodies nested past 64 levels are 400, on every route', () => {
  it('a fixtures document with a 5,000-deep array', async () => {
    const p = await newPlatform();
    const raw = deep({}, 'customers', 5_000);
    expect(raw.length).toBeGreaterThan(10_000);
    const res = await api('POST', '/sandbox/fixtures', { auth: p.auth, raw, headers: { 'Content-Type': 'application/json' } });
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.message).toContain('deeper than 64 levels');
    expect(failingFields(res)).toEqual(['(body)']);
    expect((await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(0);
  });

  it('a customer with a 5,000-deep array, and 65 levels; 64 levels reach the schema', async () => {
    const p = await newPlatform();
    const send = (raw: string) => api('POST', '/customers', { auth: p.auth, raw, headers: { 'Content-Type': 'application/json' } });
    for (const depth of [5_000, 64]) {
      const res = await send(deep(individualBody(), 'address', depth));
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.body.message).toContain('deeper than 64 levels');
    }
    // 63 levels inside the body's own object: the schema answers (an address is no array), not the depth bound.
    const res = await send(deep(individualBody(), 'address', 63));
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['address']);
    // Brackets inside strings are text, not nesting.
    const ok = await api('POST', '/customers', { auth: p.auth, body: individualBody({ fullName: `${'['.repeat(70)} Smith` }) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });
});

describe('control characters in any query parameter are 400', () => {
  it("a NUL in a customer search, and in other lists' filters", async () => {
    const p = await newPlatform();
    for (const path of [
      '/customers?search=Bob%00xx',
      '/customers?platformCustomerId=Bob%00xx',
      '/transactions?platformCustomerId=Bob%01',
      '/agents?limit=10%0A',
    ]) {
      const res = await api('GET', path, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.body.details.fields[0].message, path).toBe('Control characters are not allowed');
    }
    // Text with no control character still searches.
    expect((await api('GET', '/customers?search=Bob%20xx', { auth: p.auth })).status).toBe(200);
  });
});
