// The order routes are tried in, so that no literal path is shadowed by a parameter, and paths as OpenAPI spells them.
import type { RouteDef } from './route';

/** An itty-router path (`/quotes/:quoteId/execute`) as the OpenAPI document spells it (`/quotes/{quoteId}/execute`). */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** True when path `a` matches every request meant for path `b`: a parameter where `b` has a literal. */
export function pathShadows(a: string, b: string): boolean {
  if (a === b) return false;
  const x = a.split('/');
  const y = b.split('/');
  return x.length === y.length && x.every((s, i) => s === y[i] || (s.startsWith(':') && !y[i]!.startsWith(':')));
}

/** True when `a` would answer requests meant for `b`: same method, and a parameter where `b` has a literal. */
const shadows = (a: RouteDef, b: RouteDef) => a.method === b.method && pathShadows(a.path, b.path);

/**
 * Routes in the order the router must try them: the areas' own order, except that a route is moved up
 * just before the first route that would shadow it (`/customers/bulk` before `/customers/:customerId`).
 * The moved route cannot shadow a route it passes: that route would have been shadowed already.
 */
export function inMatchingOrder(routes: readonly RouteDef[]): RouteDef[] {
  const ordered: RouteDef[] = [];
  for (const route of routes) {
    const first = ordered.findIndex((r) => shadows(r, route));
    if (first === -1) ordered.push(route);
    else ordered.splice(first, 0, route);
  }
  return ordered;
}
