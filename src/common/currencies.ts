// The currency catalogue and its schemas: one row of data per currency.
import * as z from 'zod';

export const CustomerInfoFieldName = z
  .enum([
    'FULL_NAME',
    'BIRTH_DATE',
    'NATIONALITY',
    'PHONE_NUMBER',
    'EMAIL',
    'POSTAL_ADDRESS',
    'TAX_ID',
    'REGISTRATION_NUMBER',
    'USER_TYPE',
    'COUNTRY_OF_RESIDENCE',
    'ACCOUNT_IDENTIFIER',
    'FI_LEGAL_ENTITY_NAME',
    'FI_ADDRESS',
    'PURPOSE_OF_PAYMENT',
    'ULTIMATE_INSTITUTION_COUNTRY',
    'IDENTIFIER',
    'BUSINESS_TYPE',
    'COMPANY_LEGAL_NAME',
  ])
  .meta({ id: 'CustomerInfoFieldName' });
export type CustomerInfoFieldName = z.infer<typeof CustomerInfoFieldName>;

export const Currency = z
  .object({ code: z.string(), name: z.string(), symbol: z.string(), decimals: z.int().min(0) })
  .meta({ id: 'Currency' });
export type Currency = z.infer<typeof Currency>;

interface CurrencyInfo extends Currency {
  kind: 'FIAT' | 'CRYPTO';
  /** Customer fields the payout provider needs before this currency can be used. */
  customerFields: CustomerInfoFieldName[];
  /** Counterparty fields the payout provider needs on payments in this currency. */
  counterpartyFields: CustomerInfoFieldName[];
}

const KYC: CustomerInfoFieldName[] = ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY', 'POSTAL_ADDRESS'];

/**
 * Currencies the service can hold and move: every fiat currency of the external-account corridors, JPY, ARS
 * (real-time funding from Argentina; paid out only through SWIFT: the reference has no ARS account type), and
 * the crypto assets. Fiat codes and names are ISO 4217; decimals are the minor-unit exponent (0 for
 * JPY, RWF, UGX, VND, XAF, XOF: amounts are whole units).
 */
