// The runner's hooks: what a floor above adds to every request's handling, installed by the router (as it passes
// the credential lookups in). The sandbox's fault rules are one; a production router installs none.
import type { Db } from '../db/client';
import type { PlatformRow } from '../db/schema';

/** A request as a hook sees it: authenticated as a platform's, its input valid, not yet handled. */
export interface HandlingRequest {
  db: Db;
  platform: PlatformRow;
  request: Request;
  method: string;
  /** The route's itty-router path (`/quotes/:quoteId/execute`). */
  route: string;
  input: { params: unknown; query: unknown; body: unknown };
  /** The customer an agent acts for (agent-bearer requests). */
  customerId?: string;
  /** The platform's time. */
  now: number;
}

/** What a hook does to one request: answer `instead` of handling it (nothing is done), or change its real answer `after`. */
export interface AroundHandling {
  instead?: Response;
  after?: (response: Response) => Promise<Response>;
}

export interface RunHooks {
  /** Before the handler; undefined when it has nothing to do for this request. */
  aroundHandling?: (r: HandlingRequest) => Promise<AroundHandling | undefined>;
}
