// Every customer route: customers and their bulk import.
import type { RouteDef } from '../http/route';
import { customerRoutes } from './customer-routes';
import { bulkImportRoutes } from './bulk-routes';

/** Customers and their bulk import. */
export const customersRoutes: RouteDef[] = [...customerRoutes, ...bulkImportRoutes];
