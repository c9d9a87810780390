import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { idempotencyHeaderDoc, withOptionalIdempotency } from '../http/idempotency';
import { SIGNATURE_HEADERS, SignedRequestChallenge } from '../wallet/schema';
import { walletByAccount } from '../wallet/service';
import { signedRetry } from '../wallet/signed-retry';
import { loadInternalAccount } from '../accounts/internal-service';
import { Quote, QuoteIdParams, QuoteList, QuoteListQuery, QuoteRequest } from './schema';
import { ratesUnavailableResponse } from './rates-schema';
import { checkExecutable, executeQuote, getQuote, listQuotes, loadQuote } from './quotes-service';
import { createQuote } from './quote-create';
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
    handler: async (c) => {
      const create = async () => json(await createQuote(paymentDeps(c), c.auth.platform, c.body, c.settings, c.now), 201);
      return withOptionalIdempotency(c, 'platform', create);
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
    handler: async (c) => json(await listQuotes(c.db, c.auth.platform.id, c.query, c.now)),
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
    handler: async (c) => json(await getQuote(c.db, c.auth.platform.id, c.params.quoteId, c.now)),
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
    handler: async (c) => {
      const platformId = c.auth.platform.id;
      const { quote } = await loadQuote(c.db, platformId, c.params.quoteId);
      const source = quote.sourceAccountId ? await loadInternalAccount(c.db, platformId, quote.sourceAccountId) : null;
      const execute = async () => json(await executeQuote(paymentDeps(c), platformId, quote.id, c.now));
      if (source?.type !== 'EMBEDDED_WALLET') return withOptionalIdempotency(c, 'platform', execute);
      // Embedded wallet: the 202 challenge is not stored, so the signed retry may reuse the key.
      return withOptionalIdempotency(
        c,
        'platform',
        async () => {
          const wallet = await walletByAccount(c.db, c.env.ACCOUNT, platformId, source.id);
          const result = await signedRetry(c, wallet, 'EXECUTE_QUOTE', async () => {
            const { quote: current, tx } = await loadQuote(c.db, platformId, quote.id);
            checkExecutable(current, tx, c.now, 'execute');
            return {
              activity: 'ACTIVITY_TYPE_SIGN_TRANSACTION',
              parameters: { quoteId: quote.id, totalSendingAmount: quote.totalSendingAmount, sendingCurrency: quote.sendingCurrency },
              effect: { kind: 'none' },
            };
          });
          return result.status === 'challenge' ? json(result.body, 202) : execute();
        },
        { store: (s) => s !== 202 && s < 500 },
      );
    },
  }),
];
