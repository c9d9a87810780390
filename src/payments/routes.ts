// Every payment route: exchange rates, receiver look-ups, quotes, transfers, transactions and crypto fee estimates.
import type { RouteDef } from '../http/route';
import { ratesRoutes } from './rates-routes';
import { quoteRoutes } from './quotes-routes';
import { lookupRoutes } from './lookups-routes';
import { cryptoRoutes } from './crypto-routes';
import { transferRoutes } from './transfers-routes';
import { transactionApprovalRoutes, transactionRoutes } from './transactions-routes';
import type { ApprovalDecider } from './approvals-service';

/** Quotes, transfers, transactions (decided by `decider` when it claims one), exchange rates, look-ups and crypto fee estimates. */
export const paymentRoutes = (decider: ApprovalDecider): RouteDef[] => [
  ...ratesRoutes,
  ...lookupRoutes,
  ...quoteRoutes,
  ...transferRoutes,
  ...cryptoRoutes,
  ...transactionRoutes,
  ...transactionApprovalRoutes(decider),
];
