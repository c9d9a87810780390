// The API router: every area's routes in matching order, the webhooks documented, 404 and 405.
import { Router, type IRequest } from 'itty-router';
import type { Env, Settings } from './env';
import { ApiError, errorResponse, noRoute } from './http/errors';
import { pathRedactor, type Logger } from './http/log';
import type { RouteDef } from './http/route';
import { openApiRoute } from './http/openapi';
import { inMatchingOrder, pathShadows } from './http/route-order';
import type { CredentialLookups } from './http/auth';
import type { RunHooks } from './http/hooks';
import { operationCaller, type CallOperation, type CallSite } from './http/call';
import { findTokenWithPlatform, findTokenWithPlatformAnd } from './platform/tokens-service';
import { findAgentByToken, findAgentByTokenAnd } from './agents/tokens';
import { platformRoutes } from './platform/routes';
import { accountRoutes } from './accounts/routes';
import { walletRoutes } from './wallet/routes';
import { walletPrivacySigning } from './wallet/privacy';
import { customersRoutes } from './customers/routes';
import { kycRoutes } from './kyc/routes';
import { externalAccountRoutes } from './external-accounts/routes';
import { documentRoutes } from './documents/routes';
import { umaRoutes } from './uma/routes';
import { invitationRoutes } from './invitations/routes';
import { webhookRoutes } from './webhooks/routes';
import { answers } from './jobs/deps';
import { paymentRoutes } from './payments/routes';
import { agentsRoutes } from './agents/routes';
import { agentActionDecider } from './agents/actions-service';
import { sandboxRoutes } from './sandbox/routes';
import { faultsAround } from './sandbox/faults';
import { WEBHOOKS } from './webhook-catalog';

export const API_VERSION = '2025-10-13';

/** How authentication finds stored credentials: platform API tokens and agent tokens. */
const credentials: CredentialLookups = {
  tokenWithPlatform: findTokenWithPlatform,
  tokenWithPlatformAnd: findTokenWithPlatformAnd,
  agentByToken: findAgentByToken,
  agentByTokenAnd: findAgentByTokenAnd,
};

/**
 * What the sandbox adds to every request's runner (its fault rules, whose firings record paths as log lines
 * show them); a production router installs no hook.
 */
const SANDBOX_HOOKS: RunHooks = { aroundHandling: (r) => faultsAround(r, loggedPath) };
const PRODUCTION_HOOKS: RunHooks = {};

/** Every endpoint, one list per area, in matching order (no literal path is shadowed by a parameter). */
export const ROUTES: RouteDef[] = inMatchingOrder([
  ...platformRoutes,
  ...walletRoutes,
  ...agentsRoutes,
  ...webhookRoutes(answers),
  ...accountRoutes(walletPrivacySigning),
  ...externalAccountRoutes,
  ...customersRoutes,
  ...kycRoutes,
  ...documentRoutes,
  ...umaRoutes,
  ...invitationRoutes,
  ...paymentRoutes(agentActionDecider),
  ...sandboxRoutes({ routes: () => ROUTES, calls: operationsFor, webhooks: WEBHOOKS }),
]);

/** The webhooks /openapi.json documents (the sandbox sends any of them on demand). */
export { WEBHOOKS };

/** A request path as log lines show it: the secret path parameters the routes declare, by name. */
export const loggedPath = pathRedactor(ROUTES);

type Args = [Env, ExecutionContext, { settings: Settings; log: Logger }];

/** The path every API route is under: `/<API_PREFIX>/2025-10-13`. */
export function apiBase(prefix: string): string {
  return `${prefix ? `/${prefix}` : ''}/${API_VERSION}`;
}

/** The API router under `apiBase`; unknown paths 404, wrong methods 405 with `Allow`. */
export function buildRouter(prefix: string) {
  const base = apiBase(prefix);
  const all: RouteDef[] = [...ROUTES];
  all.push(openApiRoute(() => all, base, WEBHOOKS));
  const router = Router<IRequest, Args>({ base });
  const methodsByPath = new Map<string, string[]>();
  for (const route of all) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  // A literal path owns its requests: another method there is 405, not a parameter route of that method
  // reading the literal as an id (GET /webhooks/deliveries/replay is not the delivery `replay`).
  for (const [path, methods] of methodsByPath) {
    if (![...methodsByPath.keys()].some((other) => pathShadows(other, path))) continue;
    router.all(path, (req: IRequest, _env: Env, _exec: ExecutionContext, deps: Args[2]) => {
      if (!methods.includes(req.method)) notAllowed(path, methods, deps.settings);
    });
  }
  for (const route of all) {
    router[route.method.toLowerCase() as 'get'](route.path, (req: IRequest, env: Env, exec: ExecutionContext, deps: Args[2]) =>
      runRoute(route, req as unknown as Request, env, exec, deps),
    );
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, (_req: IRequest, _env: Env, _exec: ExecutionContext, deps: Args[2]) => notAllowed(path, methods, deps.settings));
  }
  router.all('*', () => {
    throw noRoute();
  });
  return router;
}

/**
 * Runs `route` on `request` as every API request runs: a sandbox route hidden in production, the router's
 * credential lookups, and the hooks of the mode (the one place they are installed).
 */
function runRoute(route: RouteDef, request: Request, env: Env, exec: ExecutionContext, deps: Args[2]): Promise<Response> {
  hideSandboxInProduction(route.path, deps.settings);
  const hooks = deps.settings.mode === 'sandbox' ? SANDBOX_HOOKS : PRODUCTION_HOOKS;
  return route.run(request, env, exec, { settings: deps.settings, log: deps.log, credentials, hooks });
}

/**
 * The API's operations called in process from `site` (MCP's tools, fixtures' steps): each runs as its HTTP
 * request would (`runRoute`), and an error is answered as the Worker answers it.
 */
export function operationsFor(site: CallSite): CallOperation {
  const at = { origin: new URL(site.request.url).origin, base: apiBase(site.settings.apiPrefix) };
  return operationCaller(ROUTES, at, (route, request) =>
    runRoute(route, request, site.env, site.exec, site).catch((error: unknown) => toErrorResponse(error, site.log, request)),
  );
}

/** 405 with `Allow` (404 for a sandbox path in production). */
function notAllowed(path: string, methods: string[], s: Settings): never {
  hideSandboxInProduction(path, s);
  const allow = methods.join(', ');
  throw new ApiError('METHOD_NOT_ALLOWED', `Allowed methods: ${allow}`, undefined, { Allow: allow });
}

/** `/sandbox/*` does not exist in production: 404 before authentication, exactly like an unknown path. */
function hideSandboxInProduction(path: string, s: Settings): void {
  if (s.mode !== 'sandbox' && path.startsWith('/sandbox/')) throw noRoute();
}

export function toErrorResponse(error: unknown, log: Logger, request: Request): Response {
  if (error instanceof ApiError) return errorResponse(error);
  // Unexpected: log the detail, answer a bare 500 (no stack, no SQL).
  log.error('unhandled error', {
    method: request.method,
    path: loggedPath(new URL(request.url).pathname),
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return errorResponse(new ApiError('INTERNAL_ERROR', 'Internal error'));
}
