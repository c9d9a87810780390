import type { Approval, PlatformRow, TransactionRow } from '../db/schema';
import { conflict, invalidFields, retryableConflict } from '../http/errors';
import { loadInternalAccount } from '../accounts/internal-service';
import { checkExecutable, expireQuote, loadQuote } from './quotes-service';
import { buildChange, commitChange, initiation, type Hop, type PaymentDeps } from './transaction-change';
import { loadTransaction } from './transactions-service';
import { createPendingTransfer, transferPair } from './transfers-service';
import { awaitingApproval } from './views';
import { decisionChange, lateDecision, missingReceiverFields, type Decision } from './incoming-approval';

/** What an agent (or any caller needing the platform's approval) asks to do. */
export type ApprovalRequest =
  | { type: 'EXECUTE_QUOTE'; quoteId: string; agentId?: string }
  | { type: 'TRANSFER_OUT' | 'TRANSFER_IN'; sourceAccountId: string; destinationAccountId: string; amount: number; agentId?: string };

const notAwaiting = () => conflict('The transaction is not awaiting platform approval', 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');

/**
 * An incoming payment's decision through the API (after the platform answered its approval request 202, or
 * before answering at all). Once its window has closed the payment fails as the deadline would have failed
 * it, and the late decision is 409.
 */
async function decideIncoming(deps: PaymentDeps, tx: TransactionRow, decision: Decision, now: number): Promise<TransactionRow> {
  const late = lateDecision(tx, now);
  const change = await decisionChange(deps.db, tx, late ?? decision, now, deps.mode);
  const result = await commitChange(deps, change);
  if (late || result !== 'applied')
    throw conflict(
      late ? 'The approval window has closed; the payment failed' : 'The transaction is not awaiting platform approval',
      'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL',
    );
  return change.row;
}

/**
 * Records an action that needs the platform's approval and returns its transaction, PENDING and marked
 * awaiting approval (`pendingPlatformApproval: true`); nothing moves until POST
 * /transactions/{transactionId}/approve, and POST .../reject cancels it. EXECUTE_QUOTE marks the quote's
 * own transaction (the quote must be executable now and not paid from an embedded wallet, whose money
 * moves only under a session signature); transfers are validated now and created PENDING.
 * `agentId` is shown on the transaction. Announced with an OUTGOING_PAYMENT.PENDING / INCOMING_PAYMENT.PENDING event.
 */
export async function requestPlatformApproval(
  deps: PaymentDeps,
  platform: PlatformRow,
  request: ApprovalRequest,
  now: number,
): Promise<TransactionRow> {
  if (request.type !== 'EXECUTE_QUOTE') {
    const { type, agentId, ...input } = request;
    return createPendingTransfer(deps, platform, type === 'TRANSFER_OUT' ? 'OUT' : 'IN', input, now, { agentId });
  }
  const { quote, tx } = await loadQuote(deps.db, platform.id, request.quoteId);
  checkExecutable(quote, tx, now, 'execute');
  if (quote.sourceAccountId) {
    const source = await loadInternalAccount(deps.db, platform.id, quote.sourceAccountId);
    if (source.type === 'EMBEDDED_WALLET') {
      throw invalidFields('request body', [
        { field: 'quoteId', message: 'Quotes paid from an EMBEDDED_WALLET are executed with a signed retry, not by platform approval' },
      ]);
    }
  }
  const approval: Approval = { action: { type: 'EXECUTE_QUOTE', quoteId: quote.id }, state: 'PENDING_APPROVAL', requestedAt: now };
  const change = await buildChange(deps.db, tx, [{ status: 'PENDING', set: { approval, agentId: request.agentId ?? tx.agentId } }], {
    now,
    mode: deps.mode,
  });
  if ((await commitChange(deps, change)) !== 'applied')
    throw retryableConflict('The quote changed concurrently; retry', 'QUOTE_NOT_PENDING');
  return change.row;
}

/**
 * POST /transactions/{id}/approve: performs the deferred action now, re-checking what may have changed
 * since it was requested. An incoming payment is credited (`receiverCustomerInfo` must hold the mandatory
 * fields the sender requested: 400 otherwise). The approval itself always succeeds; the execution may not: an expired quote
 * ends EXPIRED (QUOTE_EXPIRED), a shortfall ends FAILED (QUOTE_EXECUTION_FAILED for quotes,
 * OFFRAMP_FAILED for transfers out). Anything not awaiting approval is 409.
 */
export async function approveTransaction(
  deps: PaymentDeps,
  platform: PlatformRow,
  transactionId: string,
  now: number,
  receiverCustomerInfo?: Record<string, unknown>,
): Promise<TransactionRow> {
  const tx = await loadTransaction(deps.db, platform.id, transactionId);
  if (!awaitingApproval(tx)) throw notAwaiting();
  const action = tx.approval!.action;
  if (action.type === 'INCOMING_PAYMENT') {
    const missing = missingReceiverFields(tx.approval!, receiverCustomerInfo);
    if (missing.length)
      throw invalidFields(
        'request body',
        missing.map((f) => ({
          field: `receiverCustomerInfo.${f}`,
          message: 'Requested by the sender (requestedReceiverCustomerInfoFields)',
        })),
      );
    return decideIncoming(deps, tx, { approve: true, ...(receiverCustomerInfo ? { receiverCustomerInfo } : {}) }, now);
  }
  const approval: Approval = { ...tx.approval!, state: 'APPROVED', decidedAt: now };
  let start: { hops: Hop[]; transitions: Parameters<typeof buildChange>[3]['transitions'] };
  let failed: Hop;
  if (action.type === 'EXECUTE_QUOTE') {
    const { quote } = await loadQuote(deps.db, platform.id, action.quoteId);
    if (now >= quote.expiresAt) {
      const expired = await expireQuote(deps, tx, now, { approval });
      if (!expired) throw notAwaiting();
      return expired;
    }
    start = initiation(deps.db, tx, now, deps.mode, { approval });
    failed = { status: 'FAILED', set: { approval, failureReason: 'QUOTE_EXECUTION_FAILED' } };
  } else {
    // The accounts may have been closed or deleted meanwhile: that fails the approved transfer.
    const stillValid = await transferPair(deps.db, platform, action.type === 'TRANSFER_OUT' ? 'OUT' : 'IN', action).then(
      () => true,
      () => false,
    );
    const reason = action.type === 'TRANSFER_OUT' ? 'OFFRAMP_FAILED' : 'PAY_REQUEST_FAILED';
    failed = { status: 'FAILED', set: { approval, failureReason: reason } };
    start = stillValid ? initiation(deps.db, tx, now, deps.mode, { approval }) : { hops: [failed], transitions: [] };
  }
  const change = await buildChange(deps.db, tx, start.hops, { now, mode: deps.mode, transitions: start.transitions });
  const result = await commitChange(deps, change);
  if (result === 'applied') return change.row;
  if (result === 'conflict') throw notAwaiting();
  // Not enough money any more: the approved execution fails, nothing moves.
  const failure = await buildChange(deps.db, tx, [failed], { now, mode: deps.mode });
  if ((await commitChange(deps, failure)) !== 'applied') throw notAwaiting();
  return failure.row;
}

/** POST /transactions/{id}/reject: cancels the deferred action; nothing moves. The transaction ends REJECTED. */
export async function rejectTransaction(
  deps: PaymentDeps,
  platform: PlatformRow,
  transactionId: string,
  reason: string | undefined,
  now: number,
) {
  const tx = await loadTransaction(deps.db, platform.id, transactionId);
  if (!awaitingApproval(tx)) throw notAwaiting();
  if (tx.approval!.action.type === 'INCOMING_PAYMENT')
    return decideIncoming(deps, tx, { approve: false, ...(reason ? { reason } : {}) }, now);
  const approval: Approval = { ...tx.approval!, state: 'REJECTED', decidedAt: now, ...(reason ? { reason } : {}) };
  const change = await buildChange(deps.db, tx, [{ status: 'REJECTED', set: { approval } }], { now, mode: deps.mode });
  if ((await commitChange(deps, change)) !== 'applied') throw notAwaiting();
  return change.row;
}
