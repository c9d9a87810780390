// An agent's policy applied to a money request: allowed accounts, per-transaction and period limits, AUTO or approval.
import { ApiError } from '../http/errors';
import { convertAtMidMarketUp } from '../payments/rates';
import type { RateSource } from '../payments/rates-source';
import type { AgentRow } from '../db/schema';
import { isInternalAccountId } from '../crypto/ids';
import type { AgentPolicy } from './schema';
import type { Usage } from './service';

export type Decision = { mode: 'AUTO' | 'APPROVAL_REQUIRED'; policyAmount: number };

const refuse = (message: string) => new ApiError('FORBIDDEN', message);

/** The account rule that governs a request on `accountIds`: the first naming any of them. */
export const ruleFor = (policy: AgentPolicy, accountIds: readonly string[]) =>
  policy.accountRestrictions?.accountRules?.find((r) => accountIds.includes(r.accountId));

/**
 * The policy's verdict on a money-moving request: refused (403, nothing happens) when the
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
  requireAllowed(policy, req.accountIds.filter(isInternalAccountId));
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

/** 403 unless the policy's allowed accounts (when it names any) include every one of `accountIds`. */
export function requireAllowed(policy: AgentPolicy, accountIds: readonly string[]) {
  const allowed = policy.accountRestrictions?.allowedAccountIds;
  const outside = allowed && accountIds.find((id) => !allowed.includes(id));
  if (outside) throw refuse(`The agent's policy does not allow account ${outside}`);
}

/** One period limit: the usage it bounds, the limit, what a request adds, and how a refusal reads. */
export interface PeriodLimit {
  /** Names the guard that holds it in SQL (see actions-service). */
  name: string;
  usage: keyof Usage;
  limit: number;
  adds: number;
  refusal: (spent?: number) => ApiError;
}

/** The daily and monthly amount and count limits a request of `policyAmount` must stay within (spend so far + it ≤ limit). */
export function periodLimits(limits: AgentPolicy['spendingLimits'], policyAmount: number): PeriodLimit[] {
  const out: PeriodLimit[] = [];
  const spent = (label: string, n?: number) => (n === undefined ? '' : ` (spent ${label}: ${n})`);
  if (limits.dailyLimit != null) {
    const limit = limits.dailyLimit;
    out.push({
      name: 'AGENT_DAILY_LIMIT',
      usage: 'dailySpend',
      limit,
      adds: policyAmount,
      refusal: (n) => refuse(`This would pass the daily limit of ${limit} ${limits.currency}${spent('today', n)}`),
    });
  }
  if (limits.monthlyLimit != null) {
    const limit = limits.monthlyLimit;
    out.push({
      name: 'AGENT_MONTHLY_LIMIT',
      usage: 'monthlySpend',
      limit,
      adds: policyAmount,
      refusal: (n) => refuse(`This would pass the monthly limit of ${limit} ${limits.currency}${spent('this month', n)}`),
    });
  }
  if (limits.dailyTransactionLimit !== undefined) {
    const limit = limits.dailyTransactionLimit;
    out.push({
      name: 'AGENT_DAILY_COUNT',
      usage: 'dailyTransactionCount',
      limit,
      adds: 1,
      refusal: () => refuse(`This would pass the daily limit of ${limit} transactions`),
    });
  }
  return out;
}

/** Daily and monthly amount and count limits against spend so far (approved and executed only). */
export function checkPeriodLimits(limits: AgentPolicy['spendingLimits'], usage: Usage, policyAmount: number) {
  for (const l of periodLimits(limits, policyAmount)) if (usage[l.usage] + l.adds > l.limit) throw l.refusal(usage[l.usage]);
}
