import type { RouteDef } from './route';

/**
 * Routes in the order the router must try them. A route can only shadow another of the same length whose
 * segments it matches; then it has a parameter where the other has a literal, at some first position, so
 * sorting by the paths' segment kinds (literal before parameter, position by position) puts every literal
 * path before the parameterised ones that would match it (`/customers/bulk` before `/customers/:customerId`).
 * The sort is stable: otherwise the areas' own order is kept.
 */
export function inMatchingOrder(routes: readonly RouteDef[]): RouteDef[] {
  const kinds = (r: RouteDef) => r.path.split('/').map((s) => (s.startsWith(':') ? '1' : '0')).join('');
  return [...routes].sort((a, b) => (kinds(a) < kinds(b) ? -1 : kinds(a) > kinds(b) ? 1 : 0));
}
