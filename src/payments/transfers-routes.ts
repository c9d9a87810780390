import type * as z from 'zod';
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { defineRoute, json, type Ctx, type LoadInput } from '../http/route';
import { errorResponses } from '../http/responses';
import { IDEMPOTENCY_HEADER, idempotencyHeaderDoc, isClaimLoaded, loadClaim, withIdempotency, type ClaimLoads } from '../http/idempotency';
import { Transaction, TransferInRequest, TransferOutRequest } from './schema';
import { paymentDeps } from './transaction-change';
import { checkedPair, createTransfer, earlierTransferLoad, liveEarlier, transferLoads, type Direction } from './transfers-service';
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
 * Idempotency-Key, the key's claim and the transfer that key made before (`load`); then the money batch,
 * which also records the response for replays. The key is also recorded on the transaction, so a retry whose
 * stored answer was lost (a worker that died after committing, a claim that lapsed) returns the committed
 * transfer instead of moving money again.
 */
function transfer(direction: Direction) {
  const reads = (db: Db, platformId: SQL, body: z.infer<typeof TransferInRequest>, request: Request) => {
    const key = keyOf(request);
    return {
      ...transferLoads(db, platformId, direction, inputOf(body)),
      ...(key === undefined ? {} : earlierTransferLoad(db, platformId, key)),
    };
  };
  return {
    load: (p: LoadInput<z.infer<typeof TransferInRequest>>) =>
      loadClaim(p.db, p, 'platform', p.platformId, reads(p.db, p.platformId, p.body, p.request)),
    handler: async (
      c: Ctx<'basic', unknown, unknown, z.infer<typeof TransferInRequest>, ReturnType<typeof reads> & Partial<ClaimLoads>>,
    ) => {
      const input = inputOf(c.body);
      const requestKey = keyOf(c.request);
      if (requestKey === undefined) {
        // No key: nothing to claim or record; the reads came with authentication.
        const row = await createTransfer(paymentDeps(c), c.auth.platform, direction, input, c.now, {
          pair: checkedPair(c.auth.platform, direction, c.loaded),
        });
        return json(transactionView(row), 201);
      }
      return withIdempotency(
        c,
        'platform',
        async (claim) => {
          const earlier = liveEarlier(claim.reads.earlier?.[0], c.now);
          if (earlier) return json(transactionView(earlier), 201);
          let built: { id: string; body: string } | undefined;
          const row = await createTransfer(paymentDeps(c), c.auth.platform, direction, input, c.now, {
            pair: checkedPair(c.auth.platform, direction, claim.reads),
            requestKey,
            with: (row) => {
              built = { id: row.id, body: JSON.stringify(transactionView(row)) };
              return [claim.record(201, built.body)];
            },
          });
          // Another attempt of this request committed first: its transfer is the answer, recorded as usual.
          return built?.id === row.id ? claim.recorded(201, built.body) : json(transactionView(row), 201);
        },
        // The claim was made with authentication; only for an invalid key is there none, and the wrapper then
        // answers its 400 before reading anything.
        { reads: reads(c.db, sql`${c.auth.platform.id}`, c.body, c.request), loaded: isClaimLoaded(c.loaded) ? c.loaded : undefined },
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
