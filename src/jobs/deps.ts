// The explicit maps of transition and answer handlers, and the Deps of background work.
import type { Env, Settings } from '../env';
import { database, type Db } from '../db/client';
import type { Logger } from '../http/log';
import type { TransitionDeps, TransitionHandlers } from '../transitions/schedule';
import { webhookDeps, type AnswerHandlers, type WebhookDeps } from '../webhooks/delivery';
import { paymentTransitions } from '../payments/transitions';
import { incomingApprovalTransitions, incomingPaymentAnswer } from '../payments/incoming-approval';
import { railDelivery } from '../payments/operator-rail';
import { identityDelivery } from '../kyc/identity-provider';

/** Every transition kind and its handler; each kind is named once, by the area that schedules it (exported so
 * the scheduler's own tests can add test-only kinds that the real consumer then applies). */
export const transitions: TransitionHandlers = { ...paymentTransitions, ...incomingApprovalTransitions };

/** Event types whose answer is a decision (also applied by a resend, which the router gives them to). */
export const answers: AnswerHandlers = { 'INCOMING_PAYMENT.PENDING': incomingPaymentAnswer };

/** What background work needs (queue consumer, cron sweep, and the sandbox clock that runs it early). */
export type JobDeps = WebhookDeps & TransitionDeps;

export function jobDeps(env: Env, s: Settings, log: Logger, db: Db = database(env.DB)): JobDeps {
  // The providers' instructions go out through this deployment's configuration (its bindings, URLs, secrets).
  const providers = { ...railDelivery(env, s, log), ...identityDelivery(env, s, log) };
  return { ...webhookDeps(env, s, log, db), transitions: { ...transitions, ...providers }, answers };
}
