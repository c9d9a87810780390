// The webhook routes: deliveries (list, read, resend) and the TEST event.
import { webhookDeps, type AnswerHandlers } from './delivery';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import {
  MAX_REPLAY,
  TestWebhookResponse,
  WebhookDelivery,
  WebhookDeliveryIdParams,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookReplayRequest,
  WebhookReplayResponse,
} from './schema';
import { deliveryFrom, deliveryList, deliveryLoads, sendTestWebhook } from './service';
import { resendDelivery, resendLoads } from './resend';
import { replayDeliveries } from './replay';

const tag = 'Webhooks';

/** The webhook routes; `answers` (what a decision event's answer means, mapped next to the queue consumer) come in for resends. */
export const webhookRoutes = (answers: AnswerHandlers) => [
  defineRoute({
    method: 'GET',
    path: '/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'List webhook deliveries (newest first) with attempts and the last response status',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: WebhookDeliveryListQuery,
    responses: { 200: { description: 'A page of deliveries', schema: WebhookDeliveryList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => deliveryList.loads(db, platformId, query),
    handler: (c) => json(deliveryList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/webhooks/deliveries/:deliveryId',
    operationId: 'getWebhookDelivery',
    summary: 'Get a webhook delivery',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: WebhookDeliveryIdParams,
    responses: { 200: { description: 'The delivery', schema: WebhookDelivery }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => deliveryLoads(db, platformId, params.deliveryId),
    handler: (c) => json(deliveryFrom(c.loaded)),
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/deliveries/:deliveryId/resend',
    operationId: 'resendWebhookDelivery',
    summary:
      'Send a delivery’s event again now (same event id and payload bytes, freshly signed) to the current webhookEndpoint and record the attempt',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: WebhookDeliveryIdParams,
    responses: {
      200: {
        description:
          'The delivery with this attempt recorded, whatever the endpoint answered (DELIVERED on a 2xx or 409, or an answer that decides an approval request; otherwise its status is kept)',
        schema: WebhookDelivery,
      },
      ...errorResponses(401, 403, 404),
      400: { ...errorResponses(400)[400]!, description: 'WEBHOOK_ENDPOINT_NOT_SET: no webhookEndpoint is configured' },
    },
    load: ({ db, platformId, params }) => resendLoads(db, platformId, params.deliveryId),
    handler: async (c) =>
      json(
        await resendDelivery({ ...webhookDeps(c.env, c.settings, c.log, c.db), answers }, c.loaded, c.auth.platform.webhookEndpoint, c.now),
      ),
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/deliveries/replay',
    operationId: 'replayWebhookDeliveries',
    summary: `Send the matching deliveries again (at most ${MAX_REPLAY}, oldest first), through the delivery queue: each becomes PENDING and due now, and is attempted with its same event id and payload bytes`,
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: WebhookReplayRequest,
    idempotent: { scope: 'platform' },
    responses: {
      202: { description: 'How many deliveries are re-sent, and their ids (oldest first)', schema: WebhookReplayResponse },
      ...errorResponses(400, 401, 403, 409, 422),
    },
    handler: async (c) => {
      const p = c.auth.platform;
      const deps = webhookDeps(c.env, c.settings, c.log, c.db);
      return json(await replayDeliveries(deps, p.id, c.body, c.now, c.now - p.clockOffsetMs), 202);
    },
  }),
  // The path the SDK posts to; it serves both modes, and in production the delivery follows the production
  // endpoint rules (https, public host). sandbox/ declares the reference's path with the same builder.
  testWebhookRoute('/webhooks/test', 'sendWebhookTest', tag, ''),
];

/** POST of a TEST event at `path` (`/webhooks/test`, and the reference's `/sandbox/webhooks/test` in sandbox/). */
export function testWebhookRoute(path: string, operationId: string, routeTag: string, scope: string) {
  return defineRoute({
    method: 'POST',
    path,
    operationId,
    summary: `Send a signed TEST event to the configured webhookEndpoint and report its answer${scope}`,
    tag: routeTag,
    auth: 'basic',
    permission: 'MANAGE',
    responses: {
      200: { description: 'Delivered (the endpoint answered 2xx or 409)', schema: TestWebhookResponse },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    handler: async (c) => {
      const p = c.auth.platform;
      const realNow = c.now - p.clockOffsetMs;
      return json(await sendTestWebhook(webhookDeps(c.env, c.settings, c.log, c.db), p.id, p.webhookEndpoint, c.now, realNow));
    },
  });
}
