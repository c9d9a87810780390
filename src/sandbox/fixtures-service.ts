// Sandbox fixtures: a document checked whole ($refs, every embedded body by its route's schema), then applied step by step through the API's own routes.
import type * as z from 'zod';
import type { PlatformRow } from '../db/schema';
import { OPEN_TRANSACTION_STATUSES } from '../db/enums';
import { ApiError, badRequest, invalidFields, zodIssues, type FieldIssue } from '../http/errors';
import type { RouteDef } from '../http/route';
import { missingInformation } from '../kyc/verifications-service';
import { sandboxKybStatus } from '../kyc/sandbox';
import { KycLinkOutcome } from '../db/enums';
import { LONG_PENDING_MS, SETTLE_MS, SLOW_PAYOUT_MS, TRANSFER_FAIL_MS } from '../payments/sandbox-rail';
import {
  FIXTURE_LIMITS,
  FixtureAgent,
  FixtureCustomer,
  FixtureInvitation,
  FixturePayment,
  type FixtureDocument,
  type FixtureResult,
} from './fixtures-schema';

/** What an individual's hosted KYC link can end as. */
const HOSTED_KYC_OUTCOMES = KycLinkOutcome.options;

/** What a `$ref` names. */
type Kind = 'customer' | 'internalAccount' | 'externalAccount' | 'agent' | 'payment' | 'quote' | 'invitation';

/** Where a `$ref` must name a given kind (a body path, dotted); anywhere else any earlier ref resolves to its id. */
const EXPECTED: Record<string, Record<string, readonly Kind[]>> = {
  createCustomerExternalAccount: { customerId: ['customer'] },
  createAgent: { customerId: ['customer'] },
  createTransferOut: { 'source.accountId': ['internalAccount'], 'destination.accountId': ['externalAccount'] },
  createTransferIn: { 'source.accountId': ['externalAccount'], 'destination.accountId': ['internalAccount'] },
  createQuote: {
    'source.accountId': ['internalAccount'],
    'source.customerId': ['customer'],
    'destination.accountId': ['externalAccount', 'internalAccount'],
  },
  createInvitation: { inviterUma: ['customer'] },
  claimInvitation: { inviteeUma: ['customer'] },
  lookupUma: { customerId: ['customer'] },
  lookupExternalAccount: { customerId: ['customer'] },
};

/** Fields where a customer's `$ref` stands for its UMA address rather than its id. */
const UMA_FIELDS: Record<string, string> = { createInvitation: 'inviterUma', claimInvitation: 'inviteeUma' };
/** Where the steps keep a customer's UMA address, by its ref (`:` is no ref's character, so refs never show it). */
const umaKey = (ref: string) => `uma:${ref}`;

// Ids of the right shape, standing in for what does not exist yet while a body is validated.
const PLACEHOLDER: Record<Kind, string> = {
  customer: 'Customer:00000000-0000-7000-8000-000000000000',
  internalAccount: 'InternalAccount:00000000-0000-7000-8000-000000000000',
  externalAccount: 'ExternalAccount:00000000-0000-7000-8000-000000000000',
  agent: 'Agent:00000000-0000-7000-8000-000000000000',
  payment: 'Transaction:00000000-0000-7000-8000-000000000000',
  quote: 'Quote:00000000-0000-7000-8000-000000000000',
  invitation: '0000000000000000',
};
const UMA_PLACEHOLDER = '$fixture@placeholder.test';

/** How far `settle` moves the clock, step by step, until the payment is final: each sandbox delay in turn. */
const SETTLE_STEPS_MS = [SETTLE_MS, TRANSFER_FAIL_MS, SLOW_PAYOUT_MS, LONG_PENDING_MS];

/** Runs one API operation in-process (the caller's credentials): its JSON answer, or its ApiError thrown. */
export type CallApi = (operationId: string, params: Record<string, string>, body?: unknown, query?: Record<string, string>) => Promise<any>;

/** One unit of work, done in document order. */
interface Step {
  path: string;
  run: (call: CallApi, ids: Map<string, string>, out: FixtureResult) => Promise<void>;
}

/** The issues a refusal lists (the first ones, in document order), so a wholly broken document gets a short answer. */
const MAX_ISSUES = 100;

