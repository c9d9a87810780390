// The webhook schemas: event types, the envelope, deliveries and their list, the TEST answer.
import * as z from 'zod';
import { WebhookDeliveryStatus } from '../db/enums';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';
import type { WebhookDef } from '../http/openapi';

/** Every webhook event type, in OBJECT.EVENT dot notation (the reference's `webhooks:` section). */
export const WebhookType = z
  .enum([
    'OUTGOING_PAYMENT.PENDING',
    'OUTGOING_PAYMENT.PROCESSING',
    'OUTGOING_PAYMENT.COMPLETED',
    'OUTGOING_PAYMENT.FAILED',
    'OUTGOING_PAYMENT.EXPIRED',
    'OUTGOING_PAYMENT.REFUND_PENDING',
    'OUTGOING_PAYMENT.REFUND_COMPLETED',
    'OUTGOING_PAYMENT.REFUND_FAILED',
    'INCOMING_PAYMENT.PENDING',
    'INCOMING_PAYMENT.COMPLETED',
    'INCOMING_PAYMENT.FAILED',
    'CUSTOMER.KYC_APPROVED',
    'CUSTOMER.KYC_REJECTED',
    'CUSTOMER.KYC_PENDING',
    'CUSTOMER.KYB_APPROVED',
    'CUSTOMER.KYB_REJECTED',
    'CUSTOMER.KYB_PENDING',
    'VERIFICATION.APPROVED',
    'VERIFICATION.REJECTED',
    'VERIFICATION.RESOLVE_ERRORS',
    'VERIFICATION.IN_PROGRESS',
    'VERIFICATION.PENDING_MANUAL_REVIEW',
    'VERIFICATION.READY_FOR_VERIFICATION',
    'INTERNAL_ACCOUNT.BALANCE_UPDATED',
    'INTERNAL_ACCOUNT.STATUS_UPDATED',
    'INVITATION.CLAIMED',
    'BULK_UPLOAD.COMPLETED',
    'BULK_UPLOAD.FAILED',
    'AGENT_ACTION.PENDING_APPROVAL',
    'TEST',
  ])
  .meta({ id: 'WebhookType', description: 'Event type in OBJECT.EVENT dot notation' });
export type WebhookType = z.infer<typeof WebhookType>;

/**
 * How much of an endpoint's answer is read and echoed by `POST /webhooks/test` (and `/sandbox/webhooks/test`),
 * and kept as a delivery's `lastResponseBody`.
 */
export const ECHOED_BODY_BYTES = 1024;

/** How a delivery was made: NORMAL, or one of the sandbox's webhook chaos modes (POST /sandbox/webhooks/send). */
export const WebhookDeliveryMode = z.enum(['NORMAL', 'DUPLICATE', 'DELAYED', 'BAD_SIGNATURE', 'OUT_OF_ORDER']).meta({
  id: 'WebhookDeliveryMode',
  description:
    'NORMAL: every event of the platform; sandbox only: DUPLICATE (one of two deliveries of the same event id), DELAYED (held back delaySeconds), BAD_SIGNATURE (its X-Service-Signature does not verify under webhookPublicKey; attempted once, never retried), OUT_OF_ORDER (an earlier event of a resource sent again after its latest)',
});
export type WebhookDeliveryMode = z.infer<typeof WebhookDeliveryMode>;

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ example: 'WebhookDelivery:019542f5-b3e7-1d02-0000-000000000001' }),
    eventId: z.string().meta({ example: 'Webhook:019542f5-b3e7-1d02-0000-000000000007' }),
    eventType: WebhookType,
    status: WebhookDeliveryStatus,
    mode: WebhookDeliveryMode,
    attempts: z.int().min(0),
    url: z.string().optional().meta({ description: 'Endpoint of the last attempt' }),
    lastResponseStatus: z.int().optional().meta({ description: 'HTTP status of the last attempt; absent when it got no response' }),
    lastError: z.string().optional(),
    lastAttemptAt: DateTime.optional(),
    nextAttemptAt: DateTime.optional().meta({ description: 'When the next attempt is due (PENDING only)' }),
    deliveredAt: DateTime.optional(),
    createdAt: DateTime,
    updatedAt: DateTime,
    payload: z.string().optional().meta({
      description:
        'The exact JSON body POSTed by the last attempt (a `WebhookEnvelope`); every attempt and resend of the event sends these same bytes. Absent before the first attempt',
    }),
    signature: z.string().optional().meta({
      description:
        'The `X-Service-Signature` sent with the last attempt: base64 DER ECDSA P-256 over SHA-256 of `payload` as UTF-8, verifiable with `webhookPublicKey` of GET /config. Absent when the last attempt sent nothing (endpoint refused)',
    }),
    lastResponseBody: z
      .string()
      .optional()
      .meta({
        description: `The endpoint's answer to the last attempt as text (at most its first ${ECHOED_BODY_BYTES} bytes); absent without an answer`,
      }),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryList = pageOf(WebhookDelivery, 'WebhookDeliveryListResponse');

export const WebhookDeliveryListQuery = z.object({
  eventType: WebhookType.optional(),
  status: WebhookDeliveryStatus.optional(),
  eventId: z.string().max(100).optional(),
  limit: limitParam,
  cursor: cursorParam,
});

export const WebhookDeliveryIdParams = z.object({ deliveryId: z.string() });

/** `POST /webhooks/test` (and `/sandbox/webhooks/test`) result (reference `TestWebhookResponse`). */
export const TestWebhookResponse = z
  .object({
    url: z.string().meta({ description: 'URL where the webhook was sent' }),
    response_status: z.int().meta({ description: 'HTTP status returned by the endpoint' }),
    response_body: z
      .string()
      .optional()
      .meta({ description: `Body returned by the endpoint (its first ${ECHOED_BODY_BYTES} bytes)` }),
    eventId: z.string().meta({ description: 'Id of the TEST event, as listed in GET /webhooks/deliveries' }),
  })
  .meta({ id: 'TestWebhookResponse' });

/** At most this many deliveries are re-sent by one `POST /webhooks/deliveries/replay`. */
export const MAX_REPLAY = 1_000;

export const WebhookReplayRequest = z
  .object({
    type: WebhookType.optional().meta({ description: 'Only deliveries of this event type' }),
    status: WebhookDeliveryStatus.optional().meta({ description: 'Only deliveries in this status' }),
    createdAfter: DateTime.optional().meta({ description: 'Only deliveries created at or after this time' }),
    createdBefore: DateTime.optional().meta({ description: 'Only deliveries created before this time' }),
  })
  .meta({ id: 'WebhookReplayRequest' });
export type WebhookReplayRequest = z.infer<typeof WebhookReplayRequest>;

export const WebhookReplayResponse = z
  .object({
    count: z.int().min(0).max(MAX_REPLAY).meta({ description: 'How many deliveries are re-sent' }),
    deliveryIds: z.array(z.string()).meta({ description: 'The re-sent deliveries, oldest first' }),
  })
  .meta({ id: 'WebhookReplayResponse' });

/** The kinds of resource an event's data can be a view of, by the prefix of their ids. */
export type ResourceKind = 'Transaction' | 'AgentAction' | 'Job' | 'Customer' | 'InternalAccount' | 'Verification';

/** A webhook /openapi.json documents, and the resource its data shows (none for TEST). */
export interface CatalogWebhook extends WebhookDef {
  resource?: ResourceKind;
}
