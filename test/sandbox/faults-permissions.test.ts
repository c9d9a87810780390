// Sandbox fault rules across tokens of different permissions: what a rule may record, target and block.
import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform, tokenWith } from '../support/api';
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
