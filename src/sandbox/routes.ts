import type { RouteDef } from '../http/route';
import { clockRoutes } from './clock-routes';
import { sandboxPaymentRoutes } from './payments-routes';

/** The sandbox clock and simulated payments. */
export const sandboxRoutes: RouteDef[] = [...clockRoutes, ...sandboxPaymentRoutes];
