import { api } from '../support/api';

/** A JSON Schema node as /openapi.json writes it. */
export type JsonSchema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

/** One operation of /openapi.json, flattened for the suites. */
export interface Operation {
  method: string;
  /** OpenAPI template, e.g. `/tokens/{tokenId}`. */
  path: string;
  operationId: string;
  /** Security scheme names: `BasicAuth`, `OperatorAuth`, `AgentAuth`; empty for public operations. */
  security: string[];
  /** `x-required-permission` of BasicAuth operations. */
  permission?: string;
  params: Parameter[];
  body?: { required: boolean; contentType: string; schema: JsonSchema };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

export interface ApiDoc {
  operations: Operation[];
  /** Follows `$ref`s to components (repeatedly). */
  resolve(schema: JsonSchema | undefined): JsonSchema;
  /** Every path template with the methods it declares. */
  methodsByPath: Map<string, string[]>;
}

/** Fetches /openapi.json through the Worker and flattens it. */
export async function loadApiDoc(): Promise<ApiDoc> {
  const res = await api('GET', '/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  const doc = res.body;
  const components: Record<string, JsonSchema> = doc.components?.schemas ?? {};
  const resolve = (schema: JsonSchema | undefined): JsonSchema => {
    let s = schema ?? {};
    for (let i = 0; i < 32 && typeof s.$ref === 'string'; i++) {
      const { $ref, ...rest } = s;
      s = { ...components[$ref.replace('#/components/schemas/', '')], ...rest };
    }
    return s;
  };
  const operations: Operation[] = [];
  const methodsByPath = new Map<string, string[]>();
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const security = (op.security ?? doc.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
      const content = op.requestBody?.content ?? {};
      const contentType = Object.keys(content)[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        security,
        permission: op['x-required-permission'],
        params: op.parameters ?? [],
        body: contentType ? { required: !!op.requestBody.required, contentType, schema: content[contentType].schema ?? {} } : undefined,
        responses: op.responses ?? {},
      });
      methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method.toUpperCase()]);
    }
  }
  return { operations, resolve, methodsByPath };
}

export const label = (op: Operation) => `${op.method} ${op.path}`;

/** The path with each `{param}` replaced by `values[param]` (already encoded). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x');
}

/** Whether the 200 answer is a list page (`data` array): the list endpoints of the cross-platform sweep. */
export function isList(doc: ApiDoc, op: Operation): boolean {
  const schema = doc.resolve(op.responses['200']?.content?.['application/json']?.schema);
  return op.method === 'GET' && doc.resolve(schema.properties?.data).type === 'array';
}
