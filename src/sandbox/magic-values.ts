// The sandbox's magic values as one document (GET /sandbox/magic-values), built from the declarations the code reads, and the tables of docs/sandbox.md rendered from it.
import type { Settings } from '../env';
import {
  LONG_PENDING_MS,
  OTHER_SUFFIX,
  RETURN_AFTER_MS,
  SANDBOX_SUFFIXES,
  SETTLE_MS,
  SLOW_PAYOUT_MS,
  TRANSFER_FAIL_MS,
  type SandboxScenario as Scenario,
  type SuffixScenarios,
} from '../payments/sandbox-rail';
import { planOf, type Plan } from '../payments/rail';
import { SANDBOX_UMA_RECEIVERS, SANDBOX_UMA_REFUSALS } from '../payments/sandbox-uma-receivers';
import { LOOKUP_TTL_MS } from '../payments/lookups-service';
import { ERRORS } from '../http/errors';
import { QUOTE_TTL_MS } from '../payments/quotes-service';
import { ANSWER_WINDOW_MS, ASYNC_DECISION_MS } from '../payments/incoming-approval';
import { RATE_WINDOW_MS } from '../payments/rates';
import { BENEFICIARY_OTHERWISE, BENEFICIARY_SUFFIXES } from '../external-accounts/beneficiary';
import {
  SANDBOX_INDIVIDUAL_KYC,
  SANDBOX_VERIFICATION_OTHERWISE,
  SANDBOX_VERIFICATION_SUFFIXES,
  SANDBOX_VERIFICATIONS,
} from '../kyc/sandbox';
import { OIDC_CLOCK_SKEW_MS, OIDC_MAX_AGE_MS, RETIRED_SANDBOX_OIDC_TOKEN, WALLET_SANDBOX_VALUES } from '../wallet/sandbox-values';
import { CHALLENGE_TTL_MS } from '../wallet/account-protocol';
import { INFO_REQUESTED, INFO_REQUESTING_SENDER } from './payments-service';
import type { MagicValues, PaymentOutcome } from './magic-values-schema';

type MagicSettings = Pick<Settings, 'sandboxUmaDomain' | 'webauthn' | 'oidcIssuers' | 'sessionTtlSeconds'>;

