// Sandbox fault rules across tokens of different permissions: what a rule may record, target and block.
import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, tokenWith } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { policy } from '../support/agents';

describe('firings', () => {
  it('record a device code path by its :code, so a VIEW token reading them learns no redeemable code', async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p, individualBody());
    const created = await api('POST', '/agents', { auth: p.auth, body: { name: 'Bot', customerId: customer.id, policy: policy() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const code = created.body.deviceCode.code as string;
    const rule = await api('POST', '/sandbox/faults', {
      auth: p.auth,
      body: { match: { method: 'GET', path: '/agents/device-codes/{code}/status' }, effect: { type: 'ERROR', status: 503 } },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    expectError(await api('GET', `/agents/device-codes/${code}/status`, { auth: p.auth }), 503, 'INTERNAL_ERROR');

    const view = await tokenWith(p, ['VIEW']);
    const shown = await api('GET', `/sandbox/faults/${rule.body.id}`, { auth: view });
    expect(shown.status).toBe(200);
    expect(shown.body.firings).toEqual([expect.objectContaining({ method: 'GET', path: '/2025-10-13/agents/device-codes/:code/status' })]);
    expect(JSON.stringify(shown.body)).not.toContain(code);
  });
});

describe('what a rule may target', () => {
  const error = { type: 'ERROR', status: 503 };

  it('never a revocation: a rule on revoking a token, an agent, a session, a passkey or the rules themselves is 400', async () => {
    const p = await newPlatform();
    for (const path of ['/tokens/{tokenId}', '/agents/{agentId}', '/auth/sessions/{id}', '/auth/credentials/{id}', '/sandbox/faults']) {
      const res = await api('POST', '/sandbox/faults', { auth: p.auth, body: { match: { method: 'DELETE', path }, effect: error } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), path).toContain('match.path');
    }
    expect((await api('GET', '/sandbox/faults', { auth: p.auth })).body).toEqual({ data: [] });
    const doomed = await tokenWith(p, ['VIEW']);
    const listed = await api('GET', '/tokens', { auth: p.auth });
    expect(listed.status).toBe(200);
    const id = (listed.body.data as { id: string; name: string }[]).find((t) => t.name === 'perm-VIEW')!.id;
    expect((await api('DELETE', `/tokens/${id}`, { auth: p.auth })).status).toBe(204);
    expectError(await api('GET', '/config', { auth: doomed }), 401, 'UNAUTHORIZED');
  });

  it('/openapi.json marks exactly the revocations (the console offers the rest): each marked one is refused, an unmarked one accepted', async () => {
    const p = await newPlatform();
    const doc = await api('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    const ops = Object.entries(doc.body.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, revokes: op['x-revokes-credential'] === true })),
    );
    const marked = ops.filter((o) => o.revokes).map((o) => `${o.method} ${o.path}`);
    expect(marked).toEqual(expect.arrayContaining(['DELETE /tokens/{tokenId}', 'DELETE /agents/{agentId}', 'DELETE /sandbox/faults']));
    for (const o of ops.filter((o) => o.revokes)) {
      const res = await api('POST', '/sandbox/faults', {
        auth: p.auth,
        body: { match: { method: o.method, path: o.path }, effect: error },
      });
      expectError(res, 400, 'INVALID_INPUT');
    }
    const allowed = await api('POST', '/sandbox/faults', {
      auth: p.auth,
      body: { match: { method: 'GET', path: '/tokens/{tokenId}' }, effect: error },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
  });

  it('only an operation its creating token may call: a TRANSACT token cannot fault a MANAGE operation (403)', async () => {
    const p = await newPlatform();
    const transact = await tokenWith(p, ['TRANSACT']);
    const res = await api('POST', '/sandbox/faults', {
      auth: transact,
      body: { match: { method: 'PATCH', path: '/config' }, effect: error },
    });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.body.details).toEqual({ missingPermissions: ['MANAGE'] });
    expect((await api('GET', '/sandbox/faults', { auth: p.auth })).body).toEqual({ data: [] });
    const own = await api('POST', '/sandbox/faults', {
      auth: transact,
      body: { match: { method: 'POST', path: '/transfer-out' }, effect: error },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
  });
});
