// The quote routes: create, list, get and execute (a wallet source through a signed retry).
import { sql } from 'drizzle-orm';
import { loadTogether } from '../db/client';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { answering } from '../http/change';
import { SIGNATURE_HEADERS, SignedRequestChallenge } from '../wallet/schema';
import { walletByAccount } from '../wallet/service';
import { signedRetry } from '../wallet/signed-retry';
import { Quote, QuoteIdParams, QuoteList, QuoteListQuery, QuoteRequest } from './schema';
import { ratesUnavailableResponse } from './rates-schema';
import {
  checkExecutable,
  loadQuote,
  quoteFrom,
  quoteListFrom,
  quoteListLoads,
  quoteLoads,
  quotePaymentChange,
  quoteViewFrom,
  quoteViewLoads,
} from './quotes-service';
import { quoteView } from './views';
import { createQuote, quoteRequestLoads } from './quote-create';
import { paymentDeps } from './transaction-change';

const tag = 'Cross-Currency Transfers';

export const quoteRoutes = [
  defineRoute({
    method: 'POST',
    path: '/quotes',
    operationId: 'createQuote',
    summary: 'Price a transfer from an internal account or real-time funding to an account or a UMA address',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    body: QuoteRequest,
    responses: {
      201: { description: 'The quote (its transaction is PENDING)', schema: Quote },
      ...errorResponses(400, 401, 403, 404, 409, 412, 413, 422, 424),
      ...ratesUnavailableResponse,
    },
    // The accounts and customers the quote names (and an Idempotency-Key's claim) ride on authentication;
    // then one batch writes the quote (executed, with immediatelyExecute) with its answer.
    idempotent: { scope: 'platform' },
    load: (p) => quoteRequestLoads(p.db, p.platformId, p.body),
    handler: (c) => createQuote(paymentDeps(c), c.auth.platform, c.body, c.loaded, c.settings, c.now),
  }),
  defineRoute({
    method: 'GET',
    path: '/quotes',
    operationId: 'listQuotes',
    summary: 'List quotes, newest first (filters: customer, sending and receiving account or UMA address, status, creation time)',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: QuoteListQuery,
    responses: {
      200: { description: 'A page of quotes, each as GET /quotes/{quoteId} shows it', schema: QuoteList },
      ...errorResponses(400, 401, 403),
    },
    load: ({ db, platformId, query, now }) => quoteListLoads(db, platformId, query, now),
    handler: (c) => json(quoteListFrom(c.query, c.loaded, c.now)),
  }),
  defineRoute({
    method: 'GET',
    path: '/quotes/:quoteId',
    operationId: 'getQuoteById',
    summary: 'Get a quote (its status follows its transaction)',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: QuoteIdParams,
    responses: { 200: { description: 'The quote', schema: Quote }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => quoteViewLoads(db, platformId, params.quoteId),
    handler: (c) => json(quoteViewFrom(c.loaded, c.now)),
  }),
  defineRoute({
    method: 'POST',
    path: '/quotes/:quoteId/execute',
    operationId: 'executeQuote',
    summary: 'Execute a quote paid from an internal account (an embedded wallet: signed retry)',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    params: QuoteIdParams,
    headers: SIGNATURE_HEADERS,
    responses: {
      200: { description: 'Executed: the payment started (see its transaction)', schema: Quote },
      202: {
        description: 'Embedded-wallet source: sign payloadToSign and retry (with the same Idempotency-Key, if one was sent)',
        schema: SignedRequestChallenge,
      },
      ...errorResponses(400, 401, 403, 404, 409, 422),
    },
    // The quote, its transaction and accounts (and an Idempotency-Key's claim) ride on authentication; then
    // one batch moves the money and records the answer. An embedded-wallet source first answers 202 with
    // the challenge, which is not stored, so the signed retry may reuse the key.
    idempotent: { scope: 'platform', replays: (status) => status !== 202 && status < 500 },
    load: (p) => quoteLoads(p.db, p.platformId, p.params.quoteId),
    handler: async (c) => {
      const { quote } = quoteFrom(c.loaded);
      const source = c.loaded.source[0];
      if (source?.type === 'EMBEDDED_WALLET') {
        const wallet = await walletByAccount(c.db, c.env.ACCOUNT, c.auth.platform.id, source.id);
        const result = await signedRetry(c, wallet, 'EXECUTE_QUOTE', async () => {
          const { quote: current, tx } = await loadQuote(c.db, c.auth.platform.id, quote.id);
          checkExecutable(current, tx, c.now, 'execute');
          return {
            activity: 'ACTIVITY_TYPE_SIGN_TRANSACTION',
            parameters: { quoteId: quote.id, totalSendingAmount: quote.totalSendingAmount, sendingCurrency: quote.sendingCurrency },
            effect: { kind: 'none' },
          };
        });
        if (result.status === 'challenge') return json(result.body, 202);
      }
      // After a signed retry (which took its time) the quote is read again.
      const loaded =
        source?.type === 'EMBEDDED_WALLET' ? await loadTogether(c.db, quoteLoads(c.db, sql`${c.auth.platform.id}`, quote.id)) : c.loaded;
      const change = await quotePaymentChange(paymentDeps(c), loaded, c.now, 'execute');
      return answering(change, 200, (row) => quoteView(quote, row.status));
    },
  }),
];
