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

describe('401 to a browser script (X-Requested-With: XMLHttpRequest)', () => {
  const SCRIPT = { 'X-Requested-With': 'XMLHttpRequest' };

  it('leaves out WWW-Authenticate, so the browser opens no credentials dialog; the body is the same', async () => {
    const p = await newPlatform();
    for (const auth of [undefined, 'Basic', basic(p.clientId, `${p.clientSecret}x`), basic('0'.repeat(32), p.clientSecret)]) {
      const challenged = await api('GET', '/config', { auth });
      const script = await api('GET', '/config', { auth, headers: SCRIPT });
      expectUnauthorized(challenged);
      expectError(script, 401, 'UNAUTHORIZED');
      expect(script.headers.has('WWW-Authenticate')).toBe(false);
      expect(script.body).toEqual(challenged.body);
      expect(script.headers.get('Content-Type')).toBe(challenged.headers.get('Content-Type'));
      expect(script.headers.get('Cache-Control')).toBe('no-store');
    }
    // A route with loads (the authentication batch) and a write answer the same way.
    expect((await api('GET', '/customers', { headers: SCRIPT })).headers.has('WWW-Authenticate')).toBe(false);
    expect((await api('PATCH', '/config', { body: {}, headers: SCRIPT })).headers.has('WWW-Authenticate')).toBe(false);
  });

  it('takes the value in any case, and only that value', async () => {
    for (const value of ['xmlhttprequest', 'XMLHTTPREQUEST', 'XmlHttpRequest']) {
      const res = await api('GET', '/config', { headers: { 'x-requested-with': value } });
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers.has('WWW-Authenticate'), value).toBe(false);
    }
    for (const value of ['', 'fetch', 'XMLHttpRequest2', 'com.example.app']) {
      expectUnauthorized(await api('GET', '/config', { headers: { 'X-Requested-With': value } }));
    }
  });

  it('changes nothing else: right credentials pass, an agent’s 401 keeps its Bearer challenge', async () => {
    const p = await newPlatform();
    expect((await api('GET', '/config', { auth: p.auth, headers: SCRIPT })).status).toBe(200);
    expect((await api('GET', '/agents/me', { headers: SCRIPT })).headers.get('WWW-Authenticate')).toBe('Bearer realm="service-agent"');
  });
});

describe('permissions (docs/security.md: reads VIEW, money TRANSACT, other writes MANAGE)', () => {
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