/** A duration as people read it: `5 s`, `6 min`, `24 h`. */
function duration(ms: number): string {
  if (ms >= 7_200_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

/** A plan in one line: its statuses in order, each with its delay, reason and what happens to the money. */
function summary(plan: Plan): string {
  if (plan.failsAtOnce) return `\`FAILED\` at once (\`${plan.failsAtOnce}\`), nothing moves`;
  const steps = plan.steps.map((s) => {
    const when = s.afterMs === 0 ? 'in the same request' : `after ${duration(s.afterMs)}`;
    const why = s.failureReason ? ` (\`${s.failureReason}\`)` : '';
    const money = [
      s.returned ? 'returned' : undefined,
      s.refund?.status === 'COMPLETED'
        ? s.refund.reason === 'USER_CANCELLATION'
          ? 'refunded (user cancellation)'
          : 'refunded'
        : undefined,
      s.refund?.status === 'FAILED' ? 'the refund fails (money stays held)' : undefined,
    ].filter(Boolean);
    return `\`${s.status}\`${why} ${when}${money.length ? `, ${money.join(' and ')}` : ''}`;
  });
  return [`\`${plan.inFlight}\``, ...steps].join(' → ');
}

function outcome(scenario: Scenario): PaymentOutcome {
  const plan = planOf(scenario);
  return {
    scenario,
    summary: summary(plan),
    ...(plan.failsAtOnce ? { failsAtOnce: plan.failsAtOnce } : {}),
    inFlight: plan.inFlight,
    steps: plan.steps.map((s) => ({
      afterMs: s.afterMs,
      status: s.status,
      ...(s.failureReason ? { failureReason: s.failureReason } : {}),
      ...(s.returned ? { returned: true } : {}),
      ...(s.refund ? { refund: { status: s.refund.status, reason: s.refund.reason } } : {}),
    })),
  };
}

const byOperation = (s: SuffixScenarios) => ({
  meaning: s.meaning,
  quote: outcome(s.quote),
  transferOut: outcome(s.transferOut),
  transferIn: outcome(s.transferIn),
});

/** GET /sandbox/magic-values: every sandbox trigger, read from the tables the code decides with. */
export function magicValues(s: MagicSettings): MagicValues {
  return {
    accountSuffixes: {
      selectedBy: "the last 3 digits of the external account's primary identifier (for `user@domain`, the end of the user part)",
      values: Object.entries(SANDBOX_SUFFIXES).map(([suffix, scenarios]) => ({ suffix, ...byOperation(scenarios) })),
      otherwise: byOperation(OTHER_SUFFIX),
    },
    beneficiaryVerification: {
      selectedBy:
        "the last 3 digits of the external account's primary identifier (for `user@domain`, the end of the user part), when the account is created",
      values: Object.entries(BENEFICIARY_SUFFIXES).map(([suffix, status]) =>
        status === 'INVALID_BANK_ACCOUNT' ? { suffix, error: { status: 400, code: status } } : { suffix, status },
      ),
      otherwise: BENEFICIARY_OTHERWISE,
    },
    umaReceivers: {
      domain: s.sandboxUmaDomain,
      receivers: Object.entries(SANDBOX_UMA_RECEIVERS).map(([local, r]) => ({
        address: `${local}@${s.sandboxUmaDomain}`,
        currency: r.currency,
        name: r.name,
        outcome: outcome(r.scenario),
      })),
      refusals: Object.entries(SANDBOX_UMA_REFUSALS).map(([local, r]) => ({
        address: `${local}@${s.sandboxUmaDomain}`,
        operations: ['GET /receiver/uma/{receiverUmaAddress}', 'POST /quotes'],
        error: { status: ERRORS[r.code], code: r.code },
      })),
      infoRequestingSender: {
        localPart: INFO_REQUESTING_SENDER,
        operation: 'POST /sandbox/uma/receive',
        requestedFields: INFO_REQUESTED.map((f) => ({ name: f.name, mandatory: f.mandatory })),
      },
      incoming: outcome('UMA_RECEIVE'),
    },
    verifications: [
      ...SANDBOX_VERIFICATIONS.map((v) => ({
        ...v,
        values: Object.entries(SANDBOX_VERIFICATION_SUFFIXES).map(([suffix, status]) => ({ suffix, status })),
        otherwise: SANDBOX_VERIFICATION_OTHERWISE,
      })),
      {
        kind: 'KYC',
        what: 'KYC of an individual customer of a regulated platform',
        operation: 'POST /verifications',
        values: [],
        otherwise: SANDBOX_INDIVIDUAL_KYC,
      },
    ],
    wallet: {
      otp: { field: 'otp', operation: 'POST /auth/credentials/{id}/verify (EMAIL_OTP)', ...WALLET_SANDBOX_VALUES.otp },
      passkey: {
        field: 'assertion.signature',
        operation: 'POST /auth/credentials/{id}/verify (PASSKEY)',
        ...WALLET_SANDBOX_VALUES.passkeySignature,
        ...(s.webauthn ? { rpId: s.webauthn.rpId, origins: s.webauthn.origins } : {}),
      },
      walletSignature: { field: 'Service-Wallet-Signature', operation: 'any signed retry', ...WALLET_SANDBOX_VALUES.walletSignature },
      oauth: {
        field: 'oidcToken',
        signatureChecked: false,
        issuers: Object.keys(s.oidcIssuers),
        maxAgeMs: OIDC_MAX_AGE_MS,
        clockSkewMs: OIDC_CLOCK_SKEW_MS,
        retiredToken: RETIRED_SANDBOX_OIDC_TOKEN,
      },
    },
    timings: [
      { name: 'settle', ms: SETTLE_MS, description: 'a payout, UMA payment or delayed transfer outcome settles' },
      { name: 'slowPayout', ms: SLOW_PAYOUT_MS, description: 'a quote to a 003 account completes' },
      { name: 'returnAfter', ms: RETURN_AFTER_MS, description: 'a completed payout to a 005 account is returned' },
      { name: 'transferFailsLater', ms: TRANSFER_FAIL_MS, description: 'a transfer with a 005 account fails' },
      { name: 'umaLongPending', ms: LONG_PENDING_MS, description: 'a payment to the slow UMA receiver completes' },
      { name: 'quoteTtl', ms: QUOTE_TTL_MS, description: 'a quote expires unless executed' },
      { name: 'lookupTtl', ms: LOOKUP_TTL_MS, description: 'a receiver look-up can be named by a quote (lookupId), in both modes' },
      { name: 'ratesWindow', ms: RATE_WINDOW_MS, description: 'an exchange-rate snapshot holds' },
      { name: 'incomingApprovalWindow', ms: ANSWER_WINDOW_MS, description: 'an incoming payment waits for the platform to answer' },
      { name: 'incomingAsyncDecision', ms: ASYNC_DECISION_MS, description: 'after a 202, the platform has this long to decide' },
      { name: 'challengeTtl', ms: CHALLENGE_TTL_MS, description: 'a signed-retry or passkey challenge is valid' },
      { name: 'sessionTtl', ms: s.sessionTtlSeconds * 1000, description: 'an embedded-wallet session lives (SESSION_TTL_SECONDS)' },
    ],
  };
}

const code = (v: string) => `\`${v}\``;
const refused = (reason: string) => `401 ${code('UNAUTHORIZED')}, ${code(`reason: "${reason}"`)}`;
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** The magic-value tables of docs/sandbox.md, by marker name (`npm run magic-values` writes them; a test keeps them equal). */
export function magicValueTables(doc: MagicValues): Record<string, string> {
  const { accountSuffixes: a, beneficiaryVerification: b, umaReceivers: u, wallet: w } = doc;
  const suffixRow = (suffix: string, o: ReturnType<typeof byOperation>) => [
    suffix,
    o.meaning,
    o.quote.summary,
    o.transferOut.summary,
    o.transferIn.summary,
  ];
  const verificationOutcomes = (v: MagicValues['verifications'][number]) =>
    [...v.values.map((x) => `${code(x.suffix)} ${x.status}`), `${v.values.length ? 'other ' : ''}${v.otherwise}`].join(', ');
  const beneficiary = [
    ...b.values.map((v) => `${code(v.suffix)} ${'status' in v ? v.status : `${v.error.status} ${code(v.error.code)}`}`),
    `other ${b.otherwise}`,
  ].join(', ');
  return {
    areas: table(
      ['What', 'Selected by', 'Outcome'],
      [
        ...doc.verifications.map((v) => [
          `${v.what} (${code(v.operation)})`,
          'field' in v && v.field ? `last 3 characters of ${code(v.field)}` : '—',
          verificationOutcomes(v),
        ]),
        ['Beneficiary verification (external account)', b.selectedBy.replace(/^the /, ''), beneficiary],
        [
          `Receiver information asked by the sender (${code(u.infoRequestingSender.operation)})`,
          `${code('senderUmaAddress')} local part ${code(u.infoRequestingSender.localPart)} (any domain)`,
          `${code('INCOMING_PAYMENT.PENDING')} carries ${code('requestedReceiverCustomerInfoFields')} ${u.infoRequestingSender.requestedFields
            .map((f) => `${code(f.name)} (${f.mandatory ? 'mandatory' : 'optional'})`)
            .join(' and ')}, on top of the currency's`,
        ],
      ],
    ),
    wallet: table(
      ['Where', 'Value', 'A wrong value'],
      [
        [`EMAIL_OTP verify ${code(w.otp.field)}`, `${code(w.otp.value)} (a real code from the outbox also works)`, refused(w.otp.refusal)],
        [
          `PASSKEY verify ${code(w.passkey.field)}`,
          `${code(w.passkey.value)} (the challenge still needs ${code('clientPublicKey')} and the verify its ${code('Request-Id')})`,
          refused(w.passkey.refusal),
        ],
        [
          `${code(w.walletSignature.field)} on ${w.walletSignature.operation}`,
          `${code(w.walletSignature.value)} (a real stamp also works)`,
          refused(w.walletSignature.refusal),
        ],
        [
          `OAUTH ${code(w.oauth.field)}`,
          `a JWT-shaped token with any signature segment; claims fully checked: supported ${code('iss')}, ${code('aud')} string or one-element array, non-empty ${code('sub')}, ${code('iat')} within ${duration(w.oauth.maxAgeMs)} (+${duration(w.oauth.clockSkewMs)} skew), ${code('exp')} in the future, and on verify ${code('nonce')} = SHA-256 hex of ${code('clientPublicKey')}`,
          `401 ${code('UNAUTHORIZED')} with the failed claim as ${code('reason')}; not a JWT: 400 ${code('INVALID_INPUT')}; the old literal ${code(w.oauth.retiredToken)} is refused`,
        ],
      ],
    ),
    outcomes: table(
      ['Suffix', 'Meaning', 'Quote to that external account (after execute)', 'Transfer out', 'Transfer in'],
      [...a.values.map((v) => suffixRow(v.suffix, v)), suffixRow('other', a.otherwise)],
    ),
    uma: table(
      ['UMA receiver', 'Currency', 'Outcome of a quote to it (after execute)'],
      [
        ...u.receivers.map((r) => [code(r.address), r.currency, r.outcome.summary]),
        ...u.refusals.map((r) => [code(r.address), '—', `its look-up and quotes to it answer ${r.error.status} ${code(r.error.code)}`]),
      ],
    ),
    timings: table(
      ['Timing', 'Duration', 'What'],
      doc.timings.map((t) => [code(t.name), duration(t.ms), t.description]),
    ),
  };
}
