// Every /sandbox/* route: the clock, simulated payments, deposits, the e-mail outbox, webhooks (TEST and chaos), fault rules, magic values, the hosted KYC page's calls, snapshots, fixtures and reset.
import type { RouteDef } from '../http/route';
import type { OperationCalls } from '../http/call';
import type { CatalogWebhook } from '../webhooks/schema';
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
import { resetRoutes } from './reset-routes';

/** What the router hands the sandbox: the API's route table, its in-process caller and its webhook catalog. */
export interface SandboxWiring {
  /** Every API route: fault rules name its operations; fixtures run them. */
  routes: () => readonly RouteDef[];
  /** Runs an operation in process, as its HTTP request would run: fixtures' steps. */
  calls: OperationCalls;
  /** The webhooks /openapi.json documents: a sandbox send is checked against their data schemas. */
  webhooks: readonly CatalogWebhook[];
}

/** The sandbox's routes; the router hides them in production. */
export const sandboxRoutes = ({ routes, calls, webhooks }: SandboxWiring): RouteDef[] => [
  ...clockRoutes,
  ...sandboxFundRoutes,
  ...sandboxEmailRoutes,
  ...sandboxWebhookRoutes(webhooks),
  ...faultRoutes(routes),
  ...magicValueRoutes,
  ...sandboxKycLinkRoutes,
  ...snapshotRoutes,
  ...fixtureRoutes(routes, calls),
  ...sandboxPaymentRoutes,
  // Last: POST /sandbox/reset deletes what the routes above work on (the OpenAPI document lists them in this order).
  ...resetRoutes,
];
