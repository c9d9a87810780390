import { ApiError, badRequest } from './errors';

export const JSON_BODY_LIMIT = 1024 * 1024; // 1 MiB

export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`, { limitBytes: limit });

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

/** Parses a JSON body; an empty body is `undefined` so the route's schema decides whether one is required. */
export async function readJson(request: Request, limit = JSON_BODY_LIMIT): Promise<{ raw: string; value: unknown }> {
  const raw = await readText(request, limit);
  if (raw.trim() === '') return { raw, value: undefined };
  try {
    return { raw, value: JSON.parse(raw) };
  } catch {
    throw badRequest('Request body is not valid JSON', { fields: [{ field: '(body)', message: 'Malformed JSON' }] });
  }
}
