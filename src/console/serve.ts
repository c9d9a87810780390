// The sandbox console: its page and files at /, with their security headers.
import type { Settings } from '../env';
import indexHtml from './assets/index.html';
import styleCss from './assets/style.css';
import appJs from './assets/app.js';
import apiJs from './assets/api.js';
import uiJs from './assets/ui.js';
import customersJs from './assets/customers.js';
import transactionsJs from './assets/transactions.js';
import webhooksJs from './assets/webhooks.js';
import sandboxJs from './assets/sandbox.js';
import faultsJs from './assets/faults.js';
import referenceJs from './assets/reference.js';
import agentsJs from './assets/agents.js';

/**
 * The sandbox console: a page at `/` and its files under `/console/`, bundled into the Worker (no other
 * host, so it works offline). It calls the public API with the signed-in token, so it can do nothing a
 * token cannot. On in sandbox; in production only with CONSOLE_ENABLED=true.
 */
const JS = 'text/javascript; charset=utf-8';
const FILES = new Map<string, { body: string; type: string }>(
  Object.entries({
    'style.css': { body: styleCss, type: 'text/css; charset=utf-8' },
    'app.js': { body: appJs, type: JS },
    'api.js': { body: apiJs, type: JS },
    'ui.js': { body: uiJs, type: JS },
    'customers.js': { body: customersJs, type: JS },
    'transactions.js': { body: transactionsJs, type: JS },
    'webhooks.js': { body: webhooksJs, type: JS },
    'sandbox.js': { body: sandboxJs, type: JS },
    'faults.js': { body: faultsJs, type: JS },
    'reference.js': { body: referenceJs, type: JS },
    'agents.js': { body: agentsJs, type: JS },
  }),
);

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

/** The console's answer to a request, or undefined when the path is not the console's (or it is off). */
export function consoleResponse(request: Request, s: Settings, apiBase: string): Response | undefined {
  if (!s.console || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
  const { pathname } = new URL(request.url);
  // The page learns where the API is and which mode it runs in from its own meta tags (no inline script).
  const file =
    pathname === '/'
      ? { body: indexHtml.replace('{{API_BASE}}', apiBase).replace('{{MODE}}', s.mode), type: 'text/html; charset=utf-8' }
      : pathname.startsWith('/console/')
        ? FILES.get(pathname.slice('/console/'.length))
        : undefined;
  if (!file) return undefined;
  return new Response(request.method === 'HEAD' ? null : file.body, { headers: { ...HEADERS, 'Content-Type': file.type } });
}
