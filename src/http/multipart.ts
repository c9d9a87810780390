// A streaming multipart/form-data parser (RFC 7578).
import { badRequest } from './errors';

/** One part of a multipart/form-data body. Its bytes stream through `body`, which reads the request lazily. */
export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  body: AsyncIterable<Uint8Array>;
}

const encoder = new TextEncoder();
const CRLF = encoder.encode('\r\n');
const HEADER_END = encoder.encode('\r\n\r\n');

/** The boundary of a `multipart/form-data` Content-Type; 400 without one (route plumbing refused other types with 415). */
export function multipartBoundary(contentType: string | null): string {
  const match = contentType?.match(/^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i);
  if (!match)
    throw badRequest('Expected a multipart/form-data body with a boundary', {
      fields: [{ field: '(body)', message: 'Content-Type must be multipart/form-data' }],
    });
  return (match[1] ?? match[2])!;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  for (let i = haystack.indexOf(first, from); i !== -1 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** A byte buffer over a stream reader: data is consumed from the front, and filled one chunk at a time. */
class ByteReader {
  private buf = new Uint8Array(0);
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  get length() {
    return this.buf.length;
  }

  async fill(): Promise<boolean> {
    const { done, value } = await this.reader.read();
    if (done) return false;
    const next = new Uint8Array(this.buf.length + value.byteLength);
    next.set(this.buf);
    next.set(value, this.buf.length);
    this.buf = next;
    return true;
  }

  indexOf(needle: Uint8Array): number {
    return indexOf(this.buf, needle);
  }

  /** Index of `needle`, reading more as needed; 400 when not found within `limit` bytes. */
  async find(needle: Uint8Array, limit: number, what: string): Promise<number> {
    for (;;) {
      const i = this.indexOf(needle);
      if (i >= 0 && i <= limit) return i;
      if (this.buf.length > limit + needle.length) throw badRequest(`Malformed multipart body: ${what}`);
      if (!(await this.fill())) throw badRequest(`Malformed multipart body: ${what}`);
    }
  }

  async ensure(n: number): Promise<void> {
    while (this.buf.length < n) if (!(await this.fill())) throw badRequest('Malformed multipart body: truncated');
  }

  startsWith(bytes: Uint8Array): boolean {
    return bytes.every((b, i) => this.buf[i] === b);
  }

  take(n: number): Uint8Array {
    const out = this.buf.slice(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  skip(n: number): void {
    this.buf = this.buf.subarray(n);
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

function parseHeaders(text: string): Omit<Part, 'body'> {
  let disposition = '';
  let contentType: string | undefined;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') disposition = value;
    else if (key === 'content-type') contentType = value.split(';')[0]!.trim().toLowerCase();
  }
  if (!/^form-data\b/i.test(disposition)) throw badRequest('Malformed multipart body: each part needs Content-Disposition: form-data');
  const params = new Map<string, string>();
  for (const m of disposition.matchAll(/;\s*([a-z*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/gi)) {
    params.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!);
  }
  const name = params.get('name');
  if (!name) throw badRequest('Malformed multipart body: a part has no name');
  let filename = params.get('filename');
  const extended = params.get('filename*')?.match(/^utf-8''(.*)$/i);
  if (extended) {
    try {
      filename = decodeURIComponent(extended[1]!);
    } catch {
      // keep the plain filename
    }
  }
  return { name, ...(filename !== undefined ? { filename } : {}), ...(contentType ? { contentType } : {}) };
}

/**
 * Streams the parts of a multipart/form-data body (RFC 7578) without buffering it whole: each part's bytes
 * are read from the request as its `body` is iterated. A part not read by the caller is skipped.
 */
export async function* parseMultipart(
  stream: ReadableStream<Uint8Array> | null,
  boundary: string,
  limits: { maxParts?: number; maxHeaderBytes?: number } = {},
): AsyncGenerator<Part> {
  if (!stream) throw badRequest('The multipart body is empty');
  const maxParts = limits.maxParts ?? 20;
  const maxHeaderBytes = limits.maxHeaderBytes ?? 8192;
  const r = new ByteReader(stream.getReader());
  const dashBoundary = encoder.encode(`--${boundary}`);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const closing = encoder.encode('--');
  try {
    r.skip((await r.find(dashBoundary, 1024, 'no opening boundary')) + dashBoundary.length);
    for (let count = 0; ; count++) {
      await r.ensure(2);
      if (r.startsWith(closing)) return;
      r.skip((await r.find(CRLF, 256, 'bad boundary line')) + CRLF.length);
      if (count >= maxParts) throw badRequest(`Too many multipart parts (at most ${maxParts})`);
      let headerText = '';
      await r.ensure(2);
      if (r.startsWith(CRLF)) r.skip(2);
      else {
        const end = await r.find(HEADER_END, maxHeaderBytes, 'part headers too long or unterminated');
        headerText = new TextDecoder().decode(r.take(end));
        r.skip(HEADER_END.length);
      }
      const headers = parseHeaders(headerText);
      let finished = false;
      const readBody = async function* (): AsyncGenerator<Uint8Array> {
        while (!finished) {
          const i = r.indexOf(delimiter);
          if (i >= 0) {
            const last = i > 0 ? r.take(i) : null;
            r.skip(delimiter.length);
            finished = true;
            if (last) yield last;
            return;
          }
          // Everything but a possible partial delimiter at the end is body data.
          const safe = r.length - (delimiter.length - 1);
          if (safe > 0) yield r.take(safe);
          if (!(await r.fill())) throw badRequest('Malformed multipart body: missing closing boundary');
        }
      };
      yield { ...headers, body: readBody() };
      // Skip whatever the caller did not read of this part.
      for await (const _ of readBody());
    }
  } finally {
    await r.cancel();
  }
}

/** Reads a small text field whole; 400 if it is longer than `max` bytes or not UTF-8. */
export async function readField(part: Part, max = 1024): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of part.body) {
    size += chunk.byteLength;
    if (size > max)
      throw badRequest(`Form field ${part.name} is too long`, { fields: [{ field: part.name, message: `At most ${max} bytes` }] });
    chunks.push(chunk);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(all);
  } catch {
    throw badRequest(`Form field ${part.name} is not valid UTF-8`, { fields: [{ field: part.name, message: 'Not UTF-8' }] });
  }
}