const FIXTURE_KEYS = { customer: ['ref', 'kycStatus', 'balances', 'externalAccounts', 'wallet'], agent: ['ref', 'redeem'] };

/** A dotted zod path as the document's JSON path: `customers.1.ref` is `customers[1].ref`. */
export const jsonPath = (dotted: string) => dotted.replace(/\.(\d+)(?=\.|$)/g, '[$1]').replace(/^(\d+)(?=\.|$)/, '[$1]');

/** `customers[1].externalAccounts[0]` + `accountInfo.iban`. */
const at = (path: string, field = '') => (field && field !== '(body)' ? `${path}.${jsonPath(field)}` : path);

const without = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));

const isRef = (value: unknown): value is { $ref: unknown } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && '$ref' in value;

/** Replaces every `$ref` in `value` by `resolve(name, bodyPath)`. */
function substitute(value: unknown, resolve: (name: unknown, field: string) => string, field = ''): unknown {
  if (isRef(value)) return resolve(value.$ref, field);
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, resolve, field ? `${field}.${i}` : String(i)));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, resolve, field ? `${field}.${k}` : k)]));
  return value;
}

/**
 * Gives the isolate back every `every` steps of the planner, so other requests (another platform's too) are
 * served while a large document is checked instead of waiting for all of it.
 */
function pacer(every = 250) {
  let n = 0;
  return () => (++n % every === 0 ? new Promise<void>((resume) => setTimeout(resume, 0)) : undefined);
}

/**
 * Checks the whole document against the platform and the routes' own request schemas, and returns the steps
 * that create it; 400 INVALID_INPUT naming each failing JSON path, before anything is created.
 */
