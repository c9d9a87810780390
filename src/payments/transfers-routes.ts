import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { idempotencyHeaderDoc, withIdempotency } from '../http/idempotency';
import { Transaction, TransferInRequest, TransferOutRequest } from './schema';
import { paymentDeps } from './state';
import { createTransfer } from './transfers-service';
import { transactionView } from './views';

const tag = 'Same-Currency Transfers';
/** The request's Idempotency-Key, recorded on the transfer (withIdempotency has already required it). */
const requestKey = (c: { request: Request }) => c.request.headers.get('Idempotency-Key') ?? undefined;
const responses = {
  201: { description: 'The transfer, already initiated (sandbox outcome by the external account suffix)', schema: Transaction },
  ...errorResponses(400, 401, 403, 404, 409, 413, 422),
};

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
    headers: idempotencyHeaderDoc,
    responses,
    handler: (c) =>
      withIdempotency(c, 'platform', async () => {
        const input = { sourceAccountId: c.body.source.accountId, destinationAccountId: c.body.destination.accountId, amount: c.body.amount };
        return json(transactionView(await createTransfer(paymentDeps(c), c.auth.platform, 'IN', input, c.now, requestKey(c))), 201);
      }),
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
    headers: idempotencyHeaderDoc,
    responses,
    handler: (c) =>
      withIdempotency(c, 'platform', async () => {
        const input = { sourceAccountId: c.body.source.accountId, destinationAccountId: c.body.destination.accountId, amount: c.body.amount };
        return json(transactionView(await createTransfer(paymentDeps(c), c.auth.platform, 'OUT', input, c.now, requestKey(c))), 201);
      }),
  }),
];
