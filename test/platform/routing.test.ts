import { createExecutionContext, env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import worker from '../../src/index';
import { ROUTES } from '../../src/router';
import { api, BASE, expectError, newPlatform, ORIGIN } from '../support/api';

/** Calls the Worker with a modified environment (settings that tests cannot change through HTTP). */
async function fetchWith(overrides: Record<string, unknown>, url: string, init?: RequestInit) {
  const res = await worker.fetch(new Request(url, init), { ...env, ...overrides } as never, createExecutionContext());
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as any };
}

describe('routing and versioning', () => {
  it('answers /healthz outside the base without auth, never cached', async () => {
    const res = await api('GET', `${ORIGIN}/healthz`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('serves the API only under the version segment', async () => {
    const p = await newPlatform();
    expect((await api('GET', `${BASE}/config`, { auth: p.auth })).status).toBe(200);
    expectError(await api('GET', `${ORIGIN}/config`, { auth: p.auth }), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
    expectError(await api('GET', `${ORIGIN}/2024-01-01/config`, { auth: p.auth }), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
  });

  it('answers 404 in the error shape for an unknown path', async () => {
    expectError(await api('GET', '/no-such-thing'), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const res = await api('PUT', '/config');
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('Allow')).toBe('GET, PATCH');
    const tokens = await api('DELETE', '/tokens');
    expectError(tokens, 405);
    expect(tokens.headers.get('Allow')).toBe('POST, GET');
  });

  it('answers 405 for a literal path with a method only a parameter route beside it serves', async () => {
    const p = await newPlatform();
    // GET /webhooks/deliveries/{id} exists; `replay` is not a delivery id but an operation of its own.
    const replay = await api('GET', '/webhooks/deliveries/replay', { auth: p.auth });
    expectError(replay, 405, 'METHOD_NOT_ALLOWED');
    expect(replay.headers.get('Allow')).toBe('POST');
    const me = await api('PATCH', '/agents/me', { auth: p.auth });
    expectError(me, 405);
    expect(me.headers.get('Allow')).toBe('GET');
    // The parameter route itself still answers its own method.
    expectError(await api('GET', '/webhooks/deliveries/WebhookDelivery:nope', { auth: p.auth }), 404);
  });

  it('mounts the API under API_PREFIX when set', async () => {
    const p = await newPlatform();
    const under = await fetchWith({ API_PREFIX: 'payments' }, `${ORIGIN}/payments/2025-10-13/config`, {
      headers: { Authorization: p.auth },
    });
    expect(under.status).toBe(200);
    expect(under.body.id).toMatch(/^PlatformConfig:/);
    const bare = await fetchWith({ API_PREFIX: 'payments' }, `${ORIGIN}/2025-10-13/config`, { headers: { Authorization: p.auth } });
    expect(bare.status).toBe(404);
  });

  it('turns unexpected exceptions into a bare 500 INTERNAL_ERROR without stack or SQL', async () => {
    const p = await newPlatform();
    const failingDb = {
      prepare() {
        throw new Error('D1_ERROR: no such table: api_tokens_secret_sql SELECT secret_hash FROM api_tokens');
      },
      // Requests run on a D1 session (src/http/session.ts): the session's statements fail alike.
      withSession: () => failingDb,
    };
    // The Worker logs the error with its stack (asserted here, not printed): the answer carries neither.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await fetchWith({ DB: failingDb }, `${BASE}/config`, { headers: { Authorization: p.auth } });
    const lines = printed.mock.calls.map(([line]) => JSON.parse(String(line)));
    printed.mockRestore();
    expect(lines).toEqual([expect.objectContaining({ level: 'error', msg: 'unhandled error', path: '/2025-10-13/config' })]);
    expect(lines[0].stack).toContain('D1_ERROR');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: 'Internal error' });
    expect(JSON.stringify(res.body)).not.toMatch(/SELECT|api_tokens|at /);
  });
});

describe('OpenAPI document', () => {
  it('is a parseable OpenAPI 3.1 document listing every route the router has', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2025-10-13');
    for (const route of ROUTES) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect(op.operationId).toBe(route.operationId);
      expect(Object.keys(op.responses).length).toBeGreaterThan(0);
    }
    const listed = Object.values(doc.paths).flatMap((item: any) => Object.keys(item)).length;
    expect(listed).toBe(ROUTES.length + 1); // + /openapi.json itself
    // Every $ref points at a component that exists.
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(doc.components.schemas[ref.slice(22, -1)], ref).toBeDefined();
  });

  it('describes request bodies and security from the handlers’ own schemas', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const patch = doc.paths['/config'].patch;
    expect(patch.security).toEqual([{ BasicAuth: [] }]);
    expect(patch.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/PlatformConfigUpdateRequest');
    expect(doc.components.schemas.PlatformConfig.properties.embeddedWalletConfig).toBeDefined();
    const list = doc.paths['/tokens'].get;
    expect(list.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'cursor', 'name', 'createdAfter', 'createdBefore', 'updatedAfter', 'updatedBefore']),
    );
    expect(doc.paths['/operator/platforms'].post.security).toEqual([{ OperatorAuth: [] }]);
  });
});