const CATALOGUE: CurrencyInfo[] = [
  {
    code: 'USD',
    name: 'United States Dollar',
    symbol: '$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME'],
  },
  { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  { code: 'GBP', name: 'Pound Sterling', symbol: '£', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'CAD',
    name: 'Canadian Dollar',
    symbol: 'CA$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME'],
  },
  {
    code: 'MXN',
    name: 'Mexican Peso',
    symbol: 'MX$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'TAX_ID'],
  },
  {
    code: 'BRL',
    name: 'Brazilian Real',
    symbol: 'R$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: [...KYC, 'TAX_ID'],
    counterpartyFields: ['FULL_NAME', 'TAX_ID'],
  },
  {
    code: 'INR',
    name: 'Indian Rupee',
    symbol: '₹',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PURPOSE_OF_PAYMENT'],
  },
  {
    code: 'NGN',
    name: 'Nigerian Naira',
    symbol: '₦',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'PHP',
    name: 'Philippine Peso',
    symbol: '₱',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'BIRTH_DATE'],
  },
  {
    code: 'KES',
    name: 'Kenyan Shilling',
    symbol: 'KSh',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  { code: 'JPY', name: 'Japanese Yen', symbol: '¥', decimals: 0, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'AED',
    name: 'UAE Dirham',
    symbol: 'د.إ',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'POSTAL_ADDRESS'],
  },
  {
    code: 'ARS',
    name: 'Argentine Peso',
    symbol: '$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: [...KYC, 'TAX_ID'],
    counterpartyFields: ['FULL_NAME', 'TAX_ID'],
  },
  { code: 'BDT', name: 'Taka', symbol: '৳', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'BWP',
    name: 'Pula',
    symbol: 'P',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'COP',
    name: 'Colombian Peso',
    symbol: 'COL$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME'],
  },
  { code: 'DKK', name: 'Danish Krone', symbol: 'kr.', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'EGP',
    name: 'Egyptian Pound',
    symbol: 'E£',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER', 'POSTAL_ADDRESS'],
  },
  { code: 'GHS', name: 'Ghana Cedi', symbol: 'GH₵', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'GTQ',
    name: 'Quetzal',
    symbol: 'Q',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'HKD',
    name: 'Hong Kong Dollar',
    symbol: 'HK$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME'],
  },
  {
    code: 'HTG',
    name: 'Gourde',
    symbol: 'G',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'IDR',
    name: 'Rupiah',
    symbol: 'Rp',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'JMD',
    name: 'Jamaican Dollar',
    symbol: 'J$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER', 'POSTAL_ADDRESS'],
  },
  {
    code: 'MWK',
    name: 'Malawi Kwacha',
    symbol: 'MK',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'MYR',
    name: 'Malaysian Ringgit',
    symbol: 'RM',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME'],
  },
  { code: 'PKR', name: 'Pakistan Rupee', symbol: 'Rs', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'RWF',
    name: 'Rwanda Franc',
    symbol: 'FRw',
    decimals: 0,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'SGD',
    name: 'Singapore Dollar',
    symbol: 'S$',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME'],
  },
  { code: 'THB', name: 'Baht', symbol: '฿', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'TZS',
    name: 'Tanzanian Shilling',
    symbol: 'TSh',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'UGX',
    name: 'Uganda Shilling',
    symbol: 'USh',
    decimals: 0,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  { code: 'VND', name: 'Dong', symbol: '₫', decimals: 0, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'XAF',
    name: 'CFA Franc BEAC',
    symbol: 'FCFA',
    decimals: 0,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'XOF',
    name: 'CFA Franc BCEAO',
    symbol: 'CFA',
    decimals: 0,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  { code: 'ZAR', name: 'Rand', symbol: 'R', decimals: 2, kind: 'FIAT', customerFields: KYC, counterpartyFields: ['FULL_NAME'] },
  {
    code: 'ZMW',
    name: 'Zambian Kwacha',
    symbol: 'ZK',
    decimals: 2,
    kind: 'FIAT',
    customerFields: KYC,
    counterpartyFields: ['FULL_NAME', 'PHONE_NUMBER'],
  },
  {
    code: 'BTC',
    name: 'Bitcoin',
    symbol: '₿',
    decimals: 8,
    kind: 'CRYPTO',
    customerFields: ['FULL_NAME', 'BIRTH_DATE'],
    counterpartyFields: [],
  },
  {
    code: 'USDC',
    name: 'USD Coin',
    symbol: 'USDC',
    decimals: 6,
    kind: 'CRYPTO',
    customerFields: ['FULL_NAME', 'BIRTH_DATE'],
    counterpartyFields: [],
  },
];

const BY_CODE = new Map(CATALOGUE.map((c) => [c.code, c]));

export const SUPPORTED_CURRENCY_CODES = CATALOGUE.map((c) => c.code);

/** A currency code the service supports (ISO 4217 for fiat, plus BTC and USDC). */
export const CurrencyCode = z
  .string()
  .regex(/^[A-Z]{3,4}$/, 'Must be an upper-case currency code such as USD')
  .refine((c) => BY_CODE.has(c), { message: `Unsupported currency; supported: ${SUPPORTED_CURRENCY_CODES.join(', ')}` })
  .meta({ description: 'Currency code (ISO 4217 for fiat; BTC and USDC for crypto)', example: 'USD' });

export function currencyInfo(code: string): CurrencyInfo {
  const info = BY_CODE.get(code);
  if (!info) throw new Error(`unknown currency ${code}`);
  return info;
}

/** The public Currency object of a code. */
export function currency(code: string): Currency {
  const { name, symbol, decimals } = currencyInfo(code);
  return { code, name, symbol, decimals };
}
