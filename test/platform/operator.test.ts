import { createExecutionContext, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { api, BASE, basic, expectError, failingFields, OPERATOR } from '../support/api';

describe('operator endpoints', () => {
  it('create a platform with a first all-permission token, and only there set isRegulatedFinancialInstitution', async () => {
    const res = await api('POST', '/operator/platforms', {
      auth: OPERATOR,
      body: { name: 'Regulated Bank', umaDomain: 'bank.example.com', isRegulatedFinancialInstitution: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.platform).toMatchObject({ id: expect.stringMatching(/^Platform:/), name: 'Regulated Bank' });
    expect(res.body.platform.config).toMatchObject({
      umaDomain: 'bank.example.com',
      isRegulatedFinancialInstitution: true,
      supportedCurrencies: [],
    });
    expect(res.body.token.permissions).toEqual(['VIEW', 'TRANSACT', 'MANAGE']);
    const auth = basic(res.body.token.clientId, res.body.token.clientSecret);
    const config = await api('GET', '/config', { auth });
    expect(config.body.isRegulatedFinancialInstitution).toBe(true);
    expect(config.body.id).toBe(res.body.platform.config.id);
  });

  it('lists platforms with pagination', async () => {
    for (let i = 0; i < 3; i++)
      await api('POST', '/operator/platforms', { auth: OPERATOR, body: { name: `p${i}`, umaDomain: `x${i}.example.com` } });
    const page = await api('GET', '/operator/platforms?limit=2', { auth: OPERATOR });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.hasMore).toBe(true);
    expect(page.body.totalCount).toBeGreaterThanOrEqual(3);
    const next = await api('GET', `/operator/platforms?limit=2&cursor=${page.body.nextCursor}`, { auth: OPERATOR });
    expect(next.body.data[0].id > page.body.data[1].id).toBe(true);
  });

  it('validate the new platform', async () => {
    const res = await api('POST', '/operator/platforms', {
      auth: OPERATOR,
      body: { umaDomain: 'bad domain', isRegulatedFinancialInstitution: 'yes' },
    });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res).sort()).toEqual(['isRegulatedFinancialInstitution', 'name', 'umaDomain']);
  });

  it('need the operator token: none or wrong is 401, a platform token is 401', async () => {
    expectError(await api('GET', '/operator/platforms'), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/operator/platforms', { auth: 'Bearer wrong' }), 401, 'UNAUTHORIZED');
    const created = await api('POST', '/operator/platforms', { auth: OPERATOR, body: { name: 'p', umaDomain: 'p.example.com' } });
    const platformAuth = basic(created.body.token.clientId, created.body.token.clientSecret);
    expectError(await api('GET', '/operator/platforms', { auth: platformAuth }), 401, 'UNAUTHORIZED');
  });

  it('do not exist (404) when OPERATOR_TOKEN is not configured', async () => {
    const res = await worker.fetch(
      new Request(`${BASE}/operator/platforms`, { headers: { Authorization: OPERATOR } }),
      { ...env, OPERATOR_TOKEN: undefined } as never,
      createExecutionContext(),
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND', details: { reason: 'ROUTE_NOT_FOUND' } });
  });
});
