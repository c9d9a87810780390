// Error responses as the OpenAPI document declares them, and the 409 retry headers.
import type * as z from 'zod';
import { errorSchema, SHOULD_RETRY_HEADER } from './errors';

/** One response an operation declares, for the OpenAPI document. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (INVALID_INPUT names the fields in details)',
  401: 'Missing or invalid credentials',
  403: 'The credentials lack the permission this operation needs',
  404: 'Not found (also for records of other platforms)',
  409: 'Conflict with the current state',
  410: 'The record was deleted',
  412: 'The counterparty does not support our UMA version (UNSUPPORTED_UMA_VERSION)',
  413: 'Request body too large',
  415: 'The request body is not of the media type the operation takes',
  422: 'Idempotency-Key reused with a different request',
  424: 'The counterparty could not be reached or failed (LNURLP_REQUEST_FAILED)',
  429: 'Rate limited; see Retry-After',
};

/** What a 409 says about retrying it, documented with every 409. */
export const conflictHeaders = {
  [SHOULD_RETRY_HEADER]:
    '`false` when no retry can change the answer (a duplicate, a state already decided); absent when the same request may get past it later (a concurrent change; an Idempotency-Key still in flight, which also carries Retry-After)',
};

const HEADERS: Record<number, Record<string, string>> = {
  409: conflictHeaders,
  429: { 'Retry-After': 'Seconds to wait before retrying' },
};

/** Error responses in the spec's shape, for the OpenAPI document: each status's codes as an enum (errorSchema). */
export function errorResponses(...statuses: number[]): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {};
  for (const s of statuses)
    out[s] = { description: DESCRIPTIONS[s] ?? 'Error', schema: errorSchema(s), ...(HEADERS[s] ? { headers: HEADERS[s] } : {}) };
  return out;
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

/** A JSON response. Every API response is `no-store`: many carry secrets, keys or balances. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
}
