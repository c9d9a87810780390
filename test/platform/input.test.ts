import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform } from '../support/api';

describe('input errors', () => {
  it('malformed JSON is 400 INVALID_INPUT', async () => {
    const p = await newPlatform();
    for (const raw of ['{', '{"name": }', 'nul', '{"a":1}}']) {
      const res = await api('POST', '/tokens', { auth: p.auth, raw, headers: { 'Content-Type': 'application/json' } });
      expectError(res, 400, 'INVALID_INPUT');
    }
  });

  it('a missing body where one is required is 400', async () => {
    const p = await newPlatform();
    expectError(await api('POST', '/tokens', { auth: p.auth }), 400, 'INVALID_INPUT');
  });

  it('wrong types, unknown enum values and missing fields are named in details', async () => {
    const p = await newPlatform();
    const wrongType = await api('POST', '/tokens', { auth: p.auth, body: { name: 42, permissions: 'VIEW' } });
    expectError(wrongType, 400, 'INVALID_INPUT');
    expect(failingFields(wrongType).sort()).toEqual(['name', 'permissions']);

    const badEnum = await api('POST', '/tokens', { auth: p.auth, body: { name: 'x', permissions: ['VIEW', 'ADMIN'] } });
    expect(failingFields(badEnum)).toEqual(['permissions.1']);

    const missing = await api('POST', '/tokens', { auth: p.auth, body: {} });
    expect(failingFields(missing).sort()).toEqual(['name', 'permissions']);

    const notObject = await api('POST', '/tokens', { auth: p.auth, body: [1, 2] });
    expectError(notObject, 400, 'INVALID_INPUT');
  });

  it('bad query values are 400 naming the parameter', async () => {
    const p = await newPlatform();
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'createdAfter=yesterday', 'cursor=%%%', 'limit=1&limit=2']) {
      const res = await api('GET', `/tokens?${q}`, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).length, q).toBeGreaterThan(0);
    }
  });

  it('JSON bodies over 1 MiB are 413, declared or streamed', async () => {
    const p = await newPlatform();
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), permissions: [] });
    const declared = await api('POST', '/tokens', { auth: p.auth, raw: big, headers: { 'Content-Type': 'application/json' } });
    expectError(declared, 413);

    // A native stream the test writes into: the service stops reading at the limit, and the writes it refuses fail
    // here, where they are expected (a JS stream's pump would report them as an uncaught rejection).
    const { readable, writable } = new IdentityTransformStream();
    const writer = writable.getWriter();
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const writing = (async () => {
      for (let i = 0; i < 20; i++) await writer.write(chunk);
      await writer.close();
    })().then(
      () => 'sent',
      () => 'refused',
    );
    const streamed = await api('POST', '/tokens', { auth: p.auth, raw: readable, headers: { 'Content-Type': 'application/json' } });
    expectError(streamed, 413);
    expect(await writing).toBe('refused');
    // Nothing was created by the refused requests.
    expect((await api('GET', '/tokens', { auth: p.auth })).body.totalCount).toBe(1);
  });

  it('a body just under the limit is read', async () => {
    const p = await newPlatform();
    // Padded with JSON whitespace (an unknown field would be refused).
    const raw = JSON.stringify({ name: 'ok', permissions: [] }) + ' '.repeat(1000 * 1000);
    const res = await api('POST', '/tokens', { auth: p.auth, raw, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(201);
  });
});
