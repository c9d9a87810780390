// Every payment route: exchange rates, quotes, transfers and transactions.
import type { RouteDef } from '../http/route';
import { ratesRoutes } from './rates-routes';
import { quoteRoutes } from './quotes-routes';
import { transferRoutes } from './transfers-routes';
import { transactionRoutes } from './transactions-routes';

/** Quotes, transfers, transactions and exchange rates. */
export const paymentRoutes: RouteDef[] = [...ratesRoutes, ...quoteRoutes, ...transferRoutes, ...transactionRoutes];
