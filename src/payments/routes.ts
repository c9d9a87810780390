// Every payment route: exchange rates, receiver look-ups, quotes, transfers, transactions, crypto fee estimates
// and the payment rail's outcomes.
import type { RouteDef } from '../http/route';
import { ratesRoutes } from './rates-routes';
import { quoteRoutes } from './quotes-routes';
import { lookupRoutes } from './lookups-routes';
import { cryptoRoutes } from './crypto-routes';
import { transferRoutes } from './transfers-routes';
import { transactionApprovalRoutes, transactionRoutes } from './transactions-routes';
import { railRoutes } from './rail-routes';
import type { ApprovalDecider } from './approvals-service';

/**
 * Quotes, transfers, transactions (decided by `decider` when it claims one), exchange rates, look-ups, crypto fee
 * estimates and rail outcomes.
 */
export const paymentRoutes = (decider: ApprovalDecider): RouteDef[] => [
  ...ratesRoutes,
  ...lookupRoutes,
  ...quoteRoutes,
  ...transferRoutes,
  ...cryptoRoutes,
  ...transactionRoutes,
  ...transactionApprovalRoutes(decider),
  ...railRoutes,
];
