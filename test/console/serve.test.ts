import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src';
import { ORIGIN } from '../support/api';

/** A request to the origin (outside the version base) through the Worker with some bindings replaced. */
async function withSettings(path: string, overrides: Partial<typeof env>, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${ORIGIN}${path}`, init), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

describe('the console at /', () => {
  it('serves the page in sandbox with a strict Content-Security-Policy, telling it where the API is', async () => {
    const res = await SELF.fetch(`${ORIGIN}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('Content-Security-Policy')).toBe(CSP);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
    const html = await res.text();
    expect(html).toContain('<meta name="api-base" content="/2025-10-13" />');
    expect(html).toContain('<meta name="service-mode" content="sandbox" />');
    // CSP allows no inline script or style: the page has none.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
  });

  it('serves every file the page and its modules load, from this origin only', async () => {
    const seen = new Set<string>();
    const queue = ['/'];
    while (queue.length) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await SELF.fetch(`${ORIGIN}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('Content-Security-Policy'), path).toBe(CSP);
      const text = await res.text();
      // Whatever is referenced is local: no http(s) URL to another host in src/href/import.
      expect(text, path).not.toMatch(/(?:src|href)="https?:|from '(?:https?:)?\/\//);
      const refs = [...text.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g), ...text.matchAll(/from '\.\/([^']+)'/g)].map((m) =>
        m[1]!.startsWith('/') ? m[1]! : `/console/${m[1]}`,
      );
      queue.push(...refs);
    }
    expect([...seen].filter((p) => p.endsWith('.js')).length).toBeGreaterThanOrEqual(8);
    const js = await SELF.fetch(`${ORIGIN}/console/app.js`);
    expect(js.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8');
    const css = await SELF.fetch(`${ORIGIN}/console/style.css`);
    expect(css.headers.get('Content-Type')).toBe('text/css; charset=utf-8');
  });

  it('answers unknown console files and other methods with the API 404', async () => {
    for (const [path, method] of [
      ['/console/nope.js', 'GET'],
      ['/console/__proto__', 'GET'],
      ['/console/', 'GET'],
      ['/', 'POST'],
      ['/index.html', 'GET'],
    ] as const) {
      const res = await SELF.fetch(`${ORIGIN}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND', details: { reason: 'ROUTE_NOT_FOUND' } });
    }
  });

  it('is off in production unless CONSOLE_ENABLED is true', async () => {
    for (const path of ['/', '/console/app.js']) {
      const off = await withSettings(path, { SERVICE_ENV: 'production' });
      expect(off.status, path).toBe(404);
      expect(await off.json()).toMatchObject({ code: 'REFERENCE_NOT_FOUND', details: { reason: 'ROUTE_NOT_FOUND' } });
      expect((await withSettings(path, { SERVICE_ENV: 'production', CONSOLE_ENABLED: 'false' })).status, path).toBe(404);
    }
    const on = await withSettings('/', { SERVICE_ENV: 'production', CONSOLE_ENABLED: 'true' });
    expect(on.status).toBe(200);
    expect(on.headers.get('Content-Security-Policy')).toBe(CSP);
    expect(await on.text()).toContain('<meta name="service-mode" content="production" />');
  });

  it('puts the API prefix in the page when the API lives under one', async () => {
    const res = await withSettings('/', { API_PREFIX: 'payments' });
    expect(await res.text()).toContain('<meta name="api-base" content="/payments/2025-10-13" />');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await SELF.fetch(`${ORIGIN}/`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Security-Policy')).toBe(CSP);
    expect(await res.text()).toBe('');
  });
});
