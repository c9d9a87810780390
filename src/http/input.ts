// The runner's input stage: a request's path parameters, query and JSON body, validated by the route's schemas.
import * as z from 'zod';
import { mediaType, readJson, unsupportedMediaType } from './body';
import { invalidFields, zodIssues, type FieldIssue } from './errors';

/** The schemas a route validates its input with (its body is already strict: `strictBody`). */
export interface InputSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType | 'multipart';
}

/** A request's valid input. */
export interface Input {
  params: unknown;
  query: unknown;
  body: unknown;
  /** The JSON body exactly as received ('' without one). */
  rawBody: string;
}

/** The route's query schema refusing undeclared parameters, as bodies refuse unknown fields (a client's typo or unsupported filter would otherwise widen the list silently). */
export function strictQuery(spec: { operationId: string; query?: z.ZodType }): z.ZodType | undefined {
  if (!spec.query) return undefined;
  if (!(spec.query instanceof z.ZodObject)) throw new Error(`${spec.operationId}: the query schema must be a z.object`);
  return spec.query.strict();
}

/** Path parameters, query and JSON body, validated (400 naming the fields; 415 for a body of the wrong media type). */
export async function readInput(spec: InputSchemas, request: Request): Promise<Input> {
  const params = parse(spec.params, decodeParams(pathParams(request)), 'path parameters', '');
  const query = parse(spec.query, queryObject(new URL(request.url)), 'query parameters', '');
  let body: unknown;
  let rawBody = '';
  if (spec.body === 'multipart') {
    // The handler streams the form itself; whatever else was sent is the wrong type, not malformed input.
    if (mediaType(request.headers.get('Content-Type')).type !== 'multipart/form-data') throw unsupportedMediaType('multipart/form-data');
  } else if (spec.body) {
    const read = await readJson(request);
    rawBody = read.raw;
    body = parse(spec.body, read.value, 'request body', '');
  }
  return { params, query, body, rawBody };
}

/** The path parameters the router's matcher left on the request, as sent (still URL-encoded). */
const pathParams = (request: Request) => (request as unknown as { params?: Record<string, string> }).params;

function parse(schema: z.ZodType | undefined, value: unknown, where: string, prefix: string): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw invalidFields(where, zodIssues(result.error, prefix));
  return result.data;
}

function decodeParams(raw: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v; // undecodable ids simply match nothing
    }
  }
  return out;
}

/** C0 controls and DEL: no parameter means them, and a store or search engine may read them as the end of the text. */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_ALL = /[\u0000-\u001f\u007f]/g;

/** Query string as an object; a repeated key becomes an array (so single-valued fields reject it). Control characters are 400. */
function queryObject(url: URL): Record<string, string | string[]> {
  // No prototype: `__proto__` is a parameter like any other (refused as unknown), not a setter.
  const out: Record<string, string | string[]> = Object.create(null);
  const refused: FieldIssue[] = [];
  for (const [k, v] of url.searchParams)
    if (CONTROL.test(k) || CONTROL.test(v))
      refused.push({ field: k.replace(CONTROL_ALL, '?'), message: 'Control characters are not allowed' });
  if (refused.length) throw invalidFields('query parameters', refused);
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    out[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
  }
  return out;
}

/** Throws the first refusal given (the order a client fixes them in), if any. */
export function refuseFirst(...refusals: unknown[]): void {
  const first = refusals.find((r) => r !== undefined);
  if (first !== undefined) throw first;
}
