import type { z } from 'zod';
import { defineRoute, json, type Ctx, type PreloadInput } from '../http/route';
import { errorResponses } from '../http/responses';
import { IDEMPOTENCY_HEADER, idempotencyHeaderDoc, preloadClaim, withIdempotency } from '../http/idempotency';
import { Transaction, TransferInRequest, TransferOutRequest } from './schema';
import { paymentDeps } from './transaction-change';
import { createTransfer, liveEarlier, transferReads, type Direction } from './transfers-service';
import { transactionView } from './views';

const tag = 'Same-Currency Transfers';
const responses = {
  201: { description: 'The transfer, already initiated (sandbox outcome by the external account suffix)', schema: Transaction },
  ...errorResponses(400, 401, 403, 404, 409, 413, 422),
};

const inputOf = (body: z.infer<typeof TransferInRequest>) => ({
  sourceAccountId: body.source.accountId,
  destinationAccountId: body.destination.accountId,
  amount: body.amount,
});
/** The raw Idempotency-Key; absent, the transfer runs once as sent. */
const keyOf = (request: Request) => request.headers.get(IDEMPOTENCY_HEADER) ?? undefined;

/**
 * One transfer in two round trips: authentication, which carries the accounts' reads and, under an
 * Idempotency-Key, the key's claim (`preload`); then the money batch, which also records the response for
 * replays. The key is also recorded on the transaction, so a retry whose stored answer was lost (a worker
 * that died after committing, a claim that lapsed) returns the committed transfer instead of moving money again.
 */
function transfer(direction: Direction) {
  return {
    preload: (p: PreloadInput<z.infer<typeof TransferInRequest>>) =>
      preloadClaim(p.db, p, 'platform', p.platformId, [
        ...transferReads(p.db, p.platformId, direction, inputOf(p.body), keyOf(p.request)).statements,
      ]),
    handler: async (c: Ctx<'basic', unknown, unknown, z.infer<typeof TransferInRequest>>) => {
      const input = inputOf(c.body);
      const requestKey = keyOf(c.request);
      const reads = transferReads(c.db, c.auth.platform.id, direction, input, requestKey);
      if (requestKey === undefined) {
        // No key: nothing to claim or record; the reads came with authentication.
        const row = await createTransfer(paymentDeps(c), c.auth.platform, direction, input, c.now, {
          pair: reads.pair(c.preloaded, c.auth.platform),
        });
        return json(transactionView(row), 201);
      }
      return withIdempotency(
        c,
        'platform',
        async (claim) => {
          const earlier = liveEarlier(reads.earlier(claim.reads), c.now);
          if (earlier) return json(transactionView(earlier), 201);
          let built: { id: string; body: string } | undefined;
          const row = await createTransfer(paymentDeps(c), c.auth.platform, direction, input, c.now, {
            pair: reads.pair(claim.reads, c.auth.platform),
            requestKey,
            with: (row) => {
              built = { id: row.id, body: JSON.stringify(transactionView(row)) };
              return [claim.record(201, built.body)];
            },
          });
          // Another attempt of this request committed first: its transfer is the answer, recorded as usual.
          return built?.id === row.id ? claim.recorded(201, built.body) : json(transactionView(row), 201);
        },
        // The claim was made with authentication; only for an invalid key (refused before any round trip) is
        // there none, and the wrapper would then make its own with these reads.
        { reads: [...reads.statements], preloaded: c.preloaded.length > 0 ? c.preloaded : undefined },
      );
    },
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
    headers: idempotencyHeaderDoc,
    responses,
    ...transfer('OUT'),
  }),
];
