// POST /sandbox/webhooks/send: one event of any webhook type, from a resource's current view or given data, in a chaos mode.
import { and, eq, type SQL } from 'drizzle-orm';
import * as z from 'zod';
import type { Db, Loaded } from '../db/client';
import { agentActions, internalAccounts } from '../db/schema';
import type { ServiceMode } from '../env';
import { invalidFields, notFound, zodIssues } from '../http/errors';
import { WebhookDelivery, WebhookDeliveryMode, WebhookType, type CatalogWebhook, type ResourceKind } from '../webhooks/schema';
import { sendChaos, type ChaosSend } from '../webhooks/chaos';
import { deliveryView } from '../webhooks/service';
import type { WebhookDeps } from '../webhooks/delivery';
import { transactionLoads } from '../payments/transactions-service';
import { transactionView } from '../payments/views';
import { customerLoads, customerView } from '../customers/service';
import { bulkJobFrom, bulkJobLoads } from '../customers/bulk-service';
import { verificationLoads } from '../kyc/verifications-service';
import { verificationView } from '../kyc/views';
import { internalAccountView } from '../accounts/internal-service';
import { actionView } from '../agents/action-views';

/** The longest DELAYED hold. */
export const MAX_DELAY_SECONDS = 3_600;

export const WebhookSendRequest = z
  .object({
    type: WebhookType,
    resourceId: z.string().max(100).optional().meta({
      description:
        'Send the current view of this resource (a Transaction, Customer, InternalAccount, Verification, AgentAction or bulk import Job of the platform)',
    }),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "Send this payload as the event's data instead; it must fit the type's schema" }),
    mode: WebhookDeliveryMode.optional().meta({ description: 'Default NORMAL' }),
    delaySeconds: z.int().min(1).max(MAX_DELAY_SECONDS).optional().meta({ description: 'DELAYED only (required there)' }),
  })
  .meta({ id: 'WebhookSendRequest' });
export type WebhookSendRequest = z.infer<typeof WebhookSendRequest>;

export const WebhookSendResponse = z
  .object({ deliveries: z.array(WebhookDelivery).meta({ description: 'The deliveries made, in the order they go out' }) })
  .meta({ id: 'WebhookSendResponse' });

/** The resource kind an id names, by its prefix. */
function kindOf(resourceId: string | undefined): ResourceKind | undefined {
  const prefix = resourceId?.split(':')[0];
  const kinds: ResourceKind[] = ['Transaction', 'AgentAction', 'Job', 'Customer', 'InternalAccount', 'Verification'];
  return kinds.find((k) => k === prefix);
}

/**
 * The resource a send names, as loads of the authentication batch (`platformId` SQL: see `RouteSpec.load`):
 * only the lookup of its kind is given the id, the others find nothing. Another platform's resource is not found.
 */
export function sendLoads(db: Db, platformId: SQL, body: WebhookSendRequest) {
  const kind = kindOf(body.resourceId);
  const idIf = (k: ResourceKind) => (kind === k ? body.resourceId! : '');
  return {
    ...transactionLoads(db, platformId, idIf('Transaction')),
    ...customerLoads(db, platformId, idIf('Customer')),
    ...verificationLoads(db, platformId, idIf('Verification')),
    ...bulkJobLoads(db, platformId, idIf('Job')),
    internalAccount: db
      .select()
      .from(internalAccounts)
      .where(and(eq(internalAccounts.id, idIf('InternalAccount')), eq(internalAccounts.platformId, platformId)))
      .limit(1),
    action: db
      .select()
      .from(agentActions)
      .where(and(eq(agentActions.id, idIf('AgentAction')), eq(agentActions.platformId, platformId)))
      .limit(1),
  };
}

type SendLoaded = Loaded<ReturnType<typeof sendLoads>>;

const refuse = (field: string, message: string) => invalidFields('request body', [{ field, message }]);

/** The resource's current view, as its GET shows it; undefined when the platform has no such resource. */
async function currentView(
  db: Db,
  kind: ResourceKind,
  loaded: SendLoaded,
  mode: ServiceMode,
): Promise<Record<string, unknown> | undefined> {
  switch (kind) {
    case 'Transaction':
      return loaded.transaction[0] && transactionView(loaded.transaction[0]);
    case 'Customer':
      return loaded.customer[0] && customerView(loaded.customer[0], loaded.owners);
    case 'Verification':
      return loaded.verification[0] && verificationView(loaded.verification[0]);
    case 'Job':
      return loaded.job[0] && bulkJobFrom(loaded);
    case 'InternalAccount':
      return loaded.internalAccount[0] && internalAccountView(loaded.internalAccount[0], mode);
    case 'AgentAction':
      return loaded.action[0] && (await actionView(db, loaded.action[0]));
  }
}

/**
 * Checks a send and makes it: the event's data is the named resource's current view, or the given `data`
 * checked against the type's schema (400 naming the field); then the chaos records and queues the deliveries.
 */
export async function sendWebhook(
  deps: WebhookDeps,
  webhooks: readonly CatalogWebhook[],
  platformId: string,
  body: WebhookSendRequest,
  loaded: SendLoaded,
  now: number,
  realNow: number,
): Promise<z.infer<typeof WebhookSendResponse>> {
  const mode = body.mode ?? 'NORMAL';
  if ((body.resourceId === undefined) === (body.data === undefined)) {
    throw refuse(body.data === undefined ? 'resourceId' : 'data', 'Give exactly one of resourceId and data');
  }
  if (mode === 'DELAYED' && body.delaySeconds === undefined) throw refuse('delaySeconds', 'Required with mode DELAYED');
  if (mode !== 'DELAYED' && body.delaySeconds !== undefined) throw refuse('delaySeconds', 'Only with mode DELAYED');
  if (mode === 'OUT_OF_ORDER' && body.resourceId === undefined) throw refuse('resourceId', 'Required with mode OUT_OF_ORDER');
  // Undefined for a type no webhook documents (INVITATION.CLAIMED).
  const webhook = webhooks.find((w) => w.types.includes(body.type));

  let data: Record<string, unknown>;
  if (body.resourceId !== undefined) {
    const kind = kindOf(body.resourceId);
    if (!webhook?.resource || kind !== webhook.resource) {
      const expected = webhook?.resource ? `a ${webhook.resource} id` : `no resource (send data for ${body.type})`;
      throw refuse('resourceId', `${body.type} takes ${expected}`);
    }
    const view = await currentView(deps.db, kind, loaded, deps.mode);
    if (!view) throw notFound('REFERENCE_NOT_FOUND', `${kind} not found`);
    data = view;
  } else {
    const parsed = (webhook?.data ?? z.record(z.string(), z.unknown())).safeParse(body.data);
    if (!parsed.success) throw invalidFields('request body', zodIssues(parsed.error, 'data'));
    // The bytes the platform gets are the data as given (the schema only checked them).
    data = body.data!;
  }

  const send: ChaosSend =
    mode === 'OUT_OF_ORDER'
      ? { mode, type: body.type, resourceId: body.resourceId! }
      : mode === 'DELAYED'
        ? { mode, type: body.type, data, delaySeconds: body.delaySeconds! }
        : { mode, type: body.type, data };
  const rows = await sendChaos(deps, platformId, send, now, realNow);
  return { deliveries: rows.map(deliveryView) };
}
