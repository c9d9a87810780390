// The corridor catalogue: one declarative entry per external account type.
import * as z from 'zod';
import { CountryCode } from '../../common/fields';
import {
  base58Bytes,
  bolt11Words,
  bolt12Words,
  cnpjValid,
  cpfValid,
  EMAIL,
  evmAddressValid,
  solanaAddressValid,
  sparkWords,
  tronPayload,
  UPI_VPA,
  UUID,
} from '../../common/identifiers';
import { corridor, institutions, payloadSuffix, textSuffix, type Institution, type NetworkFee } from './define';
import {
  accountNumber,
  bankAccountType,
  bankName,
  beneficiary,
  bic,
  clabeNumber,
  copDocument,
  digits,
  iban,
  phone,
  provider,
  routingNumber,
  sameBic,
  str,
  swiftCode,
} from './fields';

/**
 * Every external-account type of the reference `ExternalAccountCreateInfoOneOf`: one declarative entry
 * each. Field shapes and required lists are the reference's; identifiers are also checked by their public
 * rules (IBAN mod 97 and length, CLABE and ABA check digits, CPF/CNPJ, E.164, EIP-55, base58check, bech32).
 */

const mobileMoney = <const T extends string>(
  accountType: T,
  name: string,
  [currency, country]: [string, string],
  phoneShape?: RegExp,
  example = '+1234567890',
) =>
  corridor({
    accountType,
    name,
    currency,
    rails: ['MOBILE_MONEY'],
    countries: [country],
    identifier: ['phoneNumber'],
    fields: { phoneNumber: phone(phoneShape), provider, beneficiary: beneficiary(name) },
    example: { accountType, phoneNumber: example, provider: 'Example Provider' },
  });

/** Banks paid by account number, bank name and SWIFT/BIC code (reference: HKD, IDR, MYR, SGD, THB, VND). */
const swiftBank = <const T extends string, S extends z.ZodRawShape>(
  accountType: T,
  name: string,
  country: string,
  rails: ('BANK_TRANSFER' | 'PAYNOW' | 'FAST')[],
  example: Record<string, unknown>,
  extra: S,
  banks: Institution[],
) =>
  corridor({
    accountType,
    name,
    currency: accountType.slice(0, 3),
    rails,
    countries: [country],
    identifier: ['accountNumber'],
    fields: { bankName, accountNumber, swiftCode, ...extra, beneficiary: beneficiary(name) },
    institutions: banks,
    example: { accountType, bankName: 'Example Bank', accountNumber: '1234567890', ...example },
  });

const CNPJ_SHAPE = '12 digits or capital letters, then 2 check digits';
const CNPJ_MESSAGE = `Must be a valid CNPJ (${CNPJ_SHAPE})`;

const PIX_KEY_RULES: Record<string, [(key: string) => boolean, string]> = {
  CPF: [cpfValid, 'Must be a valid CPF (11 digits with check digits)'],
  CNPJ: [cnpjValid, CNPJ_MESSAGE],
  EMAIL: [(k) => EMAIL.test(k), 'Must be an e-mail address'],
  PHONE: [(k) => /^\+55[1-9][0-9]{9,10}$/.test(k), 'Must be a Brazilian phone number in E.164 (+55 and 10 or 11 digits)'],
  RANDOM: [(k) => UUID.test(k), 'Must be a random key (EVP): a UUID'],
};

/** An ERC-20 USDC transfer (about 65,000 gas) at a typical gas price of the chain, in wei of its fee asset. */
const erc20 = (network: string, feeAsset: string, gwei: number, feeAssetUsd: number): NetworkFee => ({
  network,
  feeAsset,
  feeAssetDecimals: 18,
  fee: Math.round(65_000 * gwei * 1e9),
  feeAssetUsd,
});

