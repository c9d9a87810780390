// Every payment route: exchange rates, receiver look-ups, quotes, transfers and transactions.
import type { RouteDef } from '../http/route';
import { ratesRoutes } from './rates-routes';
import { quoteRoutes } from './quotes-routes';
import { lookupRoutes } from './lookups-routes';
import { transferRoutes } from './transfers-routes';
import { transactionApprovalRoutes, transactionRoutes } from './transactions-routes';
import type { ApprovalDecider } from './approvals-service';

/** Quotes, transfers, transactions (decided by `decider` when it claims one), exchange rates and look-ups. */
export const paymentRoutes = (decider: ApprovalDecider): RouteDef[] => [
  ...ratesRoutes,
  ...lookupRoutes,
  ...quoteRoutes,
  ...transferRoutes,
  ...transactionRoutes,
  ...transactionApprovalRoutes(decider),
];
