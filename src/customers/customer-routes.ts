// The customer routes: create, list, read, update (PATCH, a signed retry for an e-mail change) and delete.
import { depsOf } from '../http/deps';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { Customer, CustomerCreate, CustomerIdParams, CustomerList, CustomerListQuery, CustomerUpdate } from './schema';
import { createCustomer, customerFrom, customerLoads } from './service';
import { customerListFrom, customerListLoads } from './list';
import { deleteCustomer } from './delete';
import { patchCustomer } from './email-update';
import { AuthSignedRequestChallenge, SIGNATURE_HEADERS } from '../wallet/schema';

const tag = 'Customers';

export const customerRoutes = [
  defineRoute({
    method: 'POST',
    path: '/customers',
    operationId: 'createCustomer',
    summary: 'Add a new customer (its internal accounts are provisioned at once)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: CustomerCreate,
    responses: {
      201: { description: 'Created', schema: Customer },
      ...errorResponses(400, 401, 403, 409, 413),
    },
    handler: async (c) => json(await createCustomer(c.db, c.auth.platform, c.body, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/customers',
    operationId: 'listCustomers',
    summary: 'List customers',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: CustomerListQuery,
    // A search reads about its matches (its full-text index), which may be far more than its page.
    expensive: (url) => url.searchParams.has('search'),
    responses: { 200: { description: 'A page of customers', schema: CustomerList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => customerListLoads(db, platformId, query),
    handler: (c) => json(customerListFrom(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/:customerId',
    operationId: 'getCustomerById',
    summary: 'Get a customer',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: CustomerIdParams,
    responses: { 200: { description: 'The customer', schema: Customer }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => customerLoads(db, platformId, params.customerId),
    handler: (c) => json(customerFrom(c.loaded)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/customers/:customerId',
    operationId: 'updateCustomerById',
    summary: 'Update a customer (omitted fields unchanged)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: CustomerIdParams,
    body: CustomerUpdate,
    responses: {
      200: { description: 'The updated customer', schema: Customer },
      202: {
        description: 'E-mail change of a customer with an EMAIL_OTP wallet credential: sign and retry',
        schema: AuthSignedRequestChallenge,
      },
      ...errorResponses(400, 401, 403, 404, 409, 410, 413),
    },
    headers: SIGNATURE_HEADERS,
    handler: async (c) => {
      const result = await patchCustomer(c);
      return json(result.body, result.status);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/customers/:customerId',
    operationId: 'deleteCustomerById',
    summary:
      'Delete a customer with empty accounts and no payment under way (soft: it stays readable with isDeleted true; its accounts close)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: CustomerIdParams,
    responses: {
      200: { description: 'The deleted customer', schema: Customer },
      ...errorResponses(401, 403, 404, 409, 410),
      409: {
        ...errorResponses(409)[409]!,
        description:
          'Refused while its accounts hold funds (x-should-retry false: move them out first) or a payment of it is under way; details name them (fundedAccounts, pendingTransactions)',
      },
    },
    handler: async (c) => json(await deleteCustomer(depsOf(c), c.auth.platform.id, c.params.customerId, c.now)),
  }),
];
