// Every payment route: exchange rates, quotes, transfers, transactions and the payment rail's outcomes.
import type { RouteDef } from '../http/route';
import { ratesRoutes } from './rates-routes';
import { quoteRoutes } from './quotes-routes';
import { transferRoutes } from './transfers-routes';
import { transactionApprovalRoutes, transactionRoutes } from './transactions-routes';
import { railRoutes } from './rail-routes';
import type { ApprovalDecider } from './approvals-service';

/** Quotes, transfers, transactions (decided by `decider` when it claims one), exchange rates and rail outcomes. */
export const paymentRoutes = (decider: ApprovalDecider): RouteDef[] => [
  ...ratesRoutes,
  ...quoteRoutes,
  ...transferRoutes,
  ...transactionRoutes,
  ...transactionApprovalRoutes(decider),
  ...railRoutes,
];
