// The customer schemas: individuals and businesses, create, update, list and its filters.
import * as z from 'zod';
import { CustomerType } from '../db/enums';
import { CurrencyCode } from '../common/currencies';
import { Address, BooleanParam, CountryCode, DateOnly, Email, text } from '../common/fields';
import { DateTime, DateTimeParam } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';
import { BeneficialOwner } from './beneficial-owners';
import { KybStatus, KycStatus } from '../db/enums';

/** The local part of a UMA address: what may follow `$` and precede `@`. */
export const UMA_LOCAL_PART = /^[a-zA-Z0-9._+-]{1,64}$/;

export const UmaAddress = z
  .string()
  .trim()
  .max(320)
  .regex(/^\$?[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9.-]{1,253}$/, 'Must be a UMA address such as $alice@uma.example.com')
  .transform((a) => (a.startsWith('$') ? a : `$${a}`))
  .meta({ example: '$john.doe@uma.domain.com' });

const EntityType = z
  .enum(['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'OTHER'])
  .meta({ id: 'EntityType' });
const BusinessType = z
  .enum([
    'AGRICULTURE_FORESTRY_FISHING_AND_HUNTING',
    'MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION',
    'UTILITIES',
    'CONSTRUCTION',
    'MANUFACTURING',
    'WHOLESALE_TRADE',
    'RETAIL_TRADE',
    'TRANSPORTATION_AND_WAREHOUSING',
    'INFORMATION',
    'FINANCE_AND_INSURANCE',
    'REAL_ESTATE_AND_RENTAL_AND_LEASING',
    'PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES',
    'MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES',
    'ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES',
    'EDUCATIONAL_SERVICES',
    'HEALTH_CARE_AND_SOCIAL_ASSISTANCE',
    'ARTS_ENTERTAINMENT_AND_RECREATION',
    'ACCOMMODATION_AND_FOOD_SERVICES',
    'OTHER_SERVICES',
    'PUBLIC_ADMINISTRATION',
  ])
  .meta({ id: 'BusinessType' });
const PurposeOfAccount = z
  .enum([
    'CONTRACTOR_PAYOUTS',
    'CREATOR_PAYOUTS',
    'EMPLOYEE_PAYOUTS',
    'MARKETPLACE_SELLER_PAYOUTS',
    'SUPPLIER_PAYMENTS',
    'CROSS_BORDER_B2B',
    'AR_AUTOMATION',
    'AP_AUTOMATION',
    'EMBEDDED_PAYMENTS',
    'PLATFORM_FEE_COLLECTION',
    'P2P_TRANSFERS',
    'CHARITABLE_DONATIONS',
    'OTHER',
  ])
  .meta({ id: 'PurposeOfAccount' });

const Countries = z.array(CountryCode).max(250);

/** Every business field optional: the base the create, update and CSV shapes derive from. */
const BusinessInfoUpdate = z
  .strictObject({
    legalName: text(),
    doingBusinessAs: text().optional(),
    country: CountryCode.optional(),
    registrationNumber: text(64).optional(),
    incorporatedOn: DateOnly.optional(),
    entityType: EntityType.optional(),
    taxId: text(64).optional(),
    countriesOfOperation: Countries.optional(),
    businessType: BusinessType.optional(),
    purposeOfAccount: PurposeOfAccount.optional(),
    sourceOfFunds: text(1000).optional(),
    expectedMonthlyTransactionCount: z
      .enum(['COUNT_UNDER_10', 'COUNT_10_TO_100', 'COUNT_100_TO_500', 'COUNT_500_TO_1000', 'COUNT_OVER_1000'])
      .optional(),
    expectedMonthlyTransactionVolume: z
      .enum(['VOLUME_UNDER_10K', 'VOLUME_10K_TO_100K', 'VOLUME_100K_TO_1M', 'VOLUME_1M_TO_10M', 'VOLUME_OVER_10M'])
      .optional(),
    expectedRecipientJurisdictions: Countries.optional(),
  })
  .partial()
  .meta({ id: 'BusinessInfoUpdate' });
export type BusinessInfo = z.infer<typeof BusinessInfoUpdate>;

/** On API creation legal name, tax id and incorporation date are required (reference `BusinessInfo`). */
const BusinessInfoCreate = BusinessInfoUpdate.required({ legalName: true, taxId: true, incorporatedOn: true }).meta({
  id: 'BusinessInfo',
});
/** The CSV import carries only the legal name as required (reference CSV format). */
const BusinessInfoCsv = BusinessInfoUpdate.required({ legalName: true });

const BusinessInfoResponse = BusinessInfoUpdate.required({ legalName: true }).meta({ id: 'BusinessInfoResponse' });

const commonCreate = {
  platformCustomerId: text(128)
    .optional()
    .meta({ description: 'Your identifier for the customer; unique among active customers. Generated when omitted.' }),
  region: CountryCode.optional(),
  currencies: z
    .array(CurrencyCode)
    .max(20)
    .refine((c) => new Set(c).size === c.length, { message: 'Each currency may appear only once' })
    .optional()
    .meta({ description: "Currencies the customer uses; must be among the platform's supported currencies. Defaults to all of them." }),
  email: Email.optional(),
  umaAddress: UmaAddress.optional().meta({
    description:
      "UMA address on the platform's umaDomain, unique among the platform's customers whatever the case of its letters (409 UMA_ADDRESS_EXISTS); defaults to `$<platformCustomerId>@<umaDomain>`",
  }),
};

const individualFields = {
  kycStatus: KycStatus.optional().meta({ description: 'Settable only by regulated platforms, which KYC their own customers' }),
  fullName: text().optional(),
  birthDate: DateOnly.optional(),
  nationality: CountryCode.optional(),
  address: Address.optional(),
};

const IndividualCustomerCreate = z
  .strictObject({ customerType: z.literal('INDIVIDUAL'), ...commonCreate, ...individualFields })
  .meta({ id: 'IndividualCustomerCreateRequest' });

function businessCreate<B extends z.ZodType>(businessInfo: B) {
  return z.strictObject({
    customerType: z.literal('BUSINESS'),
    ...commonCreate,
    kybStatus: KybStatus.optional().meta({ description: 'Settable only by regulated platforms, which KYB their own customers' }),
    address: Address.optional(),
    businessInfo,
  });
}

// The reference leaves businessInfo out of the create request's required list: KYB asks for it later.
const BusinessCustomerCreate = businessCreate(BusinessInfoCreate.optional()).meta({ id: 'BusinessCustomerCreateRequest' });

export const CustomerCreate = z
  .discriminatedUnion('customerType', [IndividualCustomerCreate, BusinessCustomerCreate])
  .meta({ id: 'CustomerCreateRequest' });

/** What a CSV row becomes: the API shape with the CSV's looser business requirements. */
export const CsvCustomerCreate = z.discriminatedUnion('customerType', [
  IndividualCustomerCreate,
  businessCreate(BusinessInfoCsv.optional()),
]);
export type CustomerCreate = z.infer<typeof CsvCustomerCreate>;

const commonUpdate = {
  currencies: commonCreate.currencies,
  email: Email.optional(),
  umaAddress: UmaAddress.optional(),
};

const IndividualCustomerUpdate = z
  .strictObject({ customerType: z.literal('INDIVIDUAL'), ...commonUpdate, ...individualFields })
  .meta({ id: 'IndividualCustomerUpdateRequest' });
const BusinessCustomerUpdate = z
  .strictObject({
    customerType: z.literal('BUSINESS'),
    ...commonUpdate,
    kybStatus: KybStatus.optional(),
    address: Address.optional(),
    businessInfo: BusinessInfoUpdate.optional().meta({
      description: 'Merged field by field into the stored business info; the first one given must carry legalName',
    }),
  })
  .meta({ id: 'BusinessCustomerUpdateRequest' });
export const CustomerUpdate = z
  .discriminatedUnion('customerType', [IndividualCustomerUpdate, BusinessCustomerUpdate])
  .meta({ id: 'CustomerUpdateRequest', description: 'Omitted fields are unchanged; `customerType` must be the current one.' });
export type CustomerUpdate = z.infer<typeof CustomerUpdate>;

const commonView = {
  id: z.string().meta({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' }),
  platformCustomerId: z.string(),
  region: z.string().optional(),
  currencies: z.array(z.string()),
  email: z.string().optional(),
  umaAddress: z.string(),
  createdAt: DateTime,
  updatedAt: DateTime,
  isDeleted: z.boolean(),
};

export const IndividualCustomer = z
  .object({
    ...commonView,
    customerType: z.literal('INDIVIDUAL'),
    kycStatus: KycStatus,
    fullName: z.string().optional(),
    birthDate: z.string().optional(),
    nationality: z.string().optional(),
    address: Address.optional(),
  })
  .meta({ id: 'IndividualCustomer' });

export const BusinessCustomer = z
  .object({
    ...commonView,
    customerType: z.literal('BUSINESS'),
    kybStatus: KybStatus,
    address: Address.optional(),
    businessInfo: BusinessInfoResponse.optional().meta({ description: 'Absent until given (creation or update)' }),
    beneficialOwners: z.array(BeneficialOwner),
  })
  .meta({ id: 'BusinessCustomer' });

export const Customer = z.discriminatedUnion('customerType', [IndividualCustomer, BusinessCustomer]).meta({ id: 'Customer' });
export type CustomerView = z.infer<typeof Customer>;

export const CustomerList = pageOf(Customer, 'CustomerListResponse');

export const CustomerListQuery = z.object({
  platformCustomerId: z.string().max(128).optional(),
  customerType: CustomerType.optional(),
  createdAfter: DateTimeParam,
  createdBefore: DateTimeParam,
  updatedAfter: DateTimeParam,
  updatedBefore: DateTimeParam,
  region: CountryCode.optional(),
  currency: z.string().max(8).optional(),
  umaAddress: z.string().max(320).optional(),
  search: z
    .string()
    .max(128)
    // An empty term (a cleared search box) is no search.
    .transform((term) => (term === '' ? undefined : term))
    .optional()
    .meta({
      description:
        'Case-insensitive (ASCII letters) substring, of any length from one character, of the platformCustomerId, the full name (INDIVIDUAL), the legal name (BUSINESS) or the e-mail; % and _ are ordinary characters. Matches come in the order the customers were stored, without totalCount',
      example: 'smith',
    }),
  isIncludingDeleted: BooleanParam.optional().meta({ description: 'Include deleted customers (default false)' }),
  limit: limitParam,
  cursor: cursorParam,
});
export type CustomerListQuery = z.infer<typeof CustomerListQuery>;

export const CustomerIdParams = z.object({ customerId: z.string().max(128) });
