import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { Transaction, TransactionHistory, TransactionIdParams, TransactionList, TransactionListQuery } from './schema';
import {
  transactionFrom,
  transactionHistoryFrom,
  transactionHistoryLoads,
  transactionListFrom,
  transactionListLoads,
  transactionLoads,
} from './transactions-service';

const tag = 'Transactions';

export const transactionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/transactions',
    operationId: 'listTransactions',
    summary: 'List transactions (filters: customer, account, status, type, reference, dates)',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: TransactionListQuery,
    responses: { 200: { description: 'A page of transactions', schema: TransactionList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => transactionListLoads(db, platformId, query),
    handler: (c) => json(transactionListFrom(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/transactions/:transactionId',
    operationId: 'getTransactionById',
    summary: 'Get a transaction',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: TransactionIdParams,
    responses: { 200: { description: 'The transaction', schema: Transaction }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => transactionLoads(db, platformId, params.transactionId),
    handler: (c) => json(transactionFrom(c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/transactions/:transactionId/history',
    operationId: 'getTransactionHistory',
    summary: "A transaction's status changes, oldest first",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: TransactionIdParams,
    responses: { 200: { description: 'Its status history', schema: TransactionHistory }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => transactionHistoryLoads(db, platformId, params.transactionId),
    handler: (c) => json(transactionHistoryFrom(c.loaded)),
  }),
];
