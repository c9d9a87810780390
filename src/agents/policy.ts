import { ApiError } from '../http/errors';
import { convertAtMidMarketUp } from '../payments/rates';
import type { RateSource } from '../payments/rates-source';
import type { AgentRow } from '../db/schema';
import type { AgentPolicy } from './schema';
import type { Usage } from './service';

export type Decision = { mode: 'AUTO' | 'APPROVAL_REQUIRED'; policyAmount: number };

const refuse = (message: string) => new ApiError('FORBIDDEN', message);

/** The account rule that governs a request on `accountIds`: the first naming any of them. */
export const ruleFor = (policy: AgentPolicy, accountIds: readonly string[]) =>
  policy.accountRestrictions?.accountRules?.find((r) => accountIds.includes(r.accountId));

/**
 * The policy's verdict on a money-moving request (spec 2.6): refused (403, nothing happens) when the
 * account is not allowed or a limit would be passed; otherwise AUTO (execute now) or APPROVAL_REQUIRED.
 * Limits are at most (a request equal to a limit passes); a threshold forces approval only above it.
 * Amounts in another currency are converted at the mid-market rate of the moment, from the mode's rate
 * source (asked only when a conversion is needed), rounded up to the limit currency's smallest unit.
 */
export async function decide(
  agent: AgentRow,
  req: { amount: number; currency: string; accountIds: string[] },
  usage: Usage,
  now: number,
  rates: RateSource,
): Promise<Decision> {
  const policy: AgentPolicy = agent.policy;
  const limits = policy.spendingLimits;
  const allowed = policy.accountRestrictions?.allowedAccountIds;
  if (allowed) {
    const outside = req.accountIds.filter((id) => id.startsWith('InternalAccount:') && !allowed.includes(id));
    if (outside.length) throw refuse(`The agent's policy does not allow account ${outside[0]}`);
  }
  const rule = ruleFor(policy, req.accountIds);
  const inCurrency = async (to: string) =>
    to === req.currency ? req.amount : convertAtMidMarketUp(req.amount, req.currency, to, await rates(now));
  // Every action counts, at least one unit: tiny amounts never pass a limit as zeros.
  const policyAmount = Math.max(1, await inCurrency(limits.currency));
  const perTransaction = rule?.perTransactionLimit ?? limits.perTransactionLimit;
  if (policyAmount > perTransaction)
    throw refuse(`Amount ${policyAmount} ${limits.currency} is above the per-transaction limit of ${perTransaction}`);
  checkPeriodLimits(limits, usage, policyAmount);
  let mode = rule?.executionMode ?? policy.defaultExecutionMode;
  const threshold = policy.approvalThresholds;
  if (threshold?.amount != null && threshold.currency && (await inCurrency(threshold.currency)) > threshold.amount) {
    mode = 'APPROVAL_REQUIRED';
  }
  return { mode, policyAmount };
}

/** Daily and monthly amount and count limits against spend so far (approved and executed only). */
export function checkPeriodLimits(limits: AgentPolicy['spendingLimits'], usage: Usage, policyAmount: number) {
  if (limits.dailyLimit != null && usage.dailySpend + policyAmount > limits.dailyLimit) {
    throw refuse(`This would pass the daily limit of ${limits.dailyLimit} ${limits.currency} (spent today: ${usage.dailySpend})`);
  }
  if (limits.monthlyLimit != null && usage.monthlySpend + policyAmount > limits.monthlyLimit) {
    throw refuse(
      `This would pass the monthly limit of ${limits.monthlyLimit} ${limits.currency} (spent this month: ${usage.monthlySpend})`,
    );
  }
  if (limits.dailyTransactionLimit !== undefined && usage.dailyTransactionCount + 1 > limits.dailyTransactionLimit) {
    throw refuse(`This would pass the daily limit of ${limits.dailyTransactionLimit} transactions`);
  }
}
