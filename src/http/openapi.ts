// The OpenAPI 3.1 document built from the route declarations and their zod schemas.
import * as z from 'zod';
import { defineRoute, type RouteDef } from './route';
import { errorResponses } from './responses';
import { openApiPath } from './route-order';
import { DateTime } from '../common/time';

type JsonSchema = Record<string, unknown>;

/** Converts one zod schema; named sub-schemas go to `components` and are referenced from there. */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  const defs = (out.$defs ?? {}) as Record<string, JsonSchema>;
  for (const [name, def] of Object.entries(defs)) components[name] ??= tidy(def);
  delete out.$defs;
  delete out.$schema;
  return tidy(out);
}

/** Points `$defs` references at components and drops zod's long date-time regex (the format says it). */
function tidy<T>(node: T): T {
  if (Array.isArray(node)) return node.map(tidy) as T;
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out[k] = v.replace('#/$defs/', '#/components/schemas/');
      else if (k === 'pattern' && (node as JsonSchema).format === 'date-time') continue;
      else out[k] = tidy(v);
    }
    return out as T;
  }
  return node;
}

const SECURITY: Record<string, Record<string, string[]>[]> = {
  basic: [{ BasicAuth: [] }],
  agent: [{ AgentAuth: [] }],
  operator: [{ OperatorAuth: [] }],
  none: [],
};

/** A webhook the service sends, under the reference's name and operationId; `data` is its payload's `data`. */
export interface WebhookDef {
  name: string;
  operationId: string;
  summary: string;
  types: [string, ...string[]];
  data: z.ZodType;
}

/** The OpenAPI 3.1 `webhooks` entry of `w`: the signed POST to the platform's webhookEndpoint. */
function webhookItem(w: WebhookDef, components: Record<string, JsonSchema>) {
  const body = z.object({ id: z.string(), type: z.enum(w.types), timestamp: DateTime, data: w.data });
  return {
    post: {
      operationId: w.operationId,
      summary: w.summary,
      tags: ['Webhooks'],
      parameters: [{ name: 'X-Service-Signature', in: 'header', required: true, schema: { type: 'string' } }],
      requestBody: { required: true, content: { 'application/json': { schema: toSchema(body, 'output', components) } } },
      responses: { 200: { description: 'Received' } },
    },
  };
}

/** The OpenAPI 3.1 document of every route, generated from the zod schemas the handlers validate with. */
function buildOpenApi(routes: RouteDef[], base: string, webhooks: WebhookDef[] = []) {
  const components: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = openApiPath(r.path);
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema) continue;
      const obj = toSchema(schema, 'input', components) as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, s] of Object.entries(obj.properties ?? {})) {
        const { description, ...rest } = s;
        parameters.push({
          name,
          in: where,
          required: where === 'path' || (obj.required ?? []).includes(name),
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    }
    for (const [name, h] of Object.entries(r.headers ?? {})) {
      parameters.push({ name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } });
    }
    const op: Record<string, unknown> = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      security: SECURITY[r.auth],
      // The API-token permission the operation needs (the specification does not say which; clients and tests read it here).
      ...(r.permission ? { 'x-required-permission': r.permission } : {}),
      // Agent-bearer operations: the agent-policy permissions of which the agent needs one.
      ...(r.agentPermission ? { 'x-agent-permission': [r.agentPermission].flat() } : {}),
      // A revocation is never faultable: the console leaves it out of a fault rule's choices.
      ...(r.revokes ? { 'x-revokes-credential': true } : {}),
      ...(parameters.length ? { parameters } : {}),
      responses: Object.fromEntries(
        // Every operation with a body can answer 415 (`readInput` in route.ts), and every one but the operator's
        // 429 (`admit` in rate-limit.ts), so the document says it once for all.
        Object.entries({
          ...(r.auth === 'operator' ? {} : errorResponses(429)),
          // And every write of a platform's while the operator moves it to another database (PLATFORM_MOVING).
          ...(r.auth === 'operator' || r.method === 'GET' ? {} : errorResponses(409)),
          ...r.responses,
          ...(r.body ? errorResponses(415) : {}),
        }).map(([status, spec]) => [
          status,
          {
            description: spec.description,
            ...(spec.headers
              ? {
                  headers: Object.fromEntries(
                    Object.entries(spec.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }]),
                  ),
                }
              : {}),
            ...(spec.schema ? { content: { 'application/json': { schema: toSchema(spec.schema, 'output', components) } } } : {}),
          },
        ]),
      ),
    };
    if (r.body === 'multipart') {
      const schema = r.form ? toSchema(r.form, 'input', components) : { type: 'object' };
      op.requestBody = { required: true, content: { 'multipart/form-data': { schema } } };
    } else if (r.body) {
      op.requestBody = {
        required: !r.body.safeParse(undefined).success,
        content: { 'application/json': { schema: toSchema(r.body, 'input', components) } },
      };
    }
    paths[path] = { ...paths[path], [r.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payments Platform API',
      version: '2025-10-13',
      description:
        'Customers, accounts, transfers, quotes, embedded wallets, agents and a sandbox. Errors: `{status, code, message, details?}`. ' +
        "An operator request's answer carries `X-D1-Bookmark` (the database state it read or wrote); a request that sends it back reads at least that fresh (a malformed one is 400). Platform requests always read the latest state and answer none.",
    },
    servers: [{ url: base }],
    security: [{ BasicAuth: [] }],
    paths,
    webhooks: Object.fromEntries(webhooks.map((w) => [w.name, webhookItem(w, components)])),
    components: {
      schemas: components,
      securitySchemes: {
        BasicAuth: {
          type: 'http',
          scheme: 'basic',
          description:
            'clientId:clientSecret of an API token. A 401 carries `WWW-Authenticate: Basic`, except for a request marked `X-Requested-With: XMLHttpRequest` (a page script, which a browser would otherwise interrupt with its own credentials dialog)',
        },
        AgentAuth: { type: 'http', scheme: 'bearer', description: 'accessToken from redeeming an agent device code' },
        OperatorAuth: { type: 'http', scheme: 'bearer', description: 'The OPERATOR_TOKEN secret' },
      },
    },
  };
}

/** `GET /openapi.json`, built once per isolate (routes are constant). */
export function openApiRoute(routes: () => RouteDef[], base: string, webhooks: WebhookDef[] = []): RouteDef {
  let doc: string | undefined;
  return defineRoute({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Meta',
    auth: 'none',
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
    handler: () => {
      doc ??= JSON.stringify(buildOpenApi(routes(), base, webhooks));
      return new Response(doc, { headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });
    },
  });
}
