// Every /sandbox/* route: the clock, simulated payments, deposits, the e-mail outbox, the TEST webhook, webhook chaos and reset.
import type { RouteDef } from '../http/route';
import { clockRoutes } from './clock-routes';
import { sandboxPaymentRoutes } from './payments-routes';
import { sandboxFundRoutes } from './fund-routes';
import { sandboxEmailRoutes } from './email-routes';
import { sandboxWebhookRoutes } from './webhook-routes';

/** The sandbox's routes; the router hides them in production. */
export const sandboxRoutes: RouteDef[] = [
  ...clockRoutes,
  ...sandboxFundRoutes,
  ...sandboxEmailRoutes,
  ...sandboxWebhookRoutes,
  // Last: POST /sandbox/reset deletes what the routes above work on (the OpenAPI document lists them in this order).
  ...sandboxPaymentRoutes,
];
