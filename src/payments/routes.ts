// Every payment route: exchange rates, quotes, transfers and transactions.
import type { RouteDef } from '../http/route';
import { ratesRoutes } from './rates-routes';
import { quoteRoutes } from './quotes-routes';
import { transferRoutes } from './transfers-routes';
import { transactionApprovalRoutes, transactionRoutes } from './transactions-routes';
import type { ApprovalDecider } from './approvals-service';

/** Quotes, transfers, transactions (decided by `decider` when it claims one) and exchange rates. */
export const paymentRoutes = (decider: ApprovalDecider): RouteDef[] => [
  ...ratesRoutes,
  ...quoteRoutes,
  ...transferRoutes,
  ...transactionRoutes,
  ...transactionApprovalRoutes(decider),
];
