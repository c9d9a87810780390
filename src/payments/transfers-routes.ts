import type { z } from 'zod';
import { defineRoute, json, type Ctx } from '../http/route';
import { errorResponses } from '../http/responses';
import { idempotencyHeaderDoc, withIdempotency } from '../http/idempotency';
import { Transaction, TransferInRequest, TransferOutRequest } from './schema';
import { paymentDeps } from './state';
import { createTransfer, transferReads, type Direction } from './transfers-service';
import { transactionView } from './views';

const tag = 'Same-Currency Transfers';
const responses = {
  201: { description: 'The transfer, already initiated (sandbox outcome by the external account suffix)', schema: Transaction },
  ...errorResponses(400, 401, 403, 404, 409, 413, 422),
};

/**
 * One transfer under its Idempotency-Key in three round trips: authentication; the key's claim with the
 * accounts' reads; the money batch, which also records the response for replays. The key is also recorded
 * on the transaction, so a retry whose stored answer was lost (a worker that died after committing, a claim
 * that lapsed) returns the committed transfer instead of moving money again.
 */
function transfer(direction: Direction) {
  return (c: Ctx<'basic', unknown, unknown, z.infer<typeof TransferInRequest>>) => {
    const input = { sourceAccountId: c.body.source.accountId, destinationAccountId: c.body.destination.accountId, amount: c.body.amount };
    const requestKey = c.request.headers.get('Idempotency-Key') ?? '';
    const reads = transferReads(c.db, c.auth.platform, direction, input, requestKey);
    return withIdempotency(
      c,
      'platform',
      async (claim) => {
        const earlier = reads.earlier(claim.reads);
        if (earlier) return json(transactionView(earlier), 201);
        let built: { id: string; body: string } | undefined;
        const row = await createTransfer(paymentDeps(c), c.auth.platform, direction, input, c.now, {
          pair: reads.pair(claim.reads),
          requestKey,
          with: (row) => {
            built = { id: row.id, body: JSON.stringify(transactionView(row)) };
            return [claim.record(201, built.body)];
          },
        });
        // Another attempt of this request committed first: its transfer is the answer, recorded as usual.
        return built?.id === row.id ? claim.recorded(201, built.body) : json(transactionView(row), 201);
      },
      { reads: [...reads.statements] },
    );
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
    headers: idempotencyHeaderDoc,
    responses,
    handler: transfer('IN'),
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
    handler: transfer('OUT'),
  }),
];
