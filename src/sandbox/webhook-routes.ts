// The sandbox webhook routes: the reference's TEST event path, and sending any event in a chaos mode.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { testWebhookRoute } from '../webhooks/routes';
import { webhookDeps } from '../webhooks/delivery';
import type { CatalogWebhook } from '../webhooks/schema';
import { MAX_DELAY_SECONDS, sendLoads, sendWebhook, WebhookSendRequest, WebhookSendResponse } from './webhook-send';

/** The routes; `webhooks` is the catalog /openapi.json documents, whose data schemas a send is checked against. */
export const sandboxWebhookRoutes = (webhooks: readonly CatalogWebhook[]) => [
  // The reference's path of the TEST event, the same operation as /webhooks/test.
  testWebhookRoute('/sandbox/webhooks/test', 'sendTestWebhook', 'Sandbox', ' (sandbox only)'),
  defineRoute({
    method: 'POST',
    path: '/sandbox/webhooks/send',
    operationId: 'sendSandboxWebhook',
    summary: `Send one event of any webhook type, signed, to the webhookEndpoint through the delivery queue: a resource's current view or the given data, NORMAL, twice with one event id (DUPLICATE), held back up to ${MAX_DELAY_SECONDS} s (DELAYED; a clock advance releases it), with a signature that does not verify (BAD_SIGNATURE), or a resource's earlier event after its latest (OUT_OF_ORDER) (sandbox only)`,
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'MANAGE',
    body: WebhookSendRequest,
    responses: {
      202: { description: 'The deliveries made (PENDING), as GET /webhooks/deliveries lists them', schema: WebhookSendResponse },
      ...errorResponses(400, 401, 403, 404, 413),
    },
    // The named resource is read with authentication.
    load: ({ db, platformId, body }) => sendLoads(db, platformId, body),
    handler: async (c) => {
      const p = c.auth.platform;
      const deps = webhookDeps(c.env, c.settings, c.log, c.db);
      return json(await sendWebhook(deps, webhooks, p.id, c.body, c.loaded, c.now, c.now - p.clockOffsetMs), 202);
    },
  }),
];
