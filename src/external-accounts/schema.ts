// The external-account schemas: create (customer and platform), the account, list and filters.
import * as z from 'zod';
import { BeneficiaryVerificationStatus, ExternalAccountStatus } from '../db/enums';
import { CurrencyCode } from '../common/currencies';
import { text } from '../common/fields';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';
import { ExternalAccountCreateInfo, ExternalAccountInfo } from './corridors';

const createFields = {
  currency: CurrencyCode,
  platformAccountId: text(255).optional().meta({ description: 'Your identifier for the account' }),
  accountInfo: ExternalAccountCreateInfo,
};

export const ExternalAccountCreate = z
  .strictObject({
    customerId: z
      .string()
      .max(128)
      .optional()
      .meta({ description: "The customer owning the account; omitted means the platform's own account" }),
    ...createFields,
    defaultUmaDepositAccount: z.boolean().default(false),
  })
  .meta({ id: 'ExternalAccountCreateRequest' });
export type ExternalAccountCreate = z.infer<typeof ExternalAccountCreate>;

export const PlatformExternalAccountCreate = z.strictObject(createFields).meta({ id: 'PlatformExternalAccountCreateRequest' });

export const ExternalAccount = z
  .object({
    id: z.string().meta({ example: 'ExternalAccount:019542f5-b3e7-1d02-0000-000000000001' }),
    customerId: z.string().optional().meta({ description: "Absent for the platform's own accounts" }),
    status: ExternalAccountStatus,
    platformAccountId: z.string().optional(),
    currency: z.string(),
    defaultUmaDepositAccount: z.boolean(),
    beneficiaryVerificationStatus: BeneficiaryVerificationStatus.optional(),
    beneficiaryVerifiedData: z.object({ fullName: z.string().optional() }).optional().meta({ id: 'BeneficiaryVerifiedData' }),
    accountInfo: ExternalAccountInfo,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'ExternalAccount' });
export type ExternalAccountView = z.infer<typeof ExternalAccount>;

export const ExternalAccountList = pageOf(ExternalAccount, 'ExternalAccountListResponse');

export const ExternalAccountListQuery = z.object({
  currency: z.string().max(8).optional(),
  customerId: z.string().max(128).optional(),
  limit: limitParam,
  cursor: cursorParam,
});
export type ExternalAccountListQuery = z.infer<typeof ExternalAccountListQuery>;
export const PlatformExternalAccountListQuery = ExternalAccountListQuery.omit({ customerId: true });

export const ExternalAccountIdParams = z.object({ externalAccountId: z.string().max(128) });
