// MCP's Streamable HTTP transport, stateless and JSON-only: the request checks, JSON-RPC messages and their answers.
import { mediaType, readJson } from '../http/body';
import { ApiError } from '../http/errors';

/** Protocol versions served, newest first; an `initialize` asking for another gets the newest. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'] as const;
export const PROTOCOL_HEADER = 'MCP-Protocol-Version';

/** JSON-RPC 2.0 error codes. */
export const RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 };

export type Id = string | number;
export interface RpcRequest {
  id?: Id;
  method: string;
  params: Record<string, unknown>;
}

/** A transport refusal: its HTTP status and the JSON-RPC error it answers with. */
export class TransportError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly id: Id | null = null,
  ) {
    super(message);
  }
}

const HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function rpcResult(id: Id, result: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: HEADERS });
}

export function rpcError(id: Id | null, code: number, message: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), { status, headers: { ...HEADERS, ...headers } });
}

export const accepted = () => new Response(null, { status: 202, headers: { 'Cache-Control': 'no-store' } });

/** Whether an Accept header takes a JSON answer (the transport asks clients to list it with text/event-stream). */
function acceptsJson(accept: string | null): boolean {
  if (accept === null) return true;
  return accept.split(',').some((range) => ['application/json', 'application/*', '*/*'].includes(mediaType(range).type));
}

/**
 * One POST's message, after the transport's checks: the answer is JSON, so the client must accept it (406);
 * the body is one JSON-RPC message as application/json (415; over 1 MiB 413; unparsable -32700; a batch,
 * which 2025-06-18 removed, or anything but a request, notification or response: -32600).
 */
export async function readMessage(request: Request): Promise<RpcRequest | { notification: true }> {
  if (!acceptsJson(request.headers.get('Accept')))
    throw new TransportError(406, RPC.invalidRequest, 'Not Acceptable: this server answers application/json');
  const version = request.headers.get(PROTOCOL_HEADER);
  if (version !== null && !(PROTOCOL_VERSIONS as readonly string[]).includes(version))
    throw new TransportError(
      400,
      RPC.invalidRequest,
      `Unsupported ${PROTOCOL_HEADER}: ${version} (supported: ${PROTOCOL_VERSIONS.join(', ')})`,
    );
  let message: unknown;
  try {
    message = (await readJson(request)).value;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'UNSUPPORTED_MEDIA_TYPE')
      throw new TransportError(415, RPC.invalidRequest, 'Unsupported Media Type: send application/json');
    if (error.code === 'PAYLOAD_TOO_LARGE') throw new TransportError(413, RPC.invalidRequest, error.message);
    throw new TransportError(400, RPC.parseError, `Parse error: ${error.message}`);
  }
  if (Array.isArray(message))
    throw new TransportError(
      400,
      RPC.invalidRequest,
      'Invalid Request: JSON-RPC batches are not supported (protocol 2025-06-18 and later)',
    );
  if (!message || typeof message !== 'object' || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0')
    throw new TransportError(400, RPC.invalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
  const m = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
  const id = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id)) ? m.id : undefined;
  if ('id' in m && id === undefined) throw new TransportError(400, RPC.invalidRequest, 'Invalid Request: id must be a string or a number');
  // A client's answer to a server request (this server sends none) is taken and ignored, as a notification is.
  if (m.method === undefined && id !== undefined && ('result' in m || 'error' in m)) return { notification: true };
  if (typeof m.method !== 'string')
    throw new TransportError(400, RPC.invalidRequest, 'Invalid Request: method must be a string', {}, id ?? null);
  if (m.params !== undefined && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params)))
    throw new TransportError(400, RPC.invalidRequest, 'Invalid Request: params must be an object', {}, id ?? null);
  if (id === undefined) return { notification: true };
  return { id, method: m.method, params: (m.params ?? {}) as Record<string, unknown> };
}
