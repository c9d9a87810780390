// Every error code with its HTTP status, the finer cases answered inside a code, ApiError, and the error bodies.
import * as z from 'zod';

/**
 * Every error code the API answers with, and its HTTP status. For the statuses the reference closes with an
 * enum (400, 401, 403, 404, 405, 409, 410, 412, 424, 429, 500, 501: `CLOSED_STATUSES`) a code is one of the
 * specification's error table or the reference's for that status, so a client generated from the reference
 * can switch on every code; 413, 415, 422 and 503 are the project's own. A code is thrown anywhere as an
 * `ApiError` and shaped into the error body in one place (`errorResponse`). The first code of a status is
 * its generic one (what a sandbox fault of that status answers).
 */
export const ERRORS = {
  INVALID_INPUT: 400,
  INVALID_AMOUNT: 400,
  INVALID_BANK_ACCOUNT: 400,
  WEBHOOK_DELIVERY_ERROR: 400,
  WEBHOOK_ENDPOINT_NOT_SET: 400,
  EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS: 400,
  PASSKEY_CREDENTIAL_ALREADY_EXISTS: 400,
  INVITATION_ALREADY_CLAIMED: 400,
  INVITATION_CANCELLED: 400,
  UNAUTHORIZED: 401,
  INVALID_SIGNATURE: 401,
  REQUEST_ID_MISSING: 401,
  WALLET_SIGNATURE_MISSING: 401,
  WALLET_SIGNATURE_MALFORMED: 401,
  WALLET_SIGNATURE_INVALID: 401,
  WALLET_SIGNATURE_BODY_MISMATCH: 401,
  FORBIDDEN: 403,
  REFERENCE_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  UMA_NOT_FOUND: 404,
  BULK_UPLOAD_JOB_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  LOOKUP_REQUEST_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL: 409,
  UMA_ADDRESS_EXISTS: 409,
  CUSTOMER_DELETED: 410,
  UNSUPPORTED_UMA_VERSION: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  LNURLP_REQUEST_FAILED: 424,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  RATES_UNAVAILABLE: 503,
  SERVICE_NOT_CONFIGURED: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** The statuses whose codes the reference closes with an enum (test/http/reference-errors.json holds them). */
export const CLOSED_STATUSES: readonly number[] = [400, 401, 403, 404, 405, 409, 410, 412, 424, 429, 500, 501];

/**
 * The finer cases the API tells apart inside one contract code: each answers with its code and names itself
 * in `details.reason`. A case is thrown by its name like a code (`new ApiError('INSUFFICIENT_FUNDS', ...)`,
 * `notFound('AGENT_NOT_FOUND', ...)`); docs/conventions.md, "Errors", says why each maps where it does.
 */
export const REASONS = {
  INSUFFICIENT_FUNDS: 'INVALID_AMOUNT',
  QUOTE_REQUIRES_FUNDING: 'INVALID_INPUT',
  QUOTE_NOT_REALTIME_FUNDED: 'INVALID_INPUT',
  INVITATION_EXPIRED: 'INVALID_INPUT',
  AGENT_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  AGENT_ACTION_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  DEVICE_CODE_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  INTERNAL_ACCOUNT_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  EXTERNAL_ACCOUNT_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  BENEFICIAL_OWNER_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  VERIFICATION_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  DOCUMENT_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  CREDENTIAL_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  SESSION_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  WEBHOOK_DELIVERY_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  SANDBOX_FAULT_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  SANDBOX_SNAPSHOT_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  KYC_LINK_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  PLATFORM_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  ROUTE_NOT_FOUND: 'REFERENCE_NOT_FOUND',
  QUOTE_NOT_PENDING: 'CONFLICT',
  QUOTE_EXPIRED: 'CONFLICT',
  UMA_DOMAIN_TAKEN: 'CONFLICT',
  IDEMPOTENCY_REQUEST_IN_PROGRESS: 'CONFLICT',
  PLATFORM_MOVING: 'CONFLICT',
} as const satisfies Record<string, ErrorCode>;

export type Reason = keyof typeof REASONS;
/** What an error is thrown as: a code, or a finer case of one. */
export type ErrorName = ErrorCode | Reason;

const isReason = (name: string): name is Reason => Object.hasOwn(REASONS, name);
/** The code `name` answers with. */
export const codeOf = (name: ErrorName): ErrorCode => (isReason(name) ? REASONS[name] : name);
export const statusOf = (name: ErrorName): number => ERRORS[codeOf(name)];

/** The names whose status is `S`, e.g. `NameOf<404>` for `notFound`. */
type NameOf<S extends number> = {
  [K in ErrorName]: (typeof ERRORS)[K extends Reason ? (typeof REASONS)[K] : K] extends S ? K : never;
}[ErrorName];

/** Thrown anywhere; shaped once into the spec's error body `{status, code, message, details?}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(
    /** A code, or a finer case (REASONS), answered with its code and named in `details.reason`. */
    name: ErrorName,
    message: string,
    details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
    /** Sandbox magic-value failures name the failed check here. */
    readonly reason?: string,
  ) {
    super(message);
    this.code = codeOf(name);
    this.status = ERRORS[this.code];
    this.details = isReason(name) ? { reason: name, ...details } : details;
  }

  /** Whether this error is `name`: its code, or the finer case it names. */
  is(name: ErrorName): boolean {
    return isReason(name) ? this.details?.reason === name : this.code === name;
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
export const notFound = (name: NameOf<404>, message: string) => new ApiError(name, message);
/** A path no route serves (or one that does not exist in this mode), answered like any unknown path. */
export const noRoute = () => notFound('ROUTE_NOT_FOUND', 'No route matches this path');
/**
 * Clients generated from the service's OpenAPI retry 408, 409, 429 and 5xx unless the response carries
 * this header set to `false`: it marks a conflict that no retry can change.
 */
export const SHOULD_RETRY_HEADER = 'x-should-retry';
export const FINAL_CONFLICT_HEADERS: Record<string, string> = { [SHOULD_RETRY_HEADER]: 'false' };
/** A 409 that a retry cannot change: a duplicate, or a state already decided. */
export const conflict = (message: string, name: NameOf<409> = 'CONFLICT') => new ApiError(name, message, undefined, FINAL_CONFLICT_HEADERS);
/** A 409 the same request may get past when retried: a concurrent change, work still running. */
export const retryableConflict = (message: string, name: NameOf<409> = 'CONFLICT') => new ApiError(name, message);

/**
 * 409 while the operator moves the platform to another database: its writes wait a moment (Retry-After), its
 * reads go on. A retry after the move acts.
 */
export const platformMoving = () =>
  new ApiError('PLATFORM_MOVING', 'The platform is moving to another database: retry in a moment', undefined, { 'Retry-After': '2' });

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

const Details = z.record(z.string(), z.unknown());
const SandboxReason = z.string().meta({ description: 'Sandbox: the magic-value check that failed, e.g. `Invalid OTP code`' });

/** The error body in code: any status, any code. */
export const ErrorBody = z.object({
  status: z.int(),
  code: z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  details: Details.optional(),
  reason: SandboxReason.optional(),
});

const bodies = new Map<number, z.ZodType>();
/**
 * The error body of `status` as /openapi.json declares it (`Error404`...), generated from the tables: its
 * codes as an enum, each with the finer cases it names in `details.reason`.
 */
export function errorSchema(status: number): z.ZodType {
  let schema = bodies.get(status);
  if (schema) return schema;
  const codes = (Object.keys(ERRORS) as ErrorCode[]).filter((code) => ERRORS[code] === status);
  if (codes.length === 0) throw new Error(`No error code has status ${status}`);
  const reasons = (Object.keys(REASONS) as Reason[]).filter((r) => ERRORS[REASONS[r]] === status);
  const cases = codes.map((code) => {
    const of = reasons.filter((r) => REASONS[r] === code);
    return `| ${code} | ${of.length ? of.join(', ') : ''} |`;
  });
  schema = z
    .object({
      status: z.literal(status),
      code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).meta({
        description: ['| Error code | `details.reason` (finer cases) |', '|---|---|', ...cases].join('\n'),
      }),
      message: z.string(),
      details: Details.optional().meta({
        description: reasons.length ? '`reason` names the finer case (see `code`); other keys are free-form' : 'Free-form',
      }),
      ...(status === 401 ? { reason: SandboxReason.optional() } : {}),
    })
    .meta({ id: `Error${status}`, description: `A ${status} answer; \`status\` equals the HTTP status.` });
  bodies.set(status, schema);
  return schema;
}

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
