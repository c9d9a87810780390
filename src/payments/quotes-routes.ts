import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { sql } from 'drizzle-orm';
import { IDEMPOTENCY_HEADER, idempotencyHeaderDoc, isClaimLoaded, loadClaim, withIdempotency, type Claim } from '../http/idempotency';
import { SIGNATURE_HEADERS, SignedRequestChallenge } from '../wallet/schema';
import { walletByAccount } from '../wallet/service';
import { signedRetry } from '../wallet/signed-retry';
import { Quote, QuoteIdParams, QuoteList, QuoteListQuery, QuoteRequest } from './schema';
import { ratesUnavailableResponse } from './rates-schema';
import {
  checkExecutable,
  executeQuote,
  loadQuote,
  quoteFrom,
  quoteListFrom,
  quoteListLoads,
  quoteLoads,
  quoteViewFrom,
  quoteViewLoads,
  startQuotePayment,
  type QuoteLoaded,
} from './quotes-service';
import { quoteView } from './views';
import { createQuote, quoteRequestLoads, type QuoteRequestLoaded } from './quote-create';
import type { QuoteView } from './schema';
import type { Statement } from '../db/client';
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
    headers: idempotencyHeaderDoc,
    responses: {
      201: { description: 'The quote (its transaction is PENDING)', schema: Quote },
      ...errorResponses(400, 401, 403, 404, 409, 413, 422),
      ...ratesUnavailableResponse,
    },
    // The accounts and customers the quote names (and an Idempotency-Key's claim) ride on authentication;
    // then one batch writes the quote with its answer.
    load: (p) => loadClaim(p.db, p, 'platform', p.platformId, quoteRequestLoads(p.db, p.platformId, p.body)),
    handler: async (c) => {
      const create = (loaded: QuoteRequestLoaded, answer?: (view: QuoteView) => Statement[]) =>
        createQuote(paymentDeps(c), c.auth.platform, c.body, loaded, c.settings, c.now, answer);
      if (!c.request.headers.has(IDEMPOTENCY_HEADER)) return json(await create(c.loaded), 201);
      return withIdempotency(
        c,
        'platform',
        async (claim) => {
          let body: string | undefined;
          const view = await create(claim.reads, (v) => [claim.record(201, (body = JSON.stringify(v)))]);
          // With immediatelyExecute the answer is the executed quote, recorded after it.
          return body === undefined ? json(view, 201) : claim.recorded(201, body);
        },
        { reads: quoteRequestLoads(c.db, sql`${c.auth.platform.id}`, c.body), loaded: isClaimLoaded(c.loaded) ? c.loaded : undefined },
      );
    },
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
    headers: { ...idempotencyHeaderDoc, ...SIGNATURE_HEADERS },
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
    load: (p) => loadClaim(p.db, p, 'platform', p.platformId, quoteLoads(p.db, p.platformId, p.params.quoteId)),
    handler: async (c) => {
      const execute = async (loaded: QuoteLoaded, claim?: Claim) => {
        const { quote } = quoteFrom(loaded);
        const source = loaded.source[0];
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
          return json(await executeQuote(paymentDeps(c), c.auth.platform.id, quote.id, c.now));
        }
        let body = '';
        const started = await startQuotePayment(paymentDeps(c), loaded, c.now, 'execute', (row) => ({
          after: claim ? [claim.record(200, (body = JSON.stringify(quoteView(quote, row.status))))] : [],
        }));
        return claim ? claim.recorded(200, body) : json(started.view);
      };
      if (!c.request.headers.has(IDEMPOTENCY_HEADER)) return execute(c.loaded);
      return withIdempotency(c, 'platform', (claim) => execute(claim.reads, claim), {
        reads: quoteLoads(c.db, sql`${c.auth.platform.id}`, c.params.quoteId),
        loaded: isClaimLoaded(c.loaded) ? c.loaded : undefined,
        store: (s) => s !== 202 && s < 500,
      });
    },
  }),
];
