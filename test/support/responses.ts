// A success body checked against the response its operation declares (what /openapi.json shows clients).
import type * as z from 'zod';
import { strictBody } from '../../src/http/body';
import { openApiRoute } from '../../src/http/openapi';
import type { RouteDef } from '../../src/http/route';
import { ROUTES, WEBHOOKS } from '../../src/router';
import { BASE } from './api';

// The router adds GET /openapi.json to its routes (buildRouter): the same declaration, here.
const declared = new Map<string, RouteDef>([...ROUTES, openApiRoute(() => ROUTES, BASE, WEBHOOKS)].map((r) => [r.operationId, r]));

/** The operation whose body is the document itself: OpenAPI 3.1, not a schema of its own. */
const SELF_DESCRIBED = 'getOpenApi';

// Made strict once per schema (responses share them), so checking every call costs a parse each.
const strict = new Map<z.ZodType, z.ZodType>();

/**
 * Why `body`, answered with `status` by operation `op`, is not what the operation declares, or undefined when it
 * is. The status must be one the route declares; a declared schema must parse the body with every object strict
 * (a field served but not declared is drift: clients generate their types from the document, so they would never
 * see it), except where the schema itself declares extra keys (`.catchall`, a record); a status declared without
 * a schema carries no body. The parse must give back the body unchanged: a schema's default or transform applies to
 * what it reads, not to what the document says is served.
 */
export function undeclared(op: string, status: number, body: unknown): string | undefined {
  const route = declared.get(op);
  if (!route) return `${op}: no route declares this operation`;
  const spec = route.responses[status];
  if (!spec) return `${op}: answered ${status}, which it does not declare (${Object.keys(route.responses).join(', ')})`;
  if (!spec.schema) {
    if (op === SELF_DESCRIBED || body === '') return undefined;
    return `${op}: answered ${status} with a body, which it declares without one`;
  }
  let schema = strict.get(spec.schema);
  if (!schema) strict.set(spec.schema, (schema = strictBody(spec.schema)));
  const parsed = schema.safeParse(body);
  // A default or a transform would make the parse say more than was served (the document shows the output).
  if (parsed.success) return same(parsed.data, body) ? undefined : `${op} ${status}: the schema changes the body it parses`;
  return `${op} ${status}: ${described(parsed.error.issues, []).join('; ')}`;
}

/** Each issue at its dotted path; a union none of whose variants matched, with each variant's issues. */
function described(issues: readonly z.core.$ZodIssue[], at: PropertyKey[]): string[] {
  return issues.map((i) => {
    const path = [...at, ...i.path].map(String).join('.') || '(body)';
    if (i.code === 'unrecognized_keys') return `${path}: undeclared ${i.keys.join(', ')}`;
    if (i.code !== 'invalid_union' || i.errors.length === 0) return `${path}: ${i.message}`;
    const variants = i.errors.map((v, n) => `variant ${n + 1}: ${described(v, [...at, ...i.path]).join(', ')}`);
    return `${path}: no variant matches (${variants.join(' | ')})`;
  });
}

/** Equality of JSON values, object keys in any order. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && same(x[k], y[k]));
}
