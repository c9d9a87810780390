// Every /sandbox/* route: the clock, simulated payments, deposits, the e-mail outbox, webhooks (TEST and chaos), fault rules, magic values, the hosted KYC page's calls, snapshots, fixtures and reset.
import type { RouteDef } from '../http/route';
import type { CredentialLookups } from '../http/auth';
import { clockRoutes } from './clock-routes';
import { sandboxPaymentRoutes } from './payments-routes';
import { sandboxFundRoutes } from './fund-routes';
import { sandboxEmailRoutes } from './email-routes';
import { sandboxWebhookRoutes } from './webhook-routes';
import { faultRoutes } from './faults-routes';
import { magicValueRoutes } from './magic-values-routes';
import { snapshotRoutes } from './snapshots-routes';
import { fixtureRoutes } from './fixtures-routes';
import { sandboxKycLinkRoutes } from './kyc-link-routes';

/**
 * The sandbox's routes; the router hides them in production. `routes`: the API's route table (fault rules name
 * its operations; fixtures run them), `credentials`: the router's lookups, which fixtures' steps authenticate with.
 */
export const sandboxRoutes = (routes: () => readonly RouteDef[], credentials: CredentialLookups): RouteDef[] => [
  ...clockRoutes,
  ...sandboxFundRoutes,
  ...sandboxEmailRoutes,
  ...sandboxWebhookRoutes,
  ...faultRoutes(routes),
  ...magicValueRoutes,
  ...sandboxKycLinkRoutes,
  ...snapshotRoutes,
  ...fixtureRoutes(routes, credentials),
  // Last: POST /sandbox/reset deletes what the routes above work on (the OpenAPI document lists them in this order).
  ...sandboxPaymentRoutes,
];
