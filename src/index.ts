import { settings, type Env } from './env';
import { errorResponse, notFound } from './http/errors';
import { logger } from './http/log';
import { apiBase, buildRouter, loggedPath, toErrorResponse } from './router';
import { consoleResponse } from './console/serve';
import { handleJobs, sweep } from './jobs';

export { AccountDO } from './wallet/account-do';

const routers = new Map<string, ReturnType<typeof buildRouter>>();

export default {
  async fetch(request: Request, env: Env, exec: ExecutionContext): Promise<Response> {
    const s = settings(env);
    const log = logger(s.logLevel);
    const started = Date.now();
    const url = new URL(request.url);
    let response: Response;
    try {
      if (url.pathname === '/healthz' && request.method === 'GET') {
        response = Response.json({ status: 'ok' });
      } else {
        let router = routers.get(s.apiPrefix);
        if (!router) routers.set(s.apiPrefix, (router = buildRouter(s.apiPrefix)));
        // Paths outside the version base match no route at all, except the console's (`/`, `/console/*`).
        response =
          consoleResponse(request, s, apiBase(s.apiPrefix)) ??
          (await router.fetch(request as never, env, exec, { settings: s, log })) ??
          errorResponse(notFound('NOT_FOUND', 'No route matches this path'));
      }
    } catch (error) {
      response = toErrorResponse(error, log, request);
    }
    // The line is built only when it is written: this runs on every request.
    if (log.enabled('info'))
      log.info('request', { method: request.method, path: loggedPath(url.pathname), status: response.status, ms: Date.now() - started });
    return response;
  },

  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    await handleJobs(batch, env, logger(settings(env).logLevel));
  },

  async scheduled(controller: ScheduledController, env: Env): Promise<void> {
    await sweep(env, controller.scheduledTime, logger(settings(env).logLevel));
  },
} satisfies ExportedHandler<Env>;
