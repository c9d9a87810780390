import { ApiError, badRequest } from './errors';

export const JSON_BODY_LIMIT = 1024 * 1024; // 1 MiB

export const payloadTooLarge = (limit: number) =>
  new ApiError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`, { limitBytes: limit });

/** Reads the body as text, refusing more than `limit` bytes without buffering past it. */
export async function readText(request: Request, limit = JSON_BODY_LIMIT): Promise<string> {
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
  try {
    return { raw, value: JSON.parse(raw) };
  } catch {
    throw badRequest('Request body is not valid JSON', { fields: [{ field: '(body)', message: 'Malformed JSON' }] });
  }
}