export async function planFixtures(
  doc: FixtureDocument,
  platform: PlatformRow,
  routes: readonly RouteDef[],
  /** The planner's work, observable: each declared name it visits marking entries usable. */
  meter = { visits: 0 },
): Promise<Step[]> {
  const entries =
    (doc.customers?.length ?? 0) +
    (doc.agents?.length ?? 0) +
    (doc.payments?.length ?? 0) +
    (doc.invitations?.length ?? 0) +
    (doc.customers ?? []).reduce((n, c) => n + (Array.isArray(c.externalAccounts) ? c.externalAccounts.length : 0), 0);
  if (entries > FIXTURE_LIMITS.entries) {
    const message = `The document holds ${entries} entries (customers, their external accounts, agents, payments and invitations); at most ${FIXTURE_LIMITS.entries}`;
    throw badRequest(`Invalid fixture document: ${message}`, { fields: [{ field: '(body)', message }] });
  }
  const issues: FieldIssue[] = [];
  const issue = (field: string, message: string) => issues.push({ field, message });
  const breathe = pacer();
  // A query refuses parameters it does not declare, as its route does (the declared schema is a plain object).
  const routeOf = new Map(routes.map((r) => [r.operationId, r]));
  const schemaOf = (operationId: string, part: 'body' | 'query' = 'body') => {
    const schema = routeOf.get(operationId)![part] as z.ZodType;
    return part === 'query' ? (schema as z.ZodObject).strict() : schema;
  };
  const platformCurrencies = platform.supportedCurrencies.map((c) => c.currencyCode);
  const hasWallets = platform.embeddedWalletConfig != null && platformCurrencies.length > 0;

  // Every name the document declares, in document order; a ref may name only those declared before it.
  const declared = new Map<string, { kind: Kind; seq: number; path: string }>();
  // An entry's ref to the names it declares (itself, `<ref>.accounts.<CURRENCY>`...): indexed once, so marking an
  // entry usable costs its own names, not a scan of the document's (which made planning quadratic).
  const family = new Map<string, string[]>();
  const known = new Set<string>();
  let seq = 0;
  const declare = (name: unknown, kind: Kind, path: string, owner = name) => {
    if (typeof name !== 'string') return;
    if (declared.has(name)) issue(`${path}.ref`, `Duplicate ref "${name}" (first at ${declared.get(name)!.path})`);
    else {
      declared.set(name, { kind, seq: seq++, path });
      const names = family.get(owner as string);
      if (names) names.push(name);
      else family.set(owner as string, [name]);
    }
  };
  // Each entry by its own schema; one that fails still declares its ref, so refs to it add no noise.
  const parse = async <T>(schema: z.ZodType<T>, list: Record<string, unknown>[] | undefined, section: string) => {
    const parsed: { entry: T | undefined; ref: unknown }[] = [];
    for (const [i, value] of (list ?? []).entries()) {
      await breathe();
      const r = schema.safeParse(value);
      if (!r.success) for (const x of zodIssues(r.error)) issue(at(`${section}[${i}]`, x.field), x.message);
      parsed.push({ entry: r.success ? r.data : undefined, ref: value.ref });
    }
    return parsed;
  };
  const customers = await parse(FixtureCustomer, doc.customers, 'customers');
  const agents = await parse(FixtureAgent, doc.agents, 'agents');
  const payments = await parse(FixturePayment, doc.payments, 'payments');
  const invitations = await parse(FixtureInvitation, doc.invitations, 'invitations');
  customers.forEach(({ entry: c, ref }, i) => {
    const path = `customers[${i}]`;
    declare(ref, 'customer', path);
    if (typeof ref === 'string') {
      // Every customer holds an account in each platform currency (`customerAccountRows`).
      for (const code of platformCurrencies) declare(`${ref}.accounts.${code}`, 'internalAccount', path, ref);
      if (hasWallets) declare(`${ref}.accounts.wallet`, 'internalAccount', path, ref);
    }
    c?.externalAccounts?.forEach((a, j) => declare(a.ref, 'externalAccount', `${path}.externalAccounts[${j}]`));
  });
  agents.forEach(({ ref }, i) => declare(ref, 'agent', `agents[${i}]`));
  payments.forEach(({ entry: p, ref }, i) => {
    declare(ref, 'payment', `payments[${i}]`);
    if (p && 'quote' in p && typeof ref === 'string') declare(`${ref}.quote`, 'quote', `payments[${i}]`, ref);
  });
  invitations.forEach(({ ref }, i) => declare(ref, 'invitation', `invitations[${i}]`));

  /** Checks `body` (or with `part` 'query', the query) for operation `op` at `path`, its refs of earlier entries. */
  const check = (op: string, path: string, body: Record<string, unknown>, part: 'body' | 'query' = 'body') => {
    const expected = EXPECTED[op] ?? {};
    const placeholder = substitute(body, (name, field) => {
      const where = at(path, `${field}.$ref`);
      const ref = typeof name === 'string' ? declared.get(name) : undefined;
      const wanted = expected[field];
      if (typeof name !== 'string') issue(where, '$ref must be a string');
      else if (!ref) issue(where, `Unknown ref "${name}"`);
      else if (!known.has(name)) issue(where, `Ref "${name}" is declared later (${ref.path}); refer only to earlier entries`);
      else if (wanted && !wanted.includes(ref.kind)) issue(where, `Ref "${name}" is a ${ref.kind}; expected ${wanted.join(' or ')}`);
      return UMA_FIELDS[op] === field ? UMA_PLACEHOLDER : PLACEHOLDER[ref?.kind ?? wanted?.[0] ?? 'customer'];
    });
    const parsed = schemaOf(op, part).safeParse(placeholder);
    if (!parsed.success) for (const i of zodIssues(parsed.error)) issue(at(path, i.field), i.message);
    return parsed.success ? (parsed.data as Record<string, any>) : undefined;
  };
  const usable = (name: unknown) => {
    if (typeof name !== 'string') return;
    for (const n of family.get(name) ?? []) {
      meter.visits++;
      if (declared.get(n)!.kind !== 'quote') known.add(n);
    }
  };

  const steps: Step[] = [];
  for (const [i, { entry: c }] of customers.entries()) {
    await breathe();
    if (!c) continue;
    const path = `customers[${i}]`;
    const body = without(c, FIXTURE_KEYS.customer);
    const customer = check('createCustomer', path, body);
    (customer?.currencies as string[] | undefined)?.forEach((code, j) => {
      if (!platformCurrencies.includes(code)) issue(`${path}.currencies[${j}]`, `${code} is not among the platform's supported currencies`);
    });
    for (const code of Object.keys(c.balances ?? {}))
      if (!platformCurrencies.includes(code)) issue(`${path}.balances.${code}`, `The platform has no ${code} accounts`);
    if (customer && c.kycStatus && c.kycStatus !== 'UNVERIFIED') {
      if (customer.customerType === 'INDIVIDUAL') {
        // Its hosted KYC link decides, whatever is on file: completed or failed.
        if (!(HOSTED_KYC_OUTCOMES as readonly string[]).includes(c.kycStatus))
          issue(`${path}.kycStatus`, 'An individual reaches APPROVED or REJECTED (its hosted KYC link, completed or failed)');
      } else {
        const reachable = sandboxKybStatus(String(customer.businessInfo?.registrationNumber ?? ''));
        const missing = missingInformation({ id: path, customerType: customer.customerType, info: customer });
        if (missing.length)
          for (const m of missing) issue(at(path, (m.field ?? '').slice('customer.'.length)), `${m.reason} for kycStatus`);
        else if (reachable !== c.kycStatus)
          issue(
            `${path}.kycStatus`,
            `The sandbox verification of this customer reaches ${reachable} (businessInfo.registrationNumber suffix 001: PENDING, 002: REJECTED)`,
          );
      }
    }
    usable(c.ref);
    const accounts = (c.externalAccounts ?? []).map((a, j) => {
      const where = `${path}.externalAccounts[${j}]`;
      if ('customerId' in a) issue(`${where}.customerId`, 'Set by the fixture: the account belongs to this customer');
      check('createCustomerExternalAccount', where, { ...without(a, ['ref', 'customerId']), customerId: PLACEHOLDER.customer });
      usable(a.ref);
      return { ref: a.ref, where, body: without(a, ['ref']) };
    });
    if (c.wallet) {
      if (!hasWallets) issue(`${path}.wallet`, 'The platform has no embedded wallets (embeddedWalletConfig)');
      if ('accountId' in c.wallet) issue(`${path}.wallet.accountId`, "Set by the fixture: the customer's embedded wallet");
      // A wallet's EMAIL_OTP credential is its customer's e-mail; any other first credential needs a wallet without one.
      if (c.wallet.type === 'EMAIL_OTP' && customer && !customer.email)
        issue(`${path}.email`, 'Required for an EMAIL_OTP wallet credential');
      if (c.wallet.type !== 'EMAIL_OTP' && customer?.email)
        issue(
          `${path}.wallet.type`,
          'The wallet of a customer with an e-mail has its EMAIL_OTP credential; another one needs a signed retry',
        );
      check('createAuthCredential', `${path}.wallet`, { ...without(c.wallet, ['accountId']), accountId: PLACEHOLDER.internalAccount });
    }
    steps.push({
      path,
      run: async (call, ids, out) => {
        const created = await call(
          'createCustomer',
          {},
          substitute(body, (n) => ids.get(n as string)!),
        );
        out.counts.customers++;
        if (typeof c.ref === 'string') ids.set(c.ref, created.id).set(umaKey(c.ref), created.umaAddress);
        const list = await call('listCustomerInternalAccounts', {}, undefined, { customerId: created.id, limit: '100' });
        const byName = new Map<string, string>();
        for (const a of list.data) byName.set(a.type === 'EMBEDDED_WALLET' ? 'wallet' : a.balance.currency.code, a.id);
        if (typeof c.ref === 'string') for (const [name, id] of byName) ids.set(`${c.ref}.accounts.${name}`, id);
        if (c.kycStatus && c.kycStatus !== 'UNVERIFIED') {
          if (created.customerType === 'INDIVIDUAL') {
            // As the customer would: the link's page completes (or fails) verification with the link's secret.
            const link = await call('createCustomerKycLink', { customerId: created.id }, {});
            const secret = new URL(link.kycUrl).hash.slice(1);
            await call('completeSandboxKycLink', {}, { secret, outcome: c.kycStatus });
          } else await call('createVerification', {}, { customerId: created.id });
          out.counts.verifications++;
        }
        for (const [code, amount] of Object.entries(c.balances ?? {})) {
          await call('sandboxFundInternalAccount', { accountId: byName.get(code)! }, { amount });
          out.counts.fundings++;
        }
        for (const a of accounts) {
          const body = { ...(substitute(a.body, (n) => ids.get(n as string)!) as object), customerId: created.id };
          const account = await call('createCustomerExternalAccount', {}, body).catch(at$(a.where));
          out.counts.externalAccounts++;
          if (typeof a.ref === 'string') ids.set(a.ref, account.id);
        }
        if (c.wallet) {
          const accountId = byName.get('wallet')!;
          // EMAIL_OTP: reading the credentials sets the wallet up with its e-mail credential.
          await (
            c.wallet.type === 'EMAIL_OTP'
              ? call('listAuthCredentials', {}, undefined, { accountId })
              : call('createAuthCredential', {}, { ...c.wallet, accountId })
          ).catch(at$(`${path}.wallet`));
          out.counts.walletCredentials++;
        }
      },
    });
  }

  for (const [i, { entry: a }] of agents.entries()) {
    await breathe();
    if (!a) continue;
    const path = `agents[${i}]`;
    const body = without(a, FIXTURE_KEYS.agent);
    check('createAgent', path, body);
    usable(a.ref);
    steps.push({
      path,
      run: async (call, ids, out) => {
        const created = await call(
          'createAgent',
          {},
          substitute(body, (n) => ids.get(n as string)!),
        );
        out.counts.agents++;
        const id = created.agent.id as string;
        if (typeof a.ref === 'string') ids.set(a.ref, id);
        out.agents[typeof a.ref === 'string' ? a.ref : id] = a.redeem
          ? await call('redeemAgentDeviceCode', { code: created.deviceCode.code })
          : { deviceCode: created.deviceCode };
      },
    });
  }

  for (const [i, { entry: p }] of payments.entries()) {
    await breathe();
    if (!p) continue;
    const path = `payments[${i}]`;
    const [op, key] =
      'transferOut' in p
        ? ['createTransferOut', 'transferOut']
        : 'transferIn' in p
          ? ['createTransferIn', 'transferIn']
          : ['createQuote', 'quote'];
    const body = (p as Record<string, any>)[key] as Record<string, unknown>;
    const parsed = check(op, `${path}.${key}`, body);
    const executes = 'quote' in p && (p.execute === true || parsed?.immediatelyExecute === true);
    // A look-up of the quote's destination first: a UMA address, or an external account.
    const lookup = 'quote' in p ? p.lookup : undefined;
    let lookupOp: 'lookupUma' | 'lookupExternalAccount' | undefined;
    if (lookup) {
      const destination = parsed?.destination as { destinationType: string; accountId?: string } | undefined;
      lookupOp = destination?.destinationType === 'UMA_ADDRESS' ? 'lookupUma' : 'lookupExternalAccount';
      check(lookupOp, `${path}.lookup`, lookup, 'query');
      if (body.lookupId !== undefined) issue(`${path}.quote.lookupId`, 'Set by the fixture from its lookup');
      const to = (body.destination as { accountId?: unknown } | undefined)?.accountId;
      const named = isRef(to) && typeof to.$ref === 'string' ? declared.get(to.$ref)?.kind : undefined;
      if (
        destination?.destinationType === 'ACCOUNT' &&
        (named === 'internalAccount' || destination.accountId?.startsWith('InternalAccount:'))
      )
        issue(`${path}.lookup`, 'Only a UMA address or an external account is looked up');
    }
    if ('quote' in p && p.settle && !executes) issue(`${path}.settle`, 'A quote settles only once executed ("execute": true)');
    usable(p.ref);
    if ('quote' in p && typeof p.ref === 'string') known.add(`${p.ref}.quote`);
    steps.push({
      path,
      run: async (call, ids, out) => {
        const resolved = substitute(body, (n) => ids.get(n as string)!);
        let transactionId: string;
        if (op === 'createQuote') {
          if (lookup && lookupOp) {
            const destination = (resolved as { destination: { umaAddress?: string; accountId?: string } }).destination;
            const params: Record<string, string> =
              lookupOp === 'lookupUma' ? { receiverUmaAddress: destination.umaAddress! } : { accountId: destination.accountId! };
            const query = substitute(lookup, (n) => ids.get(n as string)!) as Record<string, string>;
            const found = await call(lookupOp, params, undefined, query);
            Object.assign(resolved as object, { lookupId: found.lookupId });
            if (typeof p.ref === 'string') ids.set(`${p.ref}.lookup`, found.lookupId);
          }
          const quote = await call(op, {}, resolved);
          if (typeof p.ref === 'string') ids.set(`${p.ref}.quote`, quote.id);
          if (executes && !parsed?.immediatelyExecute) await call('executeQuote', { quoteId: quote.id });
          transactionId = quote.transactionId;
        } else transactionId = (await call(op, {}, resolved)).id;
        out.counts.payments++;
        if (typeof p.ref === 'string') ids.set(p.ref, transactionId);
        if (p.settle) {
          await settle(call, transactionId, path);
          out.counts.settled++;
        }
      },
    });
  }

  for (const [i, { entry: v }] of invitations.entries()) {
    await breathe();
    if (!v) continue;
    const path = `invitations[${i}]`;
    check('createInvitation', `${path}.invitation`, v.invitation);
    if (v.claim) check('claimInvitation', `${path}.claim`, v.claim);
    if (v.claim && v.cancel) issue(`${path}.cancel`, 'An invitation is claimed or cancelled, not both');
    usable(v.ref);
    // A customer's ref in a UMA address field is its address; any other ref its id.
    const resolved = (op: string, body: Record<string, unknown>, ids: Map<string, string>) =>
      substitute(body, (n, field) => ids.get(UMA_FIELDS[op] === field ? umaKey(n as string) : (n as string))!);
    steps.push({
      path,
      run: async (call, ids, out) => {
        const { code } = await call('createInvitation', {}, resolved('createInvitation', v.invitation, ids));
        out.counts.invitations++;
        if (typeof v.ref === 'string') ids.set(v.ref, code);
        if (v.claim) await call('claimInvitation', { invitationCode: code }, resolved('claimInvitation', v.claim, ids));
        if (v.cancel) await call('cancelInvitation', { invitationCode: code });
      },
    });
  }

  if (issues.length > MAX_ISSUES) {
    const error = invalidFields('fixture document', issues.slice(0, MAX_ISSUES));
    throw new ApiError(error.code, `${error.message} (and ${issues.length - MAX_ISSUES} more)`, {
      ...error.details,
      issueCount: issues.length,
    });
  }
  if (issues.length) throw invalidFields('fixture document', issues);
  return steps;
}

