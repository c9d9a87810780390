// What giving an agent its powers needs from the API token doing it: an agent never gets a power its
// creator lacks, neither at creation nor by a later policy change, nor through a device code.
import type { Permission } from '../db/schema';
import { ruleFor } from './policy';
import { AGENT_PERMISSION_NEEDS, MONEY_PERMISSIONS, type AgentPolicy } from './schema';

/** The token permissions an agent with `policy` exercises (e.g. TRANSACT for any money permission). */
export function policyNeeds(policy: AgentPolicy): Permission[] {
  return [...new Set(policy.permissions.map((p) => AGENT_PERMISSION_NEEDS[p]))];
}

/**
 * The token permissions changing `before` into `after` needs: each added agent permission's, and TRANSACT
 * when `after` can move money and any money control is looser than before. Narrowing needs nothing.
 */
export function changeNeeds(before: AgentPolicy, after: AgentPolicy): Permission[] {
  const added = after.permissions.filter((p) => !before.permissions.includes(p)).map((p) => AGENT_PERMISSION_NEEDS[p]);
  const moves = after.permissions.some((p) => MONEY_PERMISSIONS.includes(p));
  return [...new Set([...added, ...(moves && loosened(before, after).length ? (['TRANSACT'] as const) : [])])];
}

/** Unlimited compares above every limit. */
const cap = (limit: number | null | undefined) => limit ?? Infinity;

/** The money controls of `after` that let through something `before` refused or sent for approval. */
function loosened(before: AgentPolicy, after: AgentPolicy): string[] {
  const out: string[] = [];
  const [b, a] = [before.spendingLimits, after.spendingLimits];
  // Amounts mean nothing across currencies: a new currency is a new limit.
  if (a.currency !== b.currency) out.push('spendingLimits.currency');
  for (const k of ['dailyLimit', 'monthlyLimit', 'dailyTransactionLimit'] as const) {
    if (cap(a[k]) > cap(b[k])) out.push(`spendingLimits.${k}`);
  }
  const threshold = (p: AgentPolicy) => {
    const t = p.approvalThresholds;
    return t?.amount != null && t.currency ? { currency: t.currency, amount: t.amount } : undefined;
  };
  const [tb, ta] = [threshold(before), threshold(after)];
  if (tb && (!ta || ta.currency !== tb.currency || ta.amount > tb.amount)) out.push('approvalThresholds');
  const allowed = (p: AgentPolicy) => p.accountRestrictions?.allowedAccountIds ?? undefined;
  const [ab, aa] = [allowed(before), allowed(after)];
  if (ab && (!aa || aa.some((id) => !ab.includes(id)))) out.push('accountRestrictions.allowedAccountIds');
  if (anyRequestLooser(before, after)) out.push('defaultExecutionMode, perTransactionLimit or accountRules');
  return out;
}

/**
 * Execution mode and per-transaction limit depend on the request's account rule (`ruleFor`, as `decide`
 * applies it): compared for every request of one or two accounts the rules can tell apart (each ruled
 * account, and one no rule names).
 */
function anyRequestLooser(before: AgentPolicy, after: AgentPolicy): boolean {
  const rules = (p: AgentPolicy) => p.accountRestrictions?.accountRules ?? [];
  const accounts = [...new Set(['', ...rules(before).map((r) => r.accountId), ...rules(after).map((r) => r.accountId)])];
  const terms = (p: AgentPolicy) => (ids: string[]) => {
    const rule = ruleFor(p, ids);
    return {
      auto: (rule?.executionMode ?? p.defaultExecutionMode) === 'AUTO',
      perTransaction: rule?.perTransactionLimit ?? p.spendingLimits.perTransactionLimit,
    };
  };
  const [tb, ta] = [terms(before), terms(after)];
  for (let i = 0; i < accounts.length; i++) {
    for (let j = i; j < accounts.length; j++) {
      const ids = [accounts[i]!, accounts[j]!];
      const [b, a] = [tb(ids), ta(ids)];
      if ((a.auto && !b.auto) || a.perTransaction > b.perTransaction) return true;
    }
  }
  return false;
}
