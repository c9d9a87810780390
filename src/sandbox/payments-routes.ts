// The sandbox payment routes: pay a quote's instructions, receive a UMA payment.
import { defineRoute } from '../http/route';
import { answering } from '../http/change';
import { errorResponses } from '../http/responses';
import { IncomingTransaction, OutgoingTransaction } from '../payments/schema';
import { paymentDeps } from '../payments/transaction-change';
import { quoteLoads } from '../payments/quotes-service';
import { transactionView } from '../payments/views';
import { SandboxSendRequest, SandboxUmaReceiveRequest } from './payments-schema';
import { receiverLoads, sandboxReceiveUma, sandboxSend } from './payments-service';

const tag = 'Sandbox';

export const sandboxPaymentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/sandbox/send',
    operationId: 'sandboxSend',
    summary: "Sandbox: pay a real-time-funded quote's paymentInstructions; the payment starts",
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    body: SandboxSendRequest,
    responses: {
      200: { description: 'The quote’s transaction, funded', schema: OutgoingTransaction },
      ...errorResponses(400, 401, 403, 404, 409, 413),
    },
    // The quote, its transaction and accounts ride on authentication; then the runner commits the money batch.
    load: ({ db, platformId, body }) => quoteLoads(db, platformId, body.quoteId),
    handler: async (c) => answering(await sandboxSend(paymentDeps(c), c.loaded, c.body, c.now), 200, transactionView),
  }),
  defineRoute({
    method: 'POST',
    path: '/sandbox/uma/receive',
    operationId: 'sandboxReceive',
    summary: "Sandbox: an incoming UMA payment to one of the platform's customers",
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    body: SandboxUmaReceiveRequest,
    responses: {
      200: {
        description:
          'The incoming transaction, PENDING: with a webhookEndpoint it awaits the platform’s answer to INCOMING_PAYMENT.PENDING; without one it completes a few seconds later',
        schema: IncomingTransaction,
      },
      ...errorResponses(400, 401, 403, 404, 413),
    },
    load: ({ db, platformId, body }) => receiverLoads(db, platformId, body),
    handler: async (c) =>
      answering(await sandboxReceiveUma(paymentDeps(c), c.auth.platform, c.body, c.loaded, c.now), 200, transactionView),
  }),
];
