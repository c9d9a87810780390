import { describe, expect, it } from 'vitest';
import { api, basic, expectError, newPlatform, tokenWith } from '../support/api';

const expectUnauthorized = (res: Awaited<ReturnType<typeof api>>) => {
  expectError(res, 401, 'UNAUTHORIZED');
  expect(res.headers.get('WWW-Authenticate')).toBe('Basic realm="service"');
};

describe('HTTP Basic authentication with API tokens', () => {
  it('refuses a missing Authorization header', async () => {
    expectUnauthorized(await api('GET', '/config'));
  });

  it('refuses malformed headers', async () => {
    for (const header of [
      'Bearer abc',
      'Basic',
      'Basic !!!not-base64!!!',
      `Basic ${btoa('no-colon')}`,
      `Basic ${btoa(':secret-only')}`,
      `Basic ${btoa('client-only:')}`,
      `Basic ${btoa(`${'x'.repeat(600)}:y`)}`,
    ]) {
      expectUnauthorized(await api('GET', '/config', { auth: header }));
    }
  });

  it('refuses a wrong secret and an unknown clientId', async () => {
    const p = await newPlatform();
    expectUnauthorized(await api('GET', '/config', { auth: basic(p.clientId, `${p.clientSecret}x`) }));
    expectUnauthorized(await api('GET', '/config', { auth: basic(p.clientId, p.clientSecret.slice(0, -1)) }));
    expectUnauthorized(await api('GET', '/config', { auth: basic('0'.repeat(32), p.clientSecret) }));
  });

  it('accepts the right credentials', async () => {
    const p = await newPlatform();
    expect((await api('GET', '/config', { auth: p.auth })).status).toBe(200);
  });

  it('checks authentication before input validation', async () => {
    expectUnauthorized(await api('PATCH', '/config', { raw: '{not json' }));
  });
});

describe('permissions (README: reads VIEW, money TRANSACT, other writes MANAGE)', () => {
  const cases: { method: string; path: string; needs: string; body?: unknown }[] = [
    { method: 'GET', path: '/config', needs: 'VIEW' },
    { method: 'PATCH', path: '/config', needs: 'MANAGE', body: {} },
    { method: 'GET', path: '/tokens', needs: 'VIEW' },
    { method: 'POST', path: '/tokens', needs: 'MANAGE', body: { name: 'x', permissions: [] } },
    { method: 'GET', path: '/tokens/Token:00000000-0000-7000-8000-000000000000', needs: 'VIEW' },
    { method: 'DELETE', path: '/tokens/Token:00000000-0000-7000-8000-000000000000', needs: 'MANAGE' },
  ];

  for (const c of cases) {
    it(`${c.method} ${c.path} needs ${c.needs}`, async () => {
      const p = await newPlatform();
      for (const perms of [[], ['VIEW'], ['TRANSACT'], ['MANAGE'], ['VIEW', 'TRANSACT'], ['TRANSACT', 'MANAGE']]) {
        const auth = await tokenWith(p, perms);
        const res = await api(c.method, c.path, { auth, body: c.body });
        if (perms.includes(c.needs)) expect(res.status, `${perms} -> ${res.status}`).not.toBe(403);
        else expectError(res, 403, 'FORBIDDEN');
      }
    });
  }
});
