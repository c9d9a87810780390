// The internal-account schemas: the account, its lists and filters, its privacy update, sandbox funding.
import * as z from 'zod';
import { InternalAccountStatus, InternalAccountType } from '../db/enums';
import { Currency } from '../common/currencies';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';

export const CurrencyAmount = z.object({ amount: z.int(), currency: Currency }).meta({ id: 'CurrencyAmount' });

/** One way to pay into an account: bank details or a wallet address, by `accountType` (reference `PaymentInstructions`). */
export const PaymentInstructions = z
  .object({
    instructionsNotes: z.string().optional(),
    isPlatformAccount: z.boolean().optional(),
    accountOrWalletInfo: z
      .object({ accountType: z.string() })
      .catchall(z.unknown())
      .meta({ description: 'USD_ACCOUNT, EUR_ACCOUNT, MXN_ACCOUNT, ... bank details, or SPARK_WALLET / SOLANA_WALLET addresses' }),
  })
  .meta({ id: 'PaymentInstructions' });
export type PaymentInstructions = z.infer<typeof PaymentInstructions>;

export const InternalAccount = z
  .object({
    id: z.string().meta({ example: 'InternalAccount:019542f5-b3e7-1d02-0000-000000000001' }),
    customerId: z.string().optional().meta({ description: "Absent for the platform's own accounts" }),
    type: InternalAccountType,
    status: InternalAccountStatus,
    balance: CurrencyAmount,
    fundingPaymentInstructions: z.array(PaymentInstructions),
    privateEnabled: z.boolean().optional().meta({ description: 'Only for EMBEDDED_WALLET accounts' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'InternalAccount' });
export type InternalAccountView = z.infer<typeof InternalAccount>;

export const InternalAccountList = pageOf(InternalAccount, 'InternalAccountListResponse');
export const PlatformInternalAccountList = z.object({ data: z.array(InternalAccount) }).meta({ id: 'PlatformInternalAccountListResponse' });

const CurrencyFilter = z.string().max(8).optional().meta({ description: 'Filter by currency code' });

export const InternalAccountListQuery = z.object({
  currency: CurrencyFilter,
  customerId: z.string().max(128).optional(),
  type: InternalAccountType.optional(),
  limit: limitParam,
  cursor: cursorParam,
});
export type InternalAccountListQuery = z.infer<typeof InternalAccountListQuery>;

export const PlatformInternalAccountListQuery = z.object({ currency: CurrencyFilter, type: InternalAccountType.optional() });

export const SandboxFundRequest = z
  .strictObject({
    amount: z
      .int({ error: 'Must be an integer' })
      .positive()
      .max(100_000_000_000)
      .meta({ description: "Smallest unit of the account's currency", example: 100000 }),
  })
  .meta({ id: 'SandboxFundRequest' });

export const AccountIdParams = z.object({ accountId: z.string().max(128) });

/** PATCH /internal-accounts/{id}: an embedded wallet's privacy. */
export const InternalAccountUpdate = z.strictObject({ privateEnabled: z.boolean() }).meta({ id: 'InternalAccountUpdateRequest' });
export const InternalAccountIdParams = z.object({ id: z.string() });