const evmWallet = <const T extends string>(accountType: T, name: string, network: NetworkFee) =>
  corridor({
    accountType,
    name,
    currency: 'USDC',
    rails: [],
    identifier: ['address'],
    network,
    fields: {
      address: z
        .string()
        .refine(evmAddressValid, 'Must be a 0x-prefixed 20-byte hex address (EIP-55 checksum when mixed case)')
        .meta({ example: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e' }),
    },
    example: { accountType, address: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e' },
  });

/** A BOLT 11 invoice (the reference's example). */
const BOLT11_EXAMPLE =
  'lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwxhydvlemu9pqr93tuzlv9cc7g3sdqsvfhkcap3xyhx7un8cqzpgxqzjcsp5f8c52y2stc300gl6s4xswtjpc37hrnnr3c9wvtgjfuvqmpm35evq9qyyssqy4lgd8tj637qcjp05rdpxxykjenthxftej7a2zzmwrmrl70fyj9hvj0rewhzj7jfyuwkwcg9g2jpwtk3wkjtwnkdks84hsnu8xps5vsq4gj5hs';

/** A Spark address (bech32m of an identity public key); the reference's example fails its checksum. */
const SPARK_EXAMPLE = 'spark1pgss9ev456vvtxsexs9r3ruq6we68qhjwqzg7nrwyfq4tgtea2gxx5xc4kr7vd';

/** The countries of the SEPA scheme, where EUR accounts are paid by SEPA transfer. */
const SEPA_COUNTRIES = [
  ...['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT'],
  ...['NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'IS', 'LI', 'NO', 'CH', 'GB', 'GI', 'MC', 'SM', 'VA', 'AD'],
];
const XAF_REGIONS = ['CM', 'CG'] as const;
const XOF_REGIONS = ['BJ', 'CI', 'SN', 'TG'] as const;

export const CORRIDORS = [
  corridor({
    accountType: 'AED_ACCOUNT',
    name: 'Aed',
    currency: 'AED',
    rails: ['BANK_TRANSFER'],
    countries: ['AE'],
    identifier: ['iban'],
    fields: { iban: iban(/^AE[0-9]{21}$/, [23, 23]), swiftCode: swiftCode.optional(), beneficiary: beneficiary('Aed', ['address']) },
    example: { accountType: 'AED_ACCOUNT', iban: 'AE070331234567890123456', swiftCode: 'EBILAEAD' },
  }),
  corridor({
    accountType: 'BDT_ACCOUNT',
    name: 'Bdt',
    currency: 'BDT',
    rails: ['BANK_TRANSFER', 'MOBILE_MONEY'],
    countries: ['BD'],
    identifier: ['accountNumber', 'phoneNumber'],
    fields: {
      accountNumber: accountNumber.optional(),
      branchCode: digits(5, 5).optional(),
      swiftCode: swiftCode.optional(),
      phoneNumber: phone().optional(),
      beneficiary: beneficiary('Bdt'),
    },
    example: {
      accountType: 'BDT_ACCOUNT',
      accountNumber: '1234567890',
      branchCode: '11111',
      swiftCode: 'DEUTDEFF',
      phoneNumber: '+1234567890',
    },
  }),
  corridor({
    accountType: 'BRL_ACCOUNT',
    name: 'Brl',
    currency: 'BRL',
    rails: ['PIX'],
    countries: ['BR'],
    identifier: ['pixKey'],
    fields: {
      pixKey: str(1, 77).meta({ description: 'The PIX key, in the shape of its pixKeyType' }),
      pixKeyType: z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM']),
      taxId: str(11, 14)
        .refine((t) => (t.length === 11 ? cpfValid(t) : cnpjValid(t)), `Must be a valid CPF (11 digits) or CNPJ (${CNPJ_SHAPE})`)
        .meta({ description: "The beneficiary's CPF or CNPJ" }),
      beneficiary: beneficiary('Brl'),
    },
    check: (info, ctx) => {
      const [valid, message] = PIX_KEY_RULES[info.pixKeyType as string]!;
      if (!valid(info.pixKey as string)) ctx.addIssue({ code: 'custom', path: ['pixKey'], message });
    },
    example: { accountType: 'BRL_ACCOUNT', pixKey: 'user@example.com', pixKeyType: 'EMAIL', taxId: '52998224725' },
  }),
  mobileMoney('BWP_ACCOUNT', 'Bwp', ['BWP', 'BW']),
  corridor({
    accountType: 'CAD_ACCOUNT',
    name: 'Cad',
    currency: 'CAD',
    rails: ['BANK_TRANSFER'],
    countries: ['CA'],
    identifier: ['accountNumber'],
    fields: {
      bankCode: digits(3, 3).meta({ description: 'Institution number', example: '001' }),
      branchCode: digits(5, 5).meta({ description: 'Transit number', example: '00012' }),
      accountNumber: digits(7, 12),
      beneficiary: beneficiary('Cad'),
    },
    example: { accountType: 'CAD_ACCOUNT', bankCode: '001', branchCode: '00012', accountNumber: '1234567' },
  }),
  corridor({
    accountType: 'COP_ACCOUNT',
    name: 'Cop',
    currency: 'COP',
    rails: ['BANK_TRANSFER', 'MOBILE_MONEY'],
    countries: ['CO'],
    identifier: ['accountNumber', 'phoneNumber'],
    fields: {
      bankName: bankName.optional(),
      accountNumber: accountNumber.optional(),
      bankAccountType: bankAccountType.optional(),
      phoneNumber: phone().optional(),
      beneficiary: beneficiary('Cop', [], copDocument),
    },
    institutions: institutions('Bancolombia', ['Banco de Bogota', 'Banco de Bogotá'], 'Davivienda', 'BBVA Colombia'),
    example: { accountType: 'COP_ACCOUNT', bankName: 'Bancolombia', accountNumber: '1234567890', bankAccountType: 'CHECKING' },
  }),
  corridor({
    accountType: 'DKK_ACCOUNT',
    name: 'Dkk',
    currency: 'DKK',
    rails: ['SEPA', 'SEPA_INSTANT'],
    countries: ['DK'],
    identifier: ['iban'],
    fields: { iban: iban(/^DK[0-9]{16}$/, [18, 18]), ...bic, beneficiary: beneficiary('Dkk') },
    check: sameBic,
    example: { accountType: 'DKK_ACCOUNT', iban: 'DK5000400440116243', swiftCode: 'DABADKKK' },
  }),
  corridor({
    accountType: 'EGP_ACCOUNT',
    name: 'Egp',
    currency: 'EGP',
    rails: ['BANK_TRANSFER'],
    countries: ['EG'],
    identifier: ['accountNumber'],
    fields: {
      bankName,
      accountNumber,
      iban: iban(/^EG[0-9]{27}$/, [29, 29]).optional(),
      swiftCode: swiftCode.optional(),
      beneficiary: beneficiary('Egp', ['address', 'countryOfResidence', 'phoneNumber']),
    },
    institutions: institutions('National Bank of Egypt', 'Banque Misr', ['CIB', 'Commercial International Bank']),
    example: {
      accountType: 'EGP_ACCOUNT',
      bankName: 'Example Bank',
      accountNumber: '1234567890',
      iban: 'EG380019000500000000263180002',
      swiftCode: 'NBEGEGCX',
    },
  }),
  corridor({
    accountType: 'EUR_ACCOUNT',
    name: 'Eur',
    currency: 'EUR',
    rails: ['SEPA', 'SEPA_INSTANT'],
    countries: SEPA_COUNTRIES,
    identifier: ['iban'],
    fields: { iban: iban(), ...bic, beneficiary: beneficiary('Eur', ['address']) },
    check: sameBic,
    example: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', swiftCode: 'DEUTDEFF' },
  }),
  corridor({
    accountType: 'GBP_ACCOUNT',
    name: 'Gbp',
    currency: 'GBP',
    rails: ['FASTER_PAYMENTS'],
    countries: ['GB'],
    identifier: ['accountNumber'],
    fields: { sortCode: digits(6, 6).meta({ example: '123456' }), accountNumber: digits(8, 8), beneficiary: beneficiary('Gbp') },
    example: { accountType: 'GBP_ACCOUNT', sortCode: '123456', accountNumber: '12345678' },
  }),
  corridor({
    accountType: 'GHS_ACCOUNT',
    name: 'Ghs',
    currency: 'GHS',
    rails: ['BANK_TRANSFER', 'MOBILE_MONEY'],
    countries: ['GH'],
    identifier: ['accountNumber', 'phoneNumber'],
    fields: { accountNumber: accountNumber.optional(), phoneNumber: phone().optional(), beneficiary: beneficiary('Ghs') },
    example: { accountType: 'GHS_ACCOUNT', accountNumber: '1234567890', phoneNumber: '+1234567890' },
  }),
  corridor({
    accountType: 'GTQ_ACCOUNT',
    name: 'Gtq',
    currency: 'GTQ',
    rails: ['BANK_TRANSFER'],
    countries: ['GT'],
    identifier: ['accountNumber'],
    fields: { accountNumber, bankAccountType, beneficiary: beneficiary('Gtq', ['countryOfResidence', 'phoneNumber']) },
    example: { accountType: 'GTQ_ACCOUNT', accountNumber: '1234567890', bankAccountType: 'CHECKING' },
  }),
  swiftBank(
    'HKD_ACCOUNT',
    'Hkd',
    'HK',
    ['BANK_TRANSFER'],
    { accountNumber: '123456789012', swiftCode: 'HSBCHKHHHKH' },
    {},
    institutions(
      ['HSBC', 'The Hongkong and Shanghai Banking Corporation'],
      'Bank of China (Hong Kong)',
      'Hang Seng Bank',
      'Standard Chartered Hong Kong',
    ),
  ),
  corridor({
    accountType: 'HTG_ACCOUNT',
    name: 'Htg',
    currency: 'HTG',
    rails: ['MOBILE_MONEY'],
    countries: ['HT'],
    identifier: ['phoneNumber'],
    fields: { phoneNumber: phone(), beneficiary: beneficiary('Htg') },
    example: { accountType: 'HTG_ACCOUNT', phoneNumber: '+1234567890' },
  }),
  swiftBank(
    'IDR_ACCOUNT',
    'Idr',
    'ID',
    ['BANK_TRANSFER'],
    { bankName: 'Bank Central Asia', swiftCode: 'CENAIDJA', phoneNumber: '+6281234567890' },
    { phoneNumber: phone(/^\+62[0-9]{9,12}$/) },
    institutions(
      ['Bank Central Asia', 'Bank Central Asia (BCA)'],
      'Bank Mandiri',
      ['Bank Rakyat Indonesia', 'Bank Rakyat Indonesia (BRI)'],
      ['Bank Negara Indonesia', 'Bank Negara Indonesia (BNI)'],
    ),
  ),
  corridor({
    accountType: 'INR_ACCOUNT',
    name: 'Inr',
    currency: 'INR',
    rails: ['UPI'],
    countries: ['IN'],
    identifier: ['vpa'],
    fields: {
      vpa: z.string().min(3).max(255).regex(UPI_VPA, 'Must be a UPI address (VPA) such as name@bank').meta({ example: 'user@upi' }),
      beneficiary: beneficiary('Inr'),
    },
    example: { accountType: 'INR_ACCOUNT', vpa: 'user@upi' },
  }),
  corridor({
    accountType: 'JMD_ACCOUNT',
    name: 'Jmd',
    currency: 'JMD',
    rails: ['BANK_TRANSFER'],
    countries: ['JM'],
    identifier: ['accountNumber'],
    fields: { accountNumber, branchCode: digits(5, 5), bankAccountType, beneficiary: beneficiary('Jmd', ['address', 'phoneNumber']) },
    example: { accountType: 'JMD_ACCOUNT', accountNumber: '1234567890', branchCode: '11111', bankAccountType: 'CHECKING' },
  }),
  mobileMoney('KES_ACCOUNT', 'Kes', ['KES', 'KE'], /^\+254[0-9]{9}$/, '+254712345678'),
  mobileMoney('MWK_ACCOUNT', 'Mwk', ['MWK', 'MW']),
  corridor({
    accountType: 'MXN_ACCOUNT',
    name: 'Mxn',
    currency: 'MXN',
    rails: ['SPEI'],
    countries: ['MX'],
    identifier: ['clabeNumber'],
    fields: { clabeNumber, beneficiary: beneficiary('Mxn') },
    example: { accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118359719' },
  }),
  swiftBank(
    'MYR_ACCOUNT',
    'Myr',
    'MY',
    ['BANK_TRANSFER'],
    { swiftCode: 'MABORUMMYYY' },
    {},
    institutions('Maybank', 'CIMB Bank', 'Public Bank', 'RHB Bank'),
  ),
  corridor({
    accountType: 'NGN_ACCOUNT',
    name: 'Ngn',
    currency: 'NGN',
    rails: ['BANK_TRANSFER'],
    countries: ['NG'],
    identifier: ['accountNumber'],
    fields: {
      accountNumber: digits(10, 10).meta({ description: 'NUBAN account number', example: '0123456789' }),
      bankName,
      beneficiary: beneficiary('Ngn'),
    },
    institutions: institutions(
      'Access Bank',
      'Zenith Bank',
      ['GTBank', 'Guaranty Trust Bank'],
      ['First Bank', 'First Bank of Nigeria'],
      ['UBA', 'United Bank for Africa'],
    ),
    example: { accountType: 'NGN_ACCOUNT', accountNumber: '0123456789', bankName: 'Example Bank' },
  }),
  corridor({
    accountType: 'PHP_ACCOUNT',
    name: 'Php',
    currency: 'PHP',
    rails: ['BANK_TRANSFER'],
    countries: ['PH'],
    identifier: ['accountNumber'],
    fields: { bankName, accountNumber: digits(8, 16), beneficiary: beneficiary('Php') },
    institutions: institutions(
      'BDO Unibank',
      ['BPI', 'Bank of the Philippine Islands'],
      ['Metrobank', 'Metropolitan Bank and Trust Company'],
      ['Landbank', 'Land Bank of the Philippines'],
    ),
    example: { accountType: 'PHP_ACCOUNT', bankName: 'BDO Unibank', accountNumber: '001234567890' },
  }),
  corridor({
    accountType: 'PKR_ACCOUNT',
    name: 'Pkr',
    currency: 'PKR',
    rails: ['BANK_TRANSFER', 'MOBILE_MONEY'],
    countries: ['PK'],
    identifier: ['iban', 'accountNumber', 'phoneNumber'],
    fields: {
      accountNumber: accountNumber.optional(),
      iban: iban(/^PK[0-9]{2}[A-Z]{4}[0-9]{16}$/, [24, 24]).optional(),
      phoneNumber: phone().optional(),
      bankName: bankName.optional(),
      beneficiary: beneficiary('Pkr'),
    },
    institutions: institutions(['HBL', 'Habib Bank Limited'], 'MCB Bank', ['UBL', 'United Bank Limited'], 'Meezan Bank'),
    example: {
      accountType: 'PKR_ACCOUNT',
      accountNumber: '1234567890',
      iban: 'PK36SCBL0000001123456702',
      phoneNumber: '+1234567890',
      bankName: 'Example Bank',
    },
  }),
  mobileMoney('RWF_ACCOUNT', 'Rwf', ['RWF', 'RW'], /^\+250[0-9]{9}$/, '+250781234567'),
  swiftBank(
    'SGD_ACCOUNT',
    'Sgd',
    'SG',
    ['PAYNOW', 'FAST', 'BANK_TRANSFER'],
    { bankName: 'DBS Bank Ltd', accountNumber: '0123456789', swiftCode: 'DBSSSGSG' },
    {},
    institutions(['DBS Bank Ltd', 'DBS Bank'], ['OCBC Bank', 'Oversea-Chinese Banking Corporation'], ['UOB', 'United Overseas Bank']),
  ),
  corridor({
    accountType: 'SLV_ACCOUNT',
    name: 'Slv',
    // El Salvador: the US dollar is legal tender (the colón, SVC, is no longer issued).
    currency: 'USD',
    rails: ['BANK_TRANSFER', 'MOBILE_MONEY'],
    countries: ['SV'],
    identifier: ['accountNumber', 'phoneNumber'],
    fields: {
      bankName: bankName.optional(),
      accountNumber: accountNumber.optional(),
      bankAccountType: bankAccountType.optional(),
      phoneNumber: phone().optional(),
      beneficiary: beneficiary('Slv'),
    },
    institutions: institutions(
      ['Banco Cuscatlan', 'Banco Cuscatlán'],
      ['Banco Agricola', 'Banco Agrícola'],
      ['BAC Credomatic', 'Banco de América Central (BAC)'],
    ),
    example: { accountType: 'SLV_ACCOUNT', bankName: 'Banco Cuscatlan', accountNumber: '0123456789', bankAccountType: 'CHECKING' },
  }),
  swiftBank(
    'THB_ACCOUNT',
    'Thb',
    'TH',
    ['BANK_TRANSFER'],
    { swiftCode: 'BKKBTHBK' },
    {},
    institutions('Bangkok Bank', 'Kasikornbank', ['SCB', 'Siam Commercial Bank'], 'Krungthai Bank'),
  ),
  mobileMoney('TZS_ACCOUNT', 'Tzs', ['TZS', 'TZ'], /^\+255[0-9]{9}$/, '+255712345678'),
  mobileMoney('UGX_ACCOUNT', 'Ugx', ['UGX', 'UG']),
  corridor({
    accountType: 'USD_ACCOUNT',
    name: 'Usd',
    currency: 'USD',
    rails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
    countries: ['US'],
    identifier: ['accountNumber'],
    fields: {
      accountNumber: z.string().regex(/^[0-9]{4,17}$/, 'Must be 4 to 17 digits'),
      routingNumber,
      bankAccountType: bankAccountType.optional(),
      bankName: bankName.optional(),
      beneficiary: beneficiary('Usd'),
    },
    institutions: institutions(['Chase', 'JPMorgan Chase Bank'], 'Bank of America', 'Wells Fargo', 'Citibank'),
    example: { accountType: 'USD_ACCOUNT', accountNumber: '1234567890', routingNumber: '021000021' },
  }),
  swiftBank(
    'VND_ACCOUNT',
    'Vnd',
    'VN',
    ['BANK_TRANSFER'],
    { swiftCode: 'BFTVVNVX' },
    {},
    institutions('Vietcombank', 'VietinBank', ['BIDV', 'Bank for Investment and Development of Vietnam'], 'Techcombank'),
  ),
  corridor({
    accountType: 'XAF_ACCOUNT',
    name: 'Xaf',
    currency: 'XAF',
    rails: ['MOBILE_MONEY'],
    countries: XAF_REGIONS,
    identifier: ['phoneNumber'],
    fields: {
      phoneNumber: phone(),
      provider,
      region: z.enum(XAF_REGIONS).meta({ description: 'Cameroon or Congo' }),
      beneficiary: beneficiary('Xaf'),
    },
    example: { accountType: 'XAF_ACCOUNT', phoneNumber: '+1234567890', provider: 'Example Provider', region: 'CM' },
  }),
  corridor({
    accountType: 'XOF_ACCOUNT',
    name: 'Xof',
    currency: 'XOF',
    rails: ['MOBILE_MONEY'],
    countries: XOF_REGIONS,
    identifier: ['phoneNumber'],
    fields: {
      phoneNumber: phone(),
      provider,
      region: z.enum(XOF_REGIONS).meta({ description: 'Benin, Ivory Coast, Senegal or Togo' }),
      beneficiary: beneficiary('Xof'),
    },
    example: { accountType: 'XOF_ACCOUNT', phoneNumber: '+1234567890', provider: 'Example Provider', region: 'BJ' },
  }),
  corridor({
    accountType: 'ZAR_ACCOUNT',
    name: 'Zar',
    currency: 'ZAR',
    rails: ['BANK_TRANSFER'],
    countries: ['ZA'],
    identifier: ['accountNumber'],
    fields: { accountNumber: digits(9, 13), bankName, beneficiary: beneficiary('Zar') },
    institutions: institutions('Standard Bank', ['FNB', 'First National Bank'], ['Absa', 'Absa Bank'], 'Nedbank', 'Capitec Bank'),
    example: { accountType: 'ZAR_ACCOUNT', accountNumber: '1234567890', bankName: 'Example Bank' },
  }),
  mobileMoney('ZMW_ACCOUNT', 'Zmw', ['ZMW', 'ZM'], /^\+260[0-9]{9}$/, '+260971234567'),
  corridor({
    accountType: 'SWIFT_ACCOUNT',
    name: 'Swift',
    currency: null,
    rails: ['SWIFT'],
    identifier: ['iban', 'accountNumber'],
    fields: {
      country: CountryCode.meta({ description: "The bank's country", example: 'NG' }),
      swiftCode,
      bankName: bankName.meta({ example: 'Deutsche Bank' }),
      accountNumber: accountNumber.optional(),
      iban: iban().optional(),
      beneficiary: beneficiary('Swift'),
    },
    example: { accountType: 'SWIFT_ACCOUNT', country: 'NG', swiftCode: 'DEUTDEFF', bankName: 'Deutsche Bank', accountNumber: '1234567890' },
  }),
  evmWallet('BASE_WALLET', 'BaseWallet', erc20('BASE', 'ETH', 0.01, 3_000)),
  evmWallet('ETHEREUM_WALLET', 'EthereumWallet', erc20('ETHEREUM', 'ETH', 2, 3_000)),
  corridor({
    accountType: 'LIGHTNING',
    name: 'Lightning',
    currency: 'BTC',
    rails: [],
    // A routing fee of a few satoshis.
    network: { network: 'LIGHTNING', feeAsset: 'BTC', feeAssetDecimals: 8, fee: 5 },
    identifier: ['lightningAddress', 'bolt12', 'invoice'],
    fields: {
      invoice: z
        .string()
        .max(7089)
        .refine((s) => bolt11Words(s) !== null, 'Must be a BOLT 11 invoice (ln..., valid bech32 checksum)')
        .optional(),
      bolt12: z
        .string()
        .max(7089)
        .refine((s) => bolt12Words(s) !== null, 'Must be a BOLT 12 offer (lno1...)')
        .optional(),
      lightningAddress: z
        .string()
        .regex(/^[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9.-]{1,253}\.[a-zA-Z]{2,}$/, 'Must be a lightning address such as alice@wallet.example')
        .optional(),
    },
    check: (info, ctx) => {
      const given = [info.invoice, info.bolt12, info.lightningAddress].filter((v) => v !== undefined).length;
      if (given > 1) ctx.addIssue({ code: 'custom', path: [], message: 'Exactly one of invoice, bolt12 or lightningAddress is required' });
    },
    suffix: (id) => (id.includes('@') ? textSuffix(id) : payloadSuffix(bolt12Words(id) ?? bolt11Words(id), 32)),
    example: { accountType: 'LIGHTNING', invoice: BOLT11_EXAMPLE },
  }),
  evmWallet('POLYGON_WALLET', 'PolygonWallet', erc20('POLYGON', 'POL', 30, 0.5)),
  corridor({
    accountType: 'SOLANA_WALLET',
    name: 'SolanaWallet',
    currency: 'USDC',
    rails: [],
    // The base fee of one signature: 5,000 lamports.
    network: { network: 'SOLANA', feeAsset: 'SOL', feeAssetDecimals: 9, fee: 5_000, feeAssetUsd: 150 },
    identifier: ['address'],
    fields: {
      address: z
        .string()
        .refine(solanaAddressValid, 'Must be a base58 Solana address (32 bytes)')
        .meta({ example: '4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg' }),
    },
    suffix: (id) => payloadSuffix(base58Bytes(id), 256),
    example: { accountType: 'SOLANA_WALLET', address: '4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg' },
  }),
  corridor({
    accountType: 'SPARK_WALLET',
    name: 'SparkWallet',
    currency: 'BTC',
    rails: [],
    // Transfers between Spark wallets carry no network fee.
    network: { network: 'SPARK', feeAsset: 'BTC', feeAssetDecimals: 8, fee: 0 },
    identifier: ['address'],
    fields: {
      address: z
        .string()
        .max(500)
        .refine((a) => sparkWords(a) !== null, 'Must be a Spark address (spark1..., valid bech32m checksum)'),
    },
    suffix: (id) => payloadSuffix(sparkWords(id), 32),
    example: { accountType: 'SPARK_WALLET', address: SPARK_EXAMPLE },
  }),
  corridor({
    accountType: 'TRON_WALLET',
    name: 'TronWallet',
    currency: 'USDC',
    rails: [],
    // A TRC-20 transfer without staked energy burns about 13 TRX.
    network: { network: 'TRON', feeAsset: 'TRX', feeAssetDecimals: 6, fee: 13_000_000, feeAssetUsd: 0.25 },
    identifier: ['address'],
    fields: {
      address: z
        .string()
        .refine((a) => tronPayload(a) !== null, 'Must be a Tron address (T..., valid base58check checksum)')
        .meta({ example: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' }),
    },
    suffix: (id) => payloadSuffix(tronPayload(id), 256),
    example: { accountType: 'TRON_WALLET', address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' },
  }),
] as const;
