import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/router';
import { inMatchingOrder } from '../../src/http/route-order';
import type { RouteDef } from '../../src/http/route';

// The router tries routes in list order, a `:param` segment matching any one segment (itty-router).
const pattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
const sample = (path: string) => path.replace(/:[A-Za-z]+/g, 'sample-id');

/** The routes that would answer a request to another route's path before it does. */
function shadowed(routes: readonly RouteDef[]) {
  return routes.flatMap((route) => {
    const first = routes.find((r) => r.method === route.method && pattern(r.path).test(sample(route.path)));
    return first === route ? [] : [`${route.method} ${route.path} is answered by ${first?.path}`];
  });
}

describe('route matching order', () => {
  it('no path of any method is shadowed by a parameterised one listed before it', () => {
    expect(ROUTES.length).toBeGreaterThan(90);
    expect(shadowed(ROUTES)).toEqual([]);
  });

  it('the order comes from the paths, not from the order areas list their routes in', () => {
    // Reversed, and with the most parameterised paths first: the computed order still shadows nothing.
    const params = (r: RouteDef) => r.path.split(':').length;
    for (const input of [[...ROUTES].reverse(), [...ROUTES].sort((a, b) => params(b) - params(a))]) {
      expect(shadowed(input).length).toBeGreaterThan(0);
      expect(shadowed(inMatchingOrder(input))).toEqual([]);
    }
  });
});
