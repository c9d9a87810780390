import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { quotes } from '../../src/db/schema';
import { api, expectError, newPlatform, type TestPlatform } from '../support/api';
import { multipart } from '../support/customers';
import { balanceOf, createQuote, customerWithAccounts, execute, externalAccount, fund } from '../support/payments';

/** A JSON text sent with `contentType` (none: a byte body, for which fetch adds no Content-Type). */
const send = (p: TestPlatform, method: string, path: string, body: unknown, contentType?: string, headers: Record<string, string> = {}) =>
  api(method, path, {
    auth: p.auth,
    raw: contentType === undefined ? new TextEncoder().encode(JSON.stringify(body)) : JSON.stringify(body),
    headers: { ...headers, ...(contentType === undefined ? {} : { 'Content-Type': contentType }) },
  });

const tokenIds = async (p: TestPlatform) =>
  (await api('GET', '/tokens?limit=100', { auth: p.auth })).body.data.map((t: { id: string }) => t.id);

describe('the media type of request bodies', () => {
  it('a JSON route refuses a body that is not application/json with 415, before any side effect', async () => {
    const p = await newPlatform();
    const before = await tokenIds(p);
    const token = { name: 'cross-site', permissions: ['VIEW'] };
    // What a browser sends cross-site without a preflight: text/plain, a form encoding, or no type at all.
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', undefined]) {
      const error = expectError(await send(p, 'POST', '/tokens', token, type), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(error).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('application/json') });
    }
    expect(await tokenIds(p)).toEqual(before);

    // A quote and a transfer (whose checks ride on the authentication round trip) are refused alike.
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 50_000);
    const ext = await externalAccount(p, customer.id, 'USD', '123');
    const quote = {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    };
    expectError(await send(p, 'POST', '/quotes', quote, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const transfer = { source: { accountId: accounts.USD }, destination: { accountId: ext }, amount: 1_000 };
    expectError(
      await send(p, 'POST', '/transfer-out', transfer, 'text/plain', { 'Idempotency-Key': crypto.randomUUID() }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(await send(p, 'PATCH', '/config', { umaDomain: 'cross-site.example.com' }, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await database(env.DB).select().from(quotes).where(eq(quotes.platformId, p.id))).toEqual([]);
    expect(await balanceOf(p, accounts.USD!)).toBe(50_000);
    expect((await api('GET', '/config', { auth: p.auth })).body.umaDomain).not.toBe('cross-site.example.com');

    // The same requests as application/json go through.
    expect((await send(p, 'POST', '/quotes', quote, 'application/json')).status).toBe(201);
    expect((await send(p, 'POST', '/transfer-out', transfer, 'application/json', { 'Idempotency-Key': crypto.randomUUID() })).status).toBe(
      201,
    );
  });

  it('application/json is matched case-insensitively with parameters; other types are 415; no body needs no type', async () => {
    const p = await newPlatform();
    const token = { name: 'typed', permissions: [] };
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON;Charset="UTF-8"',
      'application/json ; foo=bar',
    ]) {
      expect((await send(p, 'POST', '/tokens', token, type)).status, type).toBe(201);
    }
    for (const type of [
      'application/json; charset=utf-16',
      'application/merge-patch+json',
      'application/jsonp',
      'text/json',
      'application/json, text/plain',
      '*/*',
    ]) {
      expectError(await send(p, 'POST', '/tokens', token, type), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    // No body at all, or an empty one under any type: the route's own rules answer, not the media type.
    expectError(await api('POST', '/tokens', { auth: p.auth }), 400, 'INVALID_INPUT');
    expectError(await api('POST', '/tokens', { auth: p.auth, raw: '', headers: { 'Content-Type': 'text/plain' } }), 400, 'INVALID_INPUT');
    expectError(await api('POST', '/transactions/Transaction:unknown/approve', { auth: p.auth }), 404);
    expectError(
      await api('POST', '/transactions/Transaction:unknown/reject', { auth: p.auth, raw: '', headers: { 'Content-Type': 'text/plain' } }),
      404,
    );
    const t = await api('POST', '/tokens', { auth: p.auth, body: { name: 'temp', permissions: [] } });
    expect((await api('DELETE', `/tokens/${t.body.id}`, { auth: p.auth })).status).toBe(204);
  });

  it('multipart routes require multipart/form-data', async () => {
    const p = await newPlatform();
    const csv = multipart([
      { name: 'file', filename: 'c.csv', contentType: 'text/csv', value: 'umaAddress,platformCustomerId,customerType\n' },
    ]);
    for (const path of ['/documents', '/customers/bulk/csv']) {
      expectError(
        await api('POST', path, { auth: p.auth, raw: csv.body, headers: { 'Content-Type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectError(await api('POST', path, { auth: p.auth, body: { file: 'x' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectError(await api('POST', path, { auth: p.auth }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    // The right type with no boundary is malformed input, not the wrong type.
    expectError(
      await api('POST', '/documents', { auth: p.auth, raw: csv.body, headers: { 'Content-Type': 'multipart/form-data' } }),
      400,
      'INVALID_INPUT',
    );
  });

  it('/openapi.json lists 415 on every operation that takes a body, and only there', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    let withBody = 0;
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        if (op.requestBody) withBody++;
        expect(op.responses['415'] !== undefined, `${method} ${path}`).toBe(op.requestBody !== undefined);
      }
    }
    expect(withBody).toBeGreaterThan(10);
    expect(doc.paths['/tokens'].post.responses['415'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error415',
    });
  });
});

describe('requests a browser marks as coming from another site', () => {
  it('a bodiless write from a page of another site is 403 before any side effect; reads and API clients are unaffected', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 50_000);
    const ext = await externalAccount(p, customer.id, 'USD', '123');
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    const executeFrom = (site?: string) => execute(p, quote.id, undefined, site ? { 'Sec-Fetch-Site': site } : {});
    for (const site of ['cross-site', 'same-site']) {
      expectError(await executeFrom(site), 403, 'FORBIDDEN');
      expectError(await api('POST', '/sandbox/reset', { auth: p.auth, headers: { 'Sec-Fetch-Site': site } }), 403, 'FORBIDDEN');
    }
    expect(await balanceOf(p, accounts.USD!)).toBe(50_000);
    expect((await api('GET', `/customers/${customer.id}`, { auth: p.auth, headers: { 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(200);
    // A page of the service itself, and an API client (no such header), go through.
    expect((await executeFrom('same-origin')).status).toBe(200);
    expect(await balanceOf(p, accounts.USD!)).toBeLessThan(50_000);
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
  });
});
