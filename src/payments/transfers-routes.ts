// POST /transfer-in and /transfer-out: a same-currency transfer between a customer's internal and external accounts.
import type * as z from 'zod';
import { defineRoute, type Ctx, type LoadInput } from '../http/route';
import { errorResponses } from '../http/responses';
import { ratesUnavailableResponse } from './rates-schema';
import { Transaction, TransferInRequest, TransferOutRequest } from './schema';
import { paymentDeps } from './transaction-change';
import { checkedPair, transferChange, transferLoads, type Direction } from './transfers-service';

const tag = 'Same-Currency Transfers';
const responses = {
  201: {
    description:
      "The transfer, handed to the rail (sandbox: outcome by the external account suffix; production: in flight until the operator's rail reports)",
    schema: Transaction,
  },
  ...errorResponses(400, 401, 403, 404, 409, 413, 422),
  ...ratesUnavailableResponse,
};

const inputOf = (body: z.infer<typeof TransferInRequest>) => ({
  sourceAccountId: body.source.accountId,
  destinationAccountId: body.destination.accountId,
  amount: body.amount,
});

/**
 * One transfer in two round trips: authentication, which carries the accounts' reads (and an
 * Idempotency-Key's claim), then the money batch, which also records the answer for replays.
 */
function transfer(direction: Direction) {
  const load = (p: LoadInput<z.infer<typeof TransferInRequest>>) => transferLoads(p.db, p.platformId, direction, inputOf(p.body));
  return {
    idempotent: { scope: 'platform' } as const,
    load,
    handler: (c: Ctx<'basic', unknown, unknown, z.infer<typeof TransferInRequest>, ReturnType<typeof load>>) =>
      transferChange(paymentDeps(c), c.auth.platform, direction, c.body.amount, checkedPair(c.auth.platform, direction, c.loaded), c.now),
  };
}

export const transferRoutes = [
  defineRoute({
    method: 'POST',
    path: '/transfer-in',
    operationId: 'createTransferIn',
    summary: 'Pull funds from an external account into an internal account of the same holder',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    body: TransferInRequest,
    responses,
    ...transfer('IN'),
  }),
  defineRoute({
    method: 'POST',
    path: '/transfer-out',
    operationId: 'createTransferOut',
    summary: 'Push funds from an internal account to an external account of the same holder',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    body: TransferOutRequest,
    responses,
    ...transfer('OUT'),
  }),
];
