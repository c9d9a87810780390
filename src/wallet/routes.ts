// The embedded-wallet routes: credentials, sessions and the wallet account's export.
import type { RouteDef } from '../http/route';
import { credentialRoutes } from './credential-routes';
import { sessionRoutes } from './session-routes';
import { walletAccountRoutes } from './account-routes';

/** Embedded wallets: credentials, sessions and the wallet account's export. */
export const walletRoutes: RouteDef[] = [...credentialRoutes, ...sessionRoutes, ...walletAccountRoutes];
