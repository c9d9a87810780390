// Calling an operation in process (MCP's tools, fixtures' steps): the request its HTTP client would send, built
// from the operation's id and input, run by the route's own runner as the router runs it.
import type { Env, Settings } from '../env';
import { errorResponse, invalidFields } from './errors';
import { IDEMPOTENCY_HEADER } from './idempotency';
import type { Logger } from './log';
import type { RouteDef } from './route';

/** An operation's input, as an in-process caller gives it. */
export interface OperationInput {
  params?: Record<string, string>;
  /** A repeated parameter is a list. */
  query?: Record<string, string | readonly string[]>;
  /** The JSON body; none when undefined. */
  body?: unknown;
  /** Sent as `Idempotency-Key`. */
  idempotencyKey?: string;
}

/** Whose call it is: the caller's own credentials, as its HTTP request carries them. */
export interface CallerCredentials {
  /** The `Authorization` header. */
  authorization: string;
  /** The client's address (`CF-Connecting-IP`): the rate-limit budget of credentials not seen yet. */
  address?: string | null;
}

/** An operation's answer: its status, JSON body (undefined when empty) and headers. */
export interface OperationAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** Runs one operation as the caller whose credentials are given; errors are answers, as an HTTP client sees them. */
export type CallOperation = (operationId: string, input: OperationInput, credentials: CallerCredentials) => Promise<OperationAnswer>;

/** The request an in-process call is made from, and its dependencies (the calls share its Worker invocation). */
export interface CallSite {
  request: Request;
  env: Env;
  exec: ExecutionContext;
  settings: Settings;
  log: Logger;
}

/** The API's in-process caller for a call site (router.ts builds it: it holds the routes and how they run). */
export type OperationCalls = (site: CallSite) => CallOperation;

/**
 * A caller of `routes` under `base` at `origin`: each call builds the request an HTTP client would send (path,
 * query, JSON body, headers; the path parameters where the router's matcher leaves them) and `run`s its route
 * on it, so authentication, validation, idempotency, the rules and the hooks are the HTTP request's own.
 */
export function operationCaller(
  routes: readonly RouteDef[],
  at: { origin: string; base: string },
  run: (route: RouteDef, request: Request) => Promise<Response>,
): CallOperation {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  return async (operationId, input, credentials) => {
    const route = byId.get(operationId);
    if (!route) throw new Error(`No operation ${operationId}`);
    const params = input.params ?? {};
    // Each argument is one encoded segment, but `.` and `..` encode to themselves and would resolve to another route.
    const dots = Object.keys(params).filter((k) => params[k] === '.' || params[k] === '..');
    if (dots.length) {
      const refusal = invalidFields(
        'path parameters',
        dots.map((field) => ({ field, message: 'Must not be `.` or `..`' })),
      );
      return answerOf(errorResponse(refusal));
    }
    const url = new URL(at.base + route.path.replace(/:(\w+)/g, (_, k: string) => encodeURIComponent(params[k] ?? '')), at.origin);
    for (const [name, value] of Object.entries(input.query ?? {})) for (const v of [value].flat()) url.searchParams.append(name, v);
    const headers = new Headers({ Authorization: credentials.authorization });
    if (credentials.address) headers.set('CF-Connecting-IP', credentials.address);
    if (input.idempotencyKey !== undefined) headers.set(IDEMPOTENCY_HEADER, input.idempotencyKey);
    let body: string | undefined;
    if (input.body !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(input.body);
    }
    const request = new Request(url, { method: route.method, headers, body });
    // What the router's matcher leaves on a request: the path parameters as sent (the runner decodes them).
    Object.assign(request, { params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, encodeURIComponent(v)])) });
    return answerOf(await run(route, request));
  };
}

async function answerOf(response: Response): Promise<OperationAnswer> {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}
