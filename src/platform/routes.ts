// Every platform route: configuration, API tokens and the operator's platforms.
import type { RouteDef } from '../http/route';
import { configRoutes } from './config-routes';
import { tokenRoutes } from './token-routes';
import { operatorRoutes } from './operator-routes';

/** The platform's configuration, its API tokens and the operator's platform management. */
export const platformRoutes: RouteDef[] = [...configRoutes, ...tokenRoutes, ...operatorRoutes];
