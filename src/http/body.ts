// Request bodies: size limits, media types, JSON reading, and refusal of unknown fields.
import * as z from 'zod';
import { ApiError, badRequest } from './errors';

const JSON_BODY_LIMIT = 1024 * 1024; // 1 MiB

export const payloadTooLarge = (limit: number) =>
  new ApiError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`, { limitBytes: limit });

/** Reads the body as text, refusing more than `limit` bytes without buffering past it. */
async function readText(request: Request, limit = JSON_BODY_LIMIT): Promise<string> {
  const declared = Number(request.headers.get('Content-Length') ?? NaN);
  if (declared > limit) throw payloadTooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(all);
  } catch {
    throw badRequest('Request body is not valid UTF-8');
  }
}

export const unsupportedMediaType = (expected: string) =>
  new ApiError('UNSUPPORTED_MEDIA_TYPE', `A request body must be sent as ${expected}`);

/** The media type of a Content-Type value in lower case, and its parameters (names lower case, quotes removed). */
export function mediaType(contentType: string | null): { type: string; params: Map<string, string> } {
  const [type = '', ...rest] = (contentType ?? '').split(';');
  const params = new Map<string, string>();
  for (const param of rest) {
    const eq = param.indexOf('=');
    if (eq > 0)
      params.set(
        param.slice(0, eq).trim().toLowerCase(),
        param
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return { type: type.trim().toLowerCase(), params };
}

/**
 * `application/json`, with any parameters but a charset other than UTF-8 (bodies are read as UTF-8). Only this
 * exact type: a browser can send text/plain, form encodings or multipart cross-site without a preflight, and
 * the API reads no `+json` variant (merge-patch, ...) with a meaning of its own.
 */
function isJson(contentType: string | null): boolean {
  const { type, params } = mediaType(contentType);
  const charset = params.get('charset')?.toLowerCase();
  return type === 'application/json' && (charset === undefined || charset === 'utf-8');
}

/** The deepest nesting a JSON body may have: far past any route's schema, far short of what recursion over it overflows. */
export const MAX_JSON_DEPTH = 64;

/** How deep arrays and objects nest in JSON text (brackets inside strings aside), in one pass without recursion. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) max = Math.max(max, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

/**
 * Parses a JSON body; an empty body is `undefined` so the route's schema decides whether one is required. A body
 * that is not `application/json` is 415 (refused before it is read when its length is declared); a request
 * without a body needs no Content-Type.
 */
export async function readJson(request: Request, limit = JSON_BODY_LIMIT): Promise<{ raw: string; value: unknown }> {
  const json = isJson(request.headers.get('Content-Type'));
  if (!json && Number(request.headers.get('Content-Length')) > 0) throw unsupportedMediaType('application/json');
  const raw = await readText(request, limit);
  if (raw !== '' && !json) throw unsupportedMediaType('application/json');
  if (raw.trim() === '') return { raw, value: undefined };
  if (nestingDepth(raw) > MAX_JSON_DEPTH)
    throw badRequest(`Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, {
      fields: [{ field: '(body)', message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  try {
    return { raw, value: JSON.parse(raw) };
  } catch {
    throw badRequest('Request body is not valid JSON', { fields: [{ field: '(body)', message: 'Malformed JSON' }] });
  }
}

/**
 * A field a GET answers that no request may change, in a request body: a client may send back what it read, so it
 * is checked against `schema` (its type as answered) and dropped, changing nothing. `/openapi.json` marks it
 * `readOnly`, as the reference marks the fields it shares between answers and requests.
 */
export function readOnlyField<T extends z.ZodType>(schema: T) {
  return schema
    .optional()
    .transform(() => undefined)
    .meta({ readOnly: true, description: 'Read-only: accepted when sent back (as read) and ignored' });
}

/**
 * `schema` with every `z.object` at any depth made strict (an unknown field is 400 "Unknown field" with its
 * dotted path, never dropped): through optionals, nullables, defaults, arrays, tuples, records, unions, pipes
 * and lazy schemas, keeping refinements and metadata (ids, descriptions). An intersection of objects is
 * refused (each strict side would refuse the other's fields: `.extend()` says it). An object that declares
 * its extra keys (`z.looseObject`, `.catchall(...)`) and a record keep what they declare. Routes apply it to
 * every JSON body once, at definition; the schemas themselves, used for responses too, are left as they are.
 */
export function strictBody<T extends z.ZodType>(schema: T): T {
  return strictCopy(schema, new Map()) as T;
}

type Def = z.core.$ZodTypeDef & Record<string, unknown>;

function strictCopy(schema: z.ZodType, done: Map<z.ZodType, z.ZodType>): z.ZodType {
  const known = done.get(schema);
  if (known) return known;
  const def = schema._zod.def as Def;
  const sub = (s: unknown) => strictCopy(s as z.ZodType, done);
  const changes: Record<string, unknown> = {};
  switch (def.type) {
    case 'object': {
      // Copied before its fields, which convert on first read: a recursive shape (getters) ends here.
      const shape = def.shape as Record<string, z.ZodType>;
      let fields: Record<string, z.ZodType> | undefined;
      return copy(schema, def, done, {
        get shape() {
          return (fields ??= Object.fromEntries(Object.keys(shape).map((k) => [k, sub(shape[k])])));
        },
        catchall: def.catchall ? sub(def.catchall) : z.never(),
      });
    }
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      return copy(schema, def, done, { getter: () => sub(getter()) });
    }
    case 'union':
      changes.options = (def.options as z.ZodType[]).map(sub);
      break;
    case 'intersection':
      if (sub(def.left) !== def.left || sub(def.right) !== def.right)
        throw new Error('A request body cannot intersect objects; use .extend()');
      return schema;
    case 'array':
      changes.element = sub(def.element);
      break;
    case 'tuple':
      changes.items = (def.items as z.ZodType[]).map(sub);
      changes.rest = def.rest ? sub(def.rest) : def.rest;
      break;
    case 'record':
      changes.valueType = sub(def.valueType);
      break;
    case 'pipe':
      changes.in = sub(def.in);
      changes.out = sub(def.out);
      break;
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'success':
      changes.innerType = sub(def.innerType);
      break;
    default:
      return schema; // no object inside (strings, numbers, enums, literals, transforms, unknown...)
  }
  const same = Object.entries(changes).every(([k, v]) =>
    Array.isArray(v) ? v.every((x, i) => x === (def[k] as unknown[])[i]) : v === def[k],
  );
  return same ? schema : copy(schema, def, done, changes);
}

/** A schema of the same kind with `changes` over its definition (getters such as a default's value kept) and the same metadata. */
function copy(schema: z.ZodType, def: Def, done: Map<z.ZodType, z.ZodType>, changes: object): z.ZodType {
  const next = Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(def), ...Object.getOwnPropertyDescriptors(changes) });
  const out = schema.clone(next as typeof schema._zod.def);
  done.set(schema, out);
  const meta = z.globalRegistry.get(schema);
  if (meta) z.globalRegistry.add(out, meta);
  return out;
}
