// The webhook catalog: each webhook /openapi.json documents (the reference's names), its event types, its data
// schema and the resource it shows. The router composes it into the document and hands it to the sandbox, which
// sends any of them on demand.
import * as z from 'zod';
import { WebhookType, type CatalogWebhook } from './webhooks/schema';
import { IncomingPaymentWebhookData, OutgoingTransaction } from './payments/schema';
import { AgentAction } from './agents/schema';
import { BulkCustomerImportJob } from './customers/bulk-schema';
import { Customer } from './customers/schema';
import { InternalAccount } from './accounts/internal-schema';
import { Verification } from './kyc/schema';
import { UmaInvitation } from './invitations/schema';

/** The event types of one object (`INCOMING_PAYMENT.` → INCOMING_PAYMENT.PENDING, …). */
function typesOf(prefix: string): [string, ...string[]] {
  return WebhookType.options.filter((t) => t.startsWith(prefix)) as [string, ...string[]];
}

/**
 * The webhooks /openapi.json documents, named as the reference names them (its `webhooks:` section); the
 * sandbox's POST /sandbox/webhooks/send checks a given `data` against the same schemas.
 */
export const WEBHOOKS: CatalogWebhook[] = [
  {
    name: 'incoming-payment',
    operationId: 'incomingPaymentWebhook',
    summary: 'Incoming payment; PENDING with pendingPlatformApproval asks for approval',
    types: typesOf('INCOMING_PAYMENT.'),
    data: IncomingPaymentWebhookData,
    resource: 'Transaction',
  },
  {
    name: 'outgoing-payment',
    operationId: 'outgoingPaymentWebhook',
    summary: 'Outgoing payment status change',
    types: typesOf('OUTGOING_PAYMENT.'),
    data: OutgoingTransaction,
    resource: 'Transaction',
  },
  {
    name: 'agent-action',
    operationId: 'agentActionWebhook',
    summary: 'An agent action awaits approval',
    types: typesOf('AGENT_ACTION.'),
    data: AgentAction,
    resource: 'AgentAction',
  },
  { name: 'test-webhook', operationId: 'testWebhook', summary: 'Endpoint check', types: typesOf('TEST'), data: z.object({}) },
  {
    name: 'bulk-upload',
    operationId: 'bulkUploadWebhook',
    summary: 'A bulk customer import ended',
    types: typesOf('BULK_UPLOAD.'),
    data: BulkCustomerImportJob,
    resource: 'Job',
  },
  {
    name: 'customer-update',
    operationId: 'customerStatusWebhook',
    summary: 'A customer KYC/KYB status change',
    types: typesOf('CUSTOMER.'),
    data: Customer,
    resource: 'Customer',
  },
  {
    name: 'internal-account-status',
    operationId: 'internalAccountStatusWebhook',
    summary: 'An internal account status or balance change',
    types: typesOf('INTERNAL_ACCOUNT.'),
    data: InternalAccount,
    resource: 'InternalAccount',
  },
  {
    name: 'verification-update',
    operationId: 'verificationStatusWebhook',
    summary: 'A verification status change',
    types: typesOf('VERIFICATION.'),
    data: Verification,
    resource: 'Verification',
  },
  // An invitation is known by its code, not an id: it is sent with `data` (POST /sandbox/webhooks/send).
  {
    name: 'invitation-claimed',
    operationId: 'invitationClaimedWebhook',
    summary: "An invitation of the platform's was claimed",
    types: typesOf('INVITATION.'),
    data: UmaInvitation,
  },
];
