import type { RouteDef } from '../http/route';
import { credentialRoutes } from './credential-routes';
import { sessionRoutes } from './session-routes';
import { emailRoutes } from './email-routes';
import { walletAccountRoutes } from './account-routes';

/** Embedded wallets: credentials, sessions, e-mail OTP and the wallet account. */
export const walletRoutes: RouteDef[] = [...credentialRoutes, ...sessionRoutes, ...emailRoutes, ...walletAccountRoutes];
