// The shapes of the JSON columns whose values the API sets (a platform's currencies and wallet settings, an
// agent's policy and transfer details), as zod schemas with their OpenAPI ids: the tables type their columns
// with them, and the owning area's API schemas build on them, so db/ imports no area.
import * as z from 'zod';
import { CurrencyCode, CustomerInfoFieldName } from '../common/currencies';
import { TransactionType } from './enums';

// --- platforms ---

export const HttpUrl = z.url({ protocol: /^https?$/, error: 'Must be an http(s) URL' }).max(2048);

export const CounterpartyFieldDefinition = z
  .object({ name: CustomerInfoFieldName, mandatory: z.boolean() })
  .meta({ id: 'CounterpartyFieldDefinition' });

/** A supported currency as the platform sets it (`platforms.supported_currencies` holds a list of them). */
export const CurrencyConfig = z.object({
  currencyCode: CurrencyCode,
  minAmount: z.int().min(0).meta({ description: 'Smallest amount, in the smallest unit' }),
  maxAmount: z.int().min(0).meta({ description: 'Largest amount, in the smallest unit' }),
  enabledTransactionTypes: z.array(TransactionType).max(2),
  requiredCounterpartyFields: z.array(CounterpartyFieldDefinition).max(32),
});
export type CurrencyConfig = z.infer<typeof CurrencyConfig>;

/** Text that goes into e-mail headers: one line, no control characters (CR/LF would inject headers). */
const HeaderText = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\p{Cc}\u2028\u2029]*$/u, 'Must be one line without control characters');

/** Exactly one plain address (no display name, no list): it becomes an e-mail header. */
const EmailAddress = z.email('Must be one plain e-mail address, such as noreply@example.com').max(255);

/** Embedded-wallet settings (`platforms.embedded_wallet_config`); every field optional on input, merged field by field. */
export const WalletConfig = z.strictObject({
  appName: HeaderText.optional(),
  sendFromEmailAddress: EmailAddress.optional(),
  sendFromEmailSenderName: HeaderText.optional(),
  replyToEmailAddress: EmailAddress.optional(),
  logoUrl: HttpUrl.max(512).optional(),
  otpLength: z.int().min(4).max(12).optional().meta({ description: 'OTP length; default 6' }),
  alphanumeric: z.boolean().optional().meta({ description: 'Letters as well as digits in the OTP; default false' }),
  expirationSeconds: z.int().min(1).max(86400).optional().meta({ description: 'OTP validity; default 300' }),
});
export type WalletConfig = z.infer<typeof WalletConfig>;

// --- agents ---

export const AgentPermission = z
  .enum(['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'])
  .meta({ id: 'AgentPermission' });
export type AgentPermission = z.infer<typeof AgentPermission>;

export const AgentExecutionMode = z.enum(['AUTO', 'APPROVAL_REQUIRED']).meta({ id: 'AgentExecutionMode' });

const PolicyAmount = z.int().min(0).meta({ description: 'Smallest unit of the policy currency' });

export const AgentSpendingLimits = z
  .strictObject({
    currency: CurrencyCode,
    perTransactionLimit: PolicyAmount,
    dailyLimit: PolicyAmount.nullable().optional(),
    dailyTransactionLimit: z.int().min(0).optional(),
    monthlyLimit: PolicyAmount.nullable().optional(),
  })
  .meta({ id: 'AgentSpendingLimits' });

export const AgentAccountRule = z
  .strictObject({
    accountId: z.string().min(1).max(128),
    executionMode: AgentExecutionMode.optional(),
    perTransactionLimit: PolicyAmount.nullable().optional(),
  })
  .meta({ id: 'AgentAccountRule' });

export const AgentAccountRestrictions = z
  .strictObject({
    allowedAccountIds: z.array(z.string().min(1).max(128)).max(100).nullable().optional(),
    accountRules: z.array(AgentAccountRule).max(100).optional(),
  })
  .meta({ id: 'AgentAccountRestrictions' });

export const AgentApprovalThresholds = z
  .strictObject({ currency: CurrencyCode.optional(), amount: PolicyAmount.nullable().optional() })
  .refine((t) => t.amount === undefined || t.amount === null || t.currency !== undefined, {
    message: 'currency is required when amount is set',
    path: ['currency'],
  })
  .meta({ id: 'AgentApprovalThresholds' });

/** An agent's policy (`agents.policy`). */
export const AgentPolicy = z
  .strictObject({
    permissions: z.array(AgentPermission).max(5),
    defaultExecutionMode: AgentExecutionMode,
    spendingLimits: AgentSpendingLimits,
    accountRestrictions: AgentAccountRestrictions.optional(),
    approvalThresholds: AgentApprovalThresholds.optional(),
  })
  .meta({ id: 'AgentPolicy' });
export type AgentPolicy = z.infer<typeof AgentPolicy>;

/** What a transfer action moves (`agent_actions.transfer_details`). */
export const AgentTransferDetails = z
  .object({ amount: z.int(), currency: z.string(), sourceAccountId: z.string(), destinationAccountId: z.string() })
  .meta({ id: 'AgentTransferDetails' });
export type AgentTransferDetails = z.infer<typeof AgentTransferDetails>;
