// The sandbox fixture document (POST /sandbox/fixtures), its limits and its answer.
import * as z from 'zod';
import { AgentDeviceCode, DeviceCodeRedeem } from '../agents/schema';

/**
 * The largest document accepted: counts per section, entries in all (customers, their external accounts, agents
 * and payments: planning costs about one unit per entry, on the Worker's one thread) and bytes of the body.
 */
export const FIXTURE_LIMITS = {
  entries: 20_000,
  customers: 1_000,
  agents: 1_000,
  payments: 10_000,
  invitations: 1_000,
  externalAccountsPerCustomer: 20,
  bytes: 8 * 1024 * 1024,
};

/** What a customer entry may ask its KYC/KYB status to end as (the sandbox outcomes of a hosted KYC link or POST /verifications). */
export const FixtureKycStatus = z.enum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED']);

const Ref = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'Letters, digits, _ and - (1 to 64)')
  .meta({ description: 'A name later entries refer to with {"$ref": "<name>"}' });
/** An embedded request body: validated by its route's own schema once its `$ref`s are resolved. */
const Body = (description: string) => z.record(z.string(), z.unknown()).meta({ description });

export const FixtureCustomer = z
  .looseObject({
    ref: Ref.optional(),
    kycStatus: FixtureKycStatus.optional().meta({
      description:
        'The status to reach: an individual through its hosted KYC link (APPROVED: completed, REJECTED: failed), a business through POST /verifications (the outcome its registrationNumber suffix selects)',
    }),
    balances: z
      .record(z.string(), z.int().positive().max(100_000_000_000))
      .optional()
      .meta({ description: 'Currency to amount (smallest unit), funded through POST /sandbox/internal-accounts/{id}/fund' }),
    externalAccounts: z
      .array(
        z
          .looseObject({ ref: Ref.optional() })
          .meta({ description: 'A POST /customers/external-accounts body; customerId is this customer' }),
      )
      .max(FIXTURE_LIMITS.externalAccountsPerCustomer)
      .optional(),
    wallet: Body(
      'A POST /auth/credentials body without accountId (the customer\'s embedded wallet), e.g. {"type": "EMAIL_OTP"}',
    ).optional(),
  })
  .meta({ description: 'A POST /customers body plus these fields' });

export const FixtureAgent = z
  .looseObject({
    ref: Ref.optional(),
    redeem: z.boolean().optional().meta({ description: 'Redeem the device code and answer the access token' }),
  })
  .meta({ description: 'A POST /agents body (customerId may be a $ref) plus these fields' });

const settle = z.boolean().optional().meta({ description: 'Advance the sandbox clock until the payment reaches a final status' });
export const FixturePayment = z.union([
  z.strictObject({ ref: Ref.optional(), transferOut: Body('A POST /transfer-out body'), settle }),
  z.strictObject({ ref: Ref.optional(), transferIn: Body('A POST /transfer-in body'), settle }),
  z.strictObject({
    ref: Ref.optional(),
    quote: Body('A POST /quotes body'),
    lookup: Body(
      'Look the quote\'s destination (a UMA address or an external account) up first, with this query ({"customerId": …} or {"senderUmaAddress": …}), and create the quote with its lookupId',
    ).optional(),
    execute: z.boolean().optional().meta({ description: 'Execute the quote (POST /quotes/{id}/execute)' }),
    settle,
  }),
]);

export const FixtureInvitation = z
  .strictObject({
    ref: Ref.optional().meta({ description: 'Names the invitation: refs answers its code' }),
    invitation: Body('A POST /invitations body; inviterUma may be {"$ref": "<customer>"}, that customer\'s UMA address'),
    claim: Body('A POST /invitations/{code}/claim body; inviteeUma may be {"$ref": "<customer>"}').optional(),
    cancel: z.boolean().optional().meta({ description: 'Cancel it (POST /invitations/{code}/cancel)' }),
  })
  .meta({ description: 'An invitation, then its claim or its cancellation' });

/**
 * A section: a list of entries, each checked by its own schema above (so a body's fields stay the route's, and
 * every JSON path is the document's own); the document shows them as objects described here.
 */
const section = (max: number, description: string) => z.array(z.record(z.string(), z.unknown()).meta({ description })).max(max).optional();

export const FixtureDocument = z
  .strictObject({
    customers: section(
      FIXTURE_LIMITS.customers,
      'A POST /customers body plus: ref; kycStatus (UNVERIFIED; for an individual APPROVED or REJECTED, its hosted KYC link completed or failed; ' +
        'for a business the outcome POST /verifications reaches by its registrationNumber suffix); balances ({"USD": 100000}); externalAccounts (POST /customers/external-accounts ' +
        'bodies without customerId, each with its ref); wallet (a POST /auth/credentials body without accountId, e.g. {"type": "EMAIL_OTP"})',
    ),
    agents: section(FIXTURE_LIMITS.agents, 'A POST /agents body (customerId a $ref) plus ref and redeem (answer the access token)'),
    payments: section(
      FIXTURE_LIMITS.payments,
      'One of {"transferOut": body}, {"transferIn": body}, {"quote": body, "lookup": query, "execute": true}, plus ref and settle (advance the sandbox clock until final)',
    ),
    invitations: section(
      FIXTURE_LIMITS.invitations,
      '{"invitation": a POST /invitations body} plus ref, and {"claim": a claim body} or "cancel": true; a UMA address field may be a customer\'s $ref',
    ),
  })
  .meta({
    id: 'SandboxFixtureDocument',
    description:
      'Any value in an embedded body may be {"$ref": "<name>"} or {"$ref": "<name>.<path>"} naming an earlier entry: a customer, ' +
      '<customer>.accounts.<CURRENCY> or <customer>.accounts.wallet, an external account, an agent, a payment (its transaction) or <quote>.quote; ' +
      "in an invitation's inviterUma or a claim's inviteeUma a customer's $ref is that customer's UMA address",
  });
export type FixtureDocument = z.infer<typeof FixtureDocument>;
export type FixtureCustomer = z.infer<typeof FixtureCustomer>;
export type FixtureAgent = z.infer<typeof FixtureAgent>;
export type FixturePayment = z.infer<typeof FixturePayment>;
export type FixtureInvitation = z.infer<typeof FixtureInvitation>;

export const FixtureResult = z
  .object({
    refs: z
      .record(z.string(), z.string())
      .meta({ description: "Each name (and <customer>.accounts.<CURRENCY>) to its id (an invitation's: its code)" }),
    counts: z.object({
      customers: z.int(),
      verifications: z.int(),
      fundings: z.int(),
      externalAccounts: z.int(),
      walletCredentials: z.int(),
      agents: z.int(),
      payments: z.int(),
      settled: z.int(),
      invitations: z.int(),
    }),
    agents: z
      .record(z.string(), z.union([z.object({ deviceCode: AgentDeviceCode }), DeviceCodeRedeem]))
      .meta({ description: 'Per agent (its ref, else its id): its device code, or with "redeem": true its access token' }),
  })
  .meta({ id: 'SandboxFixtureResult' });
export type FixtureResult = z.infer<typeof FixtureResult>;