/** Moves the sandbox clock through each sandbox delay until the transaction leaves its open statuses. */
async function settle(call: CallApi, transactionId: string, path: string): Promise<void> {
  let moved = 0;
  for (const ms of SETTLE_STEPS_MS) {
    const tx = await call('getTransactionById', { transactionId });
    if (!(OPEN_TRANSACTION_STATUSES as readonly string[]).includes(tx.status)) return;
    await call('advanceSandboxClock', {}, { seconds: Math.ceil((ms - moved) / 1000) });
    moved = ms;
  }
  const tx = await call('getTransactionById', { transactionId });
  if ((OPEN_TRANSACTION_STATUSES as readonly string[]).includes(tx.status))
    throw new ApiError('CONFLICT', `${path}: the payment is still ${tx.status} after the sandbox's longest delay`, { entry: path });
}

/** Names the failing entry in an error of its step. */
function at$(path: string) {
  return (error: unknown): never => {
    throw entryError(error, path);
  };
}

/** The step's own error (status and code) with the entry's JSON path in its message and details. */
export function entryError(error: unknown, path: string): unknown {
  if (!(error instanceof ApiError) || (error.details as { entry?: string } | undefined)?.entry) return error;
  return new ApiError(error.code, `${path}: ${error.message}`, { ...error.details, entry: path }, error.headers, error.reason);
}

/** Applies the steps in order; the first failure is thrown, naming its entry. */
export async function applyFixtures(steps: Step[], call: CallApi): Promise<FixtureResult> {
  const ids = new Map<string, string>();
  const out: FixtureResult = {
    refs: {},
    counts: {
      customers: 0,
      verifications: 0,
      fundings: 0,
      externalAccounts: 0,
      walletCredentials: 0,
      agents: 0,
      payments: 0,
      settled: 0,
      invitations: 0,
    },
    agents: {},
  };
  for (const step of steps) await step.run(call, ids, out).catch((error: unknown) => Promise.reject(entryError(error, step.path)));
  out.refs = Object.fromEntries([...ids].filter(([name]) => !name.startsWith(umaKey(''))));
  return out;
}
