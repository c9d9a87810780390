// Every error code with its HTTP status, ApiError, and the error body it is answered as.
import * as z from 'zod';

/**
 * Every error code the API answers with, and its HTTP status: the spec's codes and this project's own.
 * A code is thrown anywhere as an `ApiError` and shaped into the error body in one place (`errorResponse`).
 */
export const ERRORS = {
  INVALID_INPUT: 400,
  INSUFFICIENT_FUNDS: 400,
  INVALID_BANK_ACCOUNT: 400,
  QUOTE_NOT_REALTIME_FUNDED: 400,
  QUOTE_REQUIRES_FUNDING: 400,
  WEBHOOK_DELIVERY_FAILED: 400,
  WEBHOOK_ENDPOINT_NOT_CONFIGURED: 400,
  EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS: 400,
  PASSKEY_CREDENTIAL_ALREADY_EXISTS: 400,
  INVITATION_ALREADY_CLAIMED: 400,
  INVITATION_CANCELLED: 400,
  UNAUTHORIZED: 401,
  REQUEST_ID_MISSING: 401,
  WALLET_SIGNATURE_MISSING: 401,
  WALLET_SIGNATURE_MALFORMED: 401,
  WALLET_SIGNATURE_INVALID: 401,
  WALLET_SIGNATURE_BODY_MISMATCH: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  UMA_NOT_FOUND: 404,
  BULK_UPLOAD_JOB_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  REFERENCE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  IDEMPOTENCY_REQUEST_IN_PROGRESS: 409,
  QUOTE_EXPIRED: 409,
  QUOTE_NOT_PENDING: 409,
  TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: 409,
  UMA_ADDRESS_EXISTS: 409,
  UMA_DOMAIN_TAKEN: 409,
  CUSTOMER_DELETED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  RATES_UNAVAILABLE: 503,
  SERVICE_NOT_CONFIGURED: 503,
} as const;

export type ErrorCode = keyof typeof ERRORS;
/** The codes whose status is `S`, e.g. `CodeOf<404>` for `notFound`. */
type CodeOf<S extends number> = { [K in ErrorCode]: (typeof ERRORS)[K] extends S ? K : never }[ErrorCode];

/** Thrown anywhere; shaped once into the spec's error body `{status, code, message, details?}`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
    /** Sandbox magic-value failures name the failed check here (spec 4.9). */
    readonly reason?: string,
  ) {
    super(message);
    this.status = ERRORS[code];
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new ApiError('INVALID_INPUT', message, details);
/** HTTP Basic's 401; `unauthorized(false)` leaves out `WWW-Authenticate` (a browser script's call: see auth.ts). */
export const unauthorized = (challenge = true) =>
  new ApiError(
    'UNAUTHORIZED',
    'Missing or invalid API credentials',
    undefined,
    challenge ? { 'WWW-Authenticate': 'Basic realm="service"' } : undefined,
  );
export const forbidden = (message: string, details?: Record<string, unknown>) => new ApiError('FORBIDDEN', message, details);
export const notFound = (code: CodeOf<404>, message: string) => new ApiError(code, message);
/** A path no route serves (or one that does not exist in this mode), answered like any unknown path. */
export const noRoute = () => notFound('NOT_FOUND', 'No route matches this path');
/**
 * Clients generated from the service's OpenAPI retry 408, 409, 429 and 5xx unless the response carries
 * this header set to `false`: it marks a conflict that no retry can change.
 */
export const SHOULD_RETRY_HEADER = 'x-should-retry';
export const FINAL_CONFLICT_HEADERS: Record<string, string> = { [SHOULD_RETRY_HEADER]: 'false' };
/** A 409 that a retry cannot change: a duplicate, or a state already decided. */
export const conflict = (message: string, code: CodeOf<409> = 'CONFLICT') => new ApiError(code, message, undefined, FINAL_CONFLICT_HEADERS);
/** A 409 the same request may get past when retried: a concurrent change, work still running. */
export const retryableConflict = (message: string, code: CodeOf<409> = 'CONFLICT') => new ApiError(code, message);

/** One field that failed validation, named by its dotted path. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** 400 INVALID_INPUT naming every failing field. */
export function invalidFields(where: string, issues: FieldIssue[]): ApiError {
  const names = [...new Set(issues.map((i) => i.field))];
  return badRequest(`Invalid ${where}: ${names.join(', ')}`, { fields: issues });
}

export function zodIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ field: base ? `${base}.${key}` : key, message: 'Unknown field' });
      }
    } else {
      issues.push({ field: base || '(body)', message: issue.message });
      // No variant of a union matched: a field that every variant of its kind refuses is named too.
      if (issue.code === 'invalid_union') {
        for (const field of unknownInEvery(issue.errors))
          issues.push({ field: base ? `${base}.${field}` : field, message: 'Unknown field' });
      }
    }
  }
  return issues;
}

/** Dotted paths, relative to a union, of the unknown fields every variant refuses (variants of another type aside). */
function unknownInEvery(variants: z.core.$ZodIssue[][]): string[] {
  const sets = variants
    .filter((issues) => !issues.some((i) => i.code === 'invalid_type' && i.path.length === 0))
    .map((issues) => new Set(unknownFields(issues)));
  if (sets.length === 0) return [];
  return [...sets[0]!].filter((field) => sets.every((s) => s.has(field)));
}

function unknownFields(issues: z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    const at = (field: string) => [...issue.path.map(String), field].join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map(at);
    if (issue.code === 'invalid_union') return unknownInEvery(issue.errors).map(at);
    return [];
  });
}

export const ErrorBody = z
  .object({
    status: z.int(),
    code: z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'The error code; its status is fixed per code' }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().optional().meta({ description: 'Sandbox: the failed magic-value check (spec 4.9)' }),
  })
  .meta({ id: 'Error', description: 'Every non-2xx response has this shape; `status` equals the HTTP status.' });

/** The spec's error body of `error`. */
export function errorBody(error: ApiError): z.infer<typeof ErrorBody> {
  const body: z.infer<typeof ErrorBody> = { status: error.status, code: error.code, message: error.message };
  if (error.details) body.details = error.details;
  if (error.reason) body.reason = error.reason;
  return body;
}

export function errorResponse(error: ApiError): Response {
  return new Response(JSON.stringify(errorBody(error)), {
    status: error.status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...error.headers },
  });
}
