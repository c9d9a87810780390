import { z } from 'zod';
import { CurrencyCode } from '../common/currencies';
import { Address, CountryCode, DateOnly, Email, text } from '../common/fields';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';

const optionalContact = {
  email: Email.optional(),
  phoneNumber: text(32).optional(),
  countryOfResidence: CountryCode.optional(),
};

const individual = (addressRequired: boolean) =>
  z.object({
    beneficiaryType: z.literal('INDIVIDUAL'),
    fullName: text(),
    birthDate: DateOnly.optional(),
    nationality: CountryCode.optional(),
    ...optionalContact,
    address: addressRequired ? Address : Address.optional(),
  });

export const BusinessBeneficiary = z
  .object({
    beneficiaryType: z.literal('BUSINESS'),
    legalName: text(),
    registrationNumber: text(64).optional(),
    taxId: text(64).optional(),
    ...optionalContact,
    address: Address.optional(),
  })
  .meta({ id: 'BusinessBeneficiary' });

const beneficiary = (id: string, addressRequired = false) =>
  z.discriminatedUnion('beneficiaryType', [individual(addressRequired).meta({ id }), BusinessBeneficiary]);
export type Beneficiary = { beneficiaryType: 'INDIVIDUAL'; fullName: string } | { beneficiaryType: 'BUSINESS'; legalName: string };

const UsdAccount = z
  .object({
    accountType: z.literal('USD_ACCOUNT'),
    accountNumber: z.string().regex(/^[0-9]{4,17}$/, 'Must be 4 to 17 digits'),
    routingNumber: z.string().regex(/^[0-9]{9}$/, 'Must be a 9-digit ABA routing number'),
    bankAccountType: z.enum(['CHECKING', 'SAVINGS']).optional(),
    bankName: text().optional(),
    beneficiary: beneficiary('UsdBeneficiary'),
  })
  .meta({ id: 'UsdExternalAccountCreateInfo' });

const EurAccount = z
  .object({
    accountType: z.literal('EUR_ACCOUNT'),
    iban: z.string().regex(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, 'Must be an IBAN such as DE89370400440532013000'),
    swiftCode: z
      .string()
      .regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'Must be an 8 or 11 character SWIFT/BIC code')
      .optional(),
    beneficiary: beneficiary('EurBeneficiary', true),
  })
  .meta({ id: 'EurExternalAccountCreateInfo' });

const MxnAccount = z
  .object({
    accountType: z.literal('MXN_ACCOUNT'),
    clabeNumber: z.string().regex(/^[0-9]{18}$/, 'Must be an 18-digit CLABE'),
    beneficiary: beneficiary('MxnBeneficiary'),
  })
  .meta({ id: 'MxnExternalAccountCreateInfo' });

const GbpAccount = z
  .object({
    accountType: z.literal('GBP_ACCOUNT'),
    sortCode: z.string().regex(/^[0-9]{6}$/, 'Must be a 6-digit sort code'),
    accountNumber: z.string().regex(/^[0-9]{8}$/, 'Must be an 8-digit account number'),
    beneficiary: beneficiary('GbpBeneficiary'),
  })
  .meta({ id: 'GbpExternalAccountCreateInfo' });

const SparkWallet = z
  .object({
    accountType: z.literal('SPARK_WALLET'),
    address: z.string().regex(/^spark1[a-z0-9]{10,120}$/, 'Must be a Spark address (spark1...)'),
  })
  .meta({ id: 'SparkWalletExternalAccountInfo' });

const Lightning = z
  .object({
    accountType: z.literal('LIGHTNING'),
    invoice: z
      .string()
      .regex(/^ln(bc|tb|bcrt)[a-z0-9]{10,2000}$/i, 'Must be a bolt11 invoice')
      .optional(),
    bolt12: z
      .string()
      .regex(/^lno1[a-z0-9]{10,2000}$/i, 'Must be a bolt12 offer (lno1...)')
      .optional(),
    lightningAddress: z
      .string()
      .regex(/^[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9.-]{1,253}\.[a-zA-Z]{2,}$/, 'Must be a lightning address such as alice@wallet.example')
      .optional(),
  })
  .refine((l) => [l.invoice, l.bolt12, l.lightningAddress].filter((v) => v !== undefined).length === 1, {
    message: 'Exactly one of invoice, bolt12 or lightningAddress is required',
  })
  .meta({ id: 'LightningExternalAccountInfo' });

const EVM = /^0x[0-9a-fA-F]{40}$/;
const wallet = <T extends string>(type: T, pattern: RegExp, hint: string, id: string) =>
  z.object({ accountType: z.literal(type), address: z.string().regex(pattern, hint) }).meta({ id });

/** The account-info variants accepted on creation (a subset of the reference `ExternalAccountCreateInfoOneOf`). */
export const ExternalAccountCreateInfo = z
  .discriminatedUnion('accountType', [
    UsdAccount,
    EurAccount,
    MxnAccount,
    GbpAccount,
    SparkWallet,
    Lightning,
    wallet('SOLANA_WALLET', /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'Must be a base58 Solana address', 'SolanaWalletExternalAccountInfo'),
    wallet('TRON_WALLET', /^T[1-9A-HJ-NP-Za-km-z]{33}$/, 'Must be a Tron address (T...)', 'TronWalletExternalAccountInfo'),
    wallet('ETHEREUM_WALLET', EVM, 'Must be a 0x-prefixed 20-byte hex address', 'EthereumWalletExternalAccountInfo'),
    wallet('BASE_WALLET', EVM, 'Must be a 0x-prefixed 20-byte hex address', 'BaseWalletExternalAccountInfo'),
    wallet('POLYGON_WALLET', EVM, 'Must be a 0x-prefixed 20-byte hex address', 'PolygonWalletExternalAccountInfo'),
  ])
  .meta({ id: 'ExternalAccountCreateInfo' });
export type ExternalAccountCreateInfo = z.infer<typeof ExternalAccountCreateInfo>;

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

export const ExternalAccountStatus = z.enum(['PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE']).meta({ id: 'ExternalAccountStatus' });
export const BeneficiaryVerificationStatus = z
  .enum(['MATCHED', 'PARTIAL_MATCH', 'NOT_MATCHED', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI', 'PENDING'])
  .meta({ id: 'BeneficiaryVerificationStatus' });

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
    accountInfo: z
      .object({ accountType: z.string() })
      .catchall(z.unknown())
      .meta({ id: 'ExternalAccountInfo', description: 'The account info as created, with `paymentRails` for bank accounts' }),
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
