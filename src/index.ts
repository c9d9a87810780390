// The Worker entry: fetch (API and console), queue and scheduled handlers; exports the AccountDO.
import { settings, type Env } from './env';
import { meterFields, requestMeter, withMeter, type Meter } from './db/meter';
import { errorResponse, noRoute } from './http/errors';
import { logger } from './http/log';
import { apiBase, buildRouter, loggedPath, operationsFor, ROUTES, toErrorResponse } from './router';
import { consoleResponse } from './console/serve';
import { mcpPath, mcpResponse } from './mcp/server';
import { handleJobs, sweep, type SweepStep } from './jobs';
import { purgeAbandonedRollbackPoints } from './sandbox/snapshots-service';

export { AccountDO } from './wallet/account-do';

/** The sandbox's own sweep: rollback points a stopped fixtures load left behind. */
const SANDBOX_SWEEP: SweepStep[] = [
  ['fixtures rollback points', (deps, env, now) => purgeAbandonedRollbackPoints({ db: deps.db, env, now })],
];

const routers = new Map<string, ReturnType<typeof buildRouter>>();

export default {
  async fetch(request: Request, env: Env, exec: ExecutionContext): Promise<Response> {
    const s = settings(env);
    const log = logger(s.logLevel);
    const started = Date.now();
    const url = new URL(request.url);
    // The request's D1 work, awaited or not; an enclosing meter (a test's) gets the same sums.
    const meter = requestMeter(s.mode);
    let response: Response;
    try {
      if (url.pathname === '/healthz' && request.method === 'GET') {
        // Like every API answer, never cached: a cached 200 would hide an instance that is down.
        response = Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
      } else {
        let router = routers.get(s.apiPrefix);
        if (!router) routers.set(s.apiPrefix, (router = buildRouter(s.apiPrefix)));
        const deps = { settings: s, log };
        const api = async (req: Request) =>
          ((await withMeter(meter, () => router.fetch(req as never, env, exec, deps))) as Response | undefined) ?? errorResponse(noRoute());
        // Paths outside the version base match no route at all, except the console's (`/`, `/console/*`) and `/mcp`.
        if (url.pathname === mcpPath(s.apiPrefix)) {
          // Each tool call runs its operation in process as its HTTP request would, so MCP and HTTP calls are one and the same.
          const call = operationsFor({ request, env, exec, settings: s, log });
          response = await withMeter(meter, () =>
            mcpResponse(request, { routes: ROUTES, base: apiBase(s.apiPrefix), call, origins: s.mcpOrigins }),
          );
        } else response = (await consoleResponse(request, env, s, apiBase(s.apiPrefix))) ?? (await api(request));
      }
    } catch (error) {
      response = toErrorResponse(error, log, request);
    }
    // The line is built only when it is written: this runs on every request.
    if (log.enabled('info'))
      log.info('request', {
        method: request.method,
        path: loggedPath(url.pathname),
        status: response.status,
        ms: Date.now() - started,
        ...meterFields(meter),
      });
    return s.mode === 'sandbox' ? withRowHeaders(response, meter) : response;
  },

  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    const s = settings(env);
    const log = logger(s.logLevel);
    const meter = requestMeter(s.mode);
    await withMeter(meter, () => handleJobs(batch, env, log));
    if (log.enabled('info')) log.info('queue batch', { messages: batch.messages.length, ...meterFields(meter) });
  },

  async scheduled(controller: ScheduledController, env: Env): Promise<void> {
    const s = settings(env);
    const log = logger(s.logLevel);
    const meter = requestMeter(s.mode);
    await withMeter(meter, () => sweep(env, controller.scheduledTime, log, SANDBOX_SWEEP));
    if (log.enabled('info')) log.info('sweep', meterFields(meter));
  },
} satisfies ExportedHandler<Env>;

/**
 * Sandbox only: what the request read and wrote in D1 so far (docs/engineering/performance.md, "Rows read are a budget too"), for a
 * developer watching a request's cost. Never in production: it tells a caller about the data of others.
 */
function withRowHeaders(response: Response, meter: Meter): Response {
  let out = response;
  try {
    out.headers.set('X-D1-Rows-Read', String(meter.rowsRead));
  } catch {
    // Immutable headers (a response passed through as is): a copy carries them.
    out = new Response(response.body, response);
    out.headers.set('X-D1-Rows-Read', String(meter.rowsRead));
  }
  out.headers.set('X-D1-Rows-Written', String(meter.rowsWritten));
  return out;
}
