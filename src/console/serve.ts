// The sandbox console: its page and files at /, with their security headers.
import type { Env, Settings } from '../env';
import { KYC_PAGE_PATH } from '../kyc/links-service';

/**
 * The sandbox console: a page at `/` and its files under `/console/`, static assets of this Worker
 * (wrangler.toml `[assets]`, src/console/assets) that only this code serves, so the security headers, the
 * mode switch and the page's settings apply to each. No other host: it works offline. It calls the public
 * API with the signed-in token, so it can do nothing a token cannot. On in sandbox; in production only with
 * CONSOLE_ENABLED=true.
 */
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
/** A console file's name: a flat name with a served type (not the pages' templates, nothing else). */
const FILE = /^[a-z][a-z0-9-]*\.(js|css)$/;

/**
 * Everything from this origin and nothing else: no inline script or style, no framing, no form posting
 * elsewhere, fetches only to the API on the same origin.
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  // Small files that change with each release: revalidate rather than serve a stale console.
  'Cache-Control': 'no-cache',
};

/**
 * The console's answer to a request, or undefined when the path is not the console's (or it is off). `/kyc` is
 * the sandbox identity provider's hosted KYC page (a KYC link's kycUrl), with the same files and headers; it
 * exists in sandbox mode only: production never hands a customer the sandbox's page.
 */
export async function consoleResponse(request: Request, env: Env, s: Settings, apiBase: string): Promise<Response | undefined> {
  if (!s.console || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
  const { pathname } = new URL(request.url);
  const page = pathname === '/' ? 'index.html' : pathname === KYC_PAGE_PATH && s.mode === 'sandbox' ? 'kyc.html' : undefined;
  const name = page ?? (pathname.startsWith('/console/') ? pathname.slice('/console/'.length) : '');
  const type = page ? 'text/html; charset=utf-8' : TYPES[FILE.exec(name)?.[1] ?? ''];
  if (!type) return undefined;
  const asset = await env.ASSETS.fetch(new Request(new URL(`/${name}`, request.url)));
  if (!asset.ok) return undefined;
  // The page learns where the API is and which mode it runs in from its own meta tags (no inline script).
  const body = page ? (await asset.text()).replace('{{API_BASE}}', apiBase).replace('{{MODE}}', s.mode) : await asset.text();
  return new Response(request.method === 'HEAD' ? null : body, { headers: { ...HEADERS, 'Content-Type': type } });
}
