import { z } from 'zod';

/** Thrown anywhere; shaped once into the spec's error body `{status, code, message, details?}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
    /** Sandbox magic-value failures name the failed check here (spec 4.9). */
    readonly reason?: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'INVALID_INPUT', message, details);
export const unauthorized = (message = 'Missing or invalid API credentials') =>
  new ApiError(401, 'UNAUTHORIZED', message, undefined, { 'WWW-Authenticate': 'Basic realm="service"' });
export const forbidden = (message: string, details?: Record<string, unknown>) => new ApiError(403, 'FORBIDDEN', message, details);
export const notFound = (code: string, message: string) => new ApiError(404, code, message);
/**
 * Clients generated from the service's OpenAPI retry 408, 409, 429 and 5xx unless the response carries
 * this header set to `false`: it marks a conflict that no retry can change.
 */
export const SHOULD_RETRY_HEADER = 'x-should-retry';
export const FINAL_CONFLICT_HEADERS: Record<string, string> = { [SHOULD_RETRY_HEADER]: 'false' };
/** A 409 that a retry cannot change: a duplicate, or a state already decided. */
export const conflict = (message: string, code = 'CONFLICT') => new ApiError(409, code, message, undefined, FINAL_CONFLICT_HEADERS);
/** A 409 the same request may get past when retried: a concurrent change, work still running. */
export const retryableConflict = (message: string, code = 'CONFLICT') => new ApiError(409, code, message);

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
    }
  }
  return issues;
}

export const ErrorBody = z
  .object({
    status: z.int(),
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    reason: z.string().optional().meta({ description: 'Sandbox: the failed magic-value check (spec 4.9)' }),
  })
  .meta({ id: 'Error', description: 'Every non-2xx response has this shape; `status` equals the HTTP status.' });

export function errorResponse(error: ApiError): Response {
  const body: z.infer<typeof ErrorBody> = { status: error.status, code: error.code, message: error.message };
  if (error.details) body.details = error.details;
  if (error.reason) body.reason = error.reason;
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...error.headers },
  });
}
