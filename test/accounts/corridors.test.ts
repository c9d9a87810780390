import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currency } from '../../src/common/currencies';
import { api, expectError, failingFields, newPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import { ADDRESS, createCustomer } from '../support/customers';
import { advance, createQuote, customerWithAccounts, execute, expectLedgerInvariant, fund, tx } from '../support/payments';
import { clabeWithSuffix, cpfWithSuffix, iban, INVOICE, solanaWithSuffix, sparkWithSuffix, tronWithSuffix } from '../support/identifiers';
import reference from './reference-corridors.json';

/**
 * Every external-account type of the reference (`test/accounts/reference-corridors.json`, extracted by
 * `scripts/reference-corridors.py`): its example accepted, each required field, identifier checks, the
 * sandbox suffixes, and a payout from USD that completes.
 */

interface Case {
  currency: string;
  /** Valid account info whose primary identifier ends in `suffix`. */
  info: (suffix: string) => Record<string, unknown>;
  /** An identifier that breaks its check digits, checksum or, where none is public, its format (in place of `replaces`). */
  broken: [field: string, value: string, replaces?: string];
}

const n = (prefix: string, suffix: string) => `${prefix}${suffix}`;
const LONG = '1'.repeat(35);
const swiftBank = (currencyCode: string, swiftCode: string): Case => ({
  currency: currencyCode,
  info: (s) => ({ bankName: 'Example Bank', accountNumber: n('1234567', s), swiftCode }),
  broken: ['accountNumber', LONG],
});
const mobile = (currencyCode: string, prefix: string, broken: string, extra: Record<string, string> = {}): Case => ({
  currency: currencyCode,
  info: (s) => ({ phoneNumber: n(prefix, s), provider: 'Example Provider', ...extra }),
  broken: ['phoneNumber', broken],
});

const CASES: Record<string, Case> = {
  AED_ACCOUNT: {
    currency: 'AED',
    info: (s) => ({ iban: iban('AE', n('0331234567890123', s)) }),
    broken: ['iban', 'AE070331234567890123457'],
  },
  BDT_ACCOUNT: { currency: 'BDT', info: (s) => ({ accountNumber: n('1234567', s), branchCode: '11111' }), broken: ['accountNumber', LONG] },
  BRL_ACCOUNT: {
    currency: 'BRL',
    info: (s) => ({ pixKey: cpfWithSuffix(s), pixKeyType: 'CPF', taxId: '52998224725' }),
    broken: ['pixKey', '52998224726'],
  },
  BWP_ACCOUNT: mobile('BWP', '+26771234', '+0123456789'),
  CAD_ACCOUNT: {
    currency: 'CAD',
    info: (s) => ({ bankCode: '001', branchCode: '00012', accountNumber: n('1234', s) }),
    broken: ['accountNumber', '12345'],
  },
  COP_ACCOUNT: {
    currency: 'COP',
    info: (s) => ({ bankName: 'Bancolombia', accountNumber: n('1234567', s), bankAccountType: 'SAVINGS' }),
    broken: ['accountNumber', LONG],
  },
  DKK_ACCOUNT: { currency: 'DKK', info: (s) => ({ iban: iban('DK', n('00400440116', s)) }), broken: ['iban', 'DK5000400440116244'] },
  EGP_ACCOUNT: {
    currency: 'EGP',
    info: (s) => ({ bankName: 'Example Bank', accountNumber: n('1234567', s) }),
    broken: ['accountNumber', LONG],
  },
  EUR_ACCOUNT: {
    currency: 'EUR',
    info: (s) => ({ iban: iban('DE', n('370400440532013', s)) }),
    broken: ['iban', 'DE89370400440532013001'],
  },
  GBP_ACCOUNT: {
    currency: 'GBP',
    info: (s) => ({ sortCode: '123456', accountNumber: n('12345', s) }),
    broken: ['accountNumber', '1234567'],
  },
  GHS_ACCOUNT: { currency: 'GHS', info: (s) => ({ accountNumber: n('1234567', s) }), broken: ['accountNumber', LONG] },
  GTQ_ACCOUNT: {
    currency: 'GTQ',
    info: (s) => ({ accountNumber: n('1234567', s), bankAccountType: 'CHECKING' }),
    broken: ['accountNumber', LONG],
  },
  HKD_ACCOUNT: swiftBank('HKD', 'HSBCHKHHHKH'),
  HTG_ACCOUNT: { currency: 'HTG', info: (s) => ({ phoneNumber: n('+50937123', s) }), broken: ['phoneNumber', '+0123456789'] },
  IDR_ACCOUNT: {
    ...swiftBank('IDR', 'CENAIDJA'),
    info: (s) => ({ ...swiftBank('IDR', 'CENAIDJA').info(s), phoneNumber: '+6281234567890' }),
  },
  INR_ACCOUNT: { currency: 'INR', info: (s) => ({ vpa: `user${s}@upi` }), broken: ['vpa', 'user.upi'] },
  JMD_ACCOUNT: {
    currency: 'JMD',
    info: (s) => ({ accountNumber: n('1234567', s), branchCode: '11111', bankAccountType: 'CHECKING' }),
    broken: ['accountNumber', LONG],
  },
  KES_ACCOUNT: mobile('KES', '+254712345', '+255712345678'),
  MWK_ACCOUNT: mobile('MWK', '+26599912', '+0123456789'),
  MXN_ACCOUNT: { currency: 'MXN', info: (s) => ({ clabeNumber: clabeWithSuffix(s) }), broken: ['clabeNumber', '032180000118359718'] },
  MYR_ACCOUNT: swiftBank('MYR', 'MBBEMYKL'),
  NGN_ACCOUNT: {
    currency: 'NGN',
    info: (s) => ({ accountNumber: n('0123456', s), bankName: 'Example Bank' }),
    broken: ['accountNumber', '012345678'],
  },
  PHP_ACCOUNT: {
    currency: 'PHP',
    info: (s) => ({ bankName: 'BDO Unibank', accountNumber: n('001234567', s) }),
    broken: ['accountNumber', '1234567'],
  },
  PKR_ACCOUNT: {
    currency: 'PKR',
    info: (s) => ({ iban: iban('PK', n('SCBL0000001123456', s)), bankName: 'Example Bank' }),
    broken: ['iban', 'PK36SCBL0000001123456703'],
  },
  RWF_ACCOUNT: mobile('RWF', '+250781234', '+254781234567'),
  SGD_ACCOUNT: swiftBank('SGD', 'DBSSSGSG'),
  SLV_ACCOUNT: {
    currency: 'USD',
    info: (s) => ({ bankName: 'Banco Cuscatlan', accountNumber: n('0123456', s), bankAccountType: 'CHECKING' }),
    broken: ['accountNumber', LONG],
  },
  THB_ACCOUNT: swiftBank('THB', 'BKKBTHBK'),
  TZS_ACCOUNT: mobile('TZS', '+255712345', '+254712345678'),
  UGX_ACCOUNT: mobile('UGX', '+25677123', '+0123456789'),
  USD_ACCOUNT: {
    currency: 'USD',
    info: (s) => ({ accountNumber: n('1234567', s), routingNumber: '021000021' }),
    broken: ['routingNumber', '021000022'],
  },
  VND_ACCOUNT: swiftBank('VND', 'BFTVVNVX'),
  XAF_ACCOUNT: mobile('XAF', '+23767123', '+0123456789', { region: 'CM' }),
  XOF_ACCOUNT: mobile('XOF', '+22177123', '+0123456789', { region: 'SN' }),
  ZAR_ACCOUNT: {
    currency: 'ZAR',
    info: (s) => ({ accountNumber: n('1234567', s), bankName: 'Example Bank' }),
    broken: ['accountNumber', '12345678'],
  },
  ZMW_ACCOUNT: mobile('ZMW', '+260971234', '+26097123456'),
  SWIFT_ACCOUNT: {
    currency: 'JPY',
    info: (s) => ({ country: 'GB', swiftCode: 'NWBKGB2L', bankName: 'NatWest', iban: iban('GB', n('NWBK60161331926', s)) }),
    broken: ['iban', 'GB29NWBK60161331926818'],
  },
  BASE_WALLET: {
    currency: 'USDC',
    info: (s) => ({ address: n(`0x${'ab'.repeat(18)}c`, s) }),
    broken: ['address', '0xAbCDEF1234567890aBCdEf1234567890ABcDef12'],
  },
  ETHEREUM_WALLET: {
    currency: 'USDC',
    info: (s) => ({ address: n(`0x${'cd'.repeat(18)}e`, s) }),
    broken: ['address', '0xAbCDEF1234567890aBCdEf1234567890ABcDef12'],
  },
  LIGHTNING: {
    currency: 'BTC',
    info: (s) => ({ lightningAddress: `user${s}@wallet.example` }),
    broken: ['invoice', `${INVOICE.slice(0, -1)}q`, 'lightningAddress'],
  },
  POLYGON_WALLET: {
    currency: 'USDC',
    info: (s) => ({ address: n(`0x${'ef'.repeat(18)}a`, s) }),
    broken: ['address', '0xAbCDEF1234567890aBCdEf1234567890ABcDef12'],
  },
  SOLANA_WALLET: {
    currency: 'USDC',
    info: (s) => ({ address: solanaWithSuffix(s) }),
    broken: ['address', '4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8W0'],
  },
  SPARK_WALLET: {
    currency: 'BTC',
    info: (s) => ({ address: sparkWithSuffix(s) }),
    broken: ['address', 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu'],
  },
  TRON_WALLET: {
    currency: 'USDC',
    info: (s) => ({ address: tronWithSuffix(s) }),
    broken: ['address', 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM'],
  },
};

/**
 * Reference examples that break the public rule of one of their fields, and that field: a CLABE and a
 * Danish IBAN with wrong check digits, mixed-case EVM addresses without their EIP-55 checksum, a Spark
 * address with a bad bech32m checksum, and a PIX key of type CPF that is an e-mail with CPF 111.111.111-11.
 */
const REFERENCE_ERRATA: Record<string, string[]> = {
  MXN_ACCOUNT: ['accountInfo.clabeNumber'],
  DKK_ACCOUNT: ['accountInfo.iban'],
  BASE_WALLET: ['accountInfo.address'],
  ETHEREUM_WALLET: ['accountInfo.address'],
  POLYGON_WALLET: ['accountInfo.address'],
  SPARK_WALLET: ['accountInfo.address'],
  BRL_ACCOUNT: ['accountInfo.taxId', 'accountInfo.pixKey'],
};

/** An individual with every contact field a corridor may require. */
const person: Record<string, unknown> = {
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'John Doe',
  address: ADDRESS,
  countryOfResidence: 'US',
  phoneNumber: '+14155550192',
};

type Ref = (typeof reference)[number];
const withBeneficiary = (c: Ref, info: Record<string, unknown>) => (c.beneficiary ? { ...info, beneficiary: person } : info);
const accountInfo = (c: Ref, suffix: string) => withBeneficiary(c, { accountType: c.accountType, ...CASES[c.accountType]!.info(suffix) });

const T0 = Date.parse('2032-03-01T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

describe('external-account corridors', () => {
  it('covers the 44 types of the reference', () => {
    expect(reference).toHaveLength(44);
    expect(Object.keys(CASES).sort()).toEqual(reference.map((c) => c.accountType).sort());
  });

  it.each(reference)('$accountType: reference example, required fields, identifier checks and sandbox suffixes', async (c) => {
    const p = await newPlatform();
    const customer = await createCustomer(p);
    const { currency: code, broken } = CASES[c.accountType]!;
    const create = (info: unknown) =>
      api('POST', '/customers/external-accounts', { auth: p.auth, body: { customerId: customer.id, currency: code, accountInfo: info } });

    const example = withBeneficiary(c, c.example);
    const errata = REFERENCE_ERRATA[c.accountType];
    if (errata) {
      const refused = await create(example);
      expectError(refused, 400, 'INVALID_INPUT');
      expect(failingFields(refused)).toEqual(errata);
    } else {
      const res = await create(example);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // Bank accounts also show their countries (derived: the example gives none); SWIFT's is its `country` field.
      const countries = c.accountType === 'SWIFT_ACCOUNT' ? {} : { countries: [expect.stringMatching(/^[A-Z]{2}$/)] };
      expect(res.body.accountInfo).toEqual(c.paymentRails ? { ...example, paymentRails: c.paymentRails, ...countries } : example);
      expect(res.body.currency).toBe(code);
    }

    const valid = accountInfo(c, '555');
    for (const field of c.required) {
      const { [field]: _, ...missing } = valid;
      const res = await create(missing);
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), field).toEqual([`accountInfo.${field}`]);
    }
    for (const field of c.beneficiary?.required ?? []) {
      const { [field]: _, ...rest } = person;
      const res = await create({ ...valid, beneficiary: rest });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), field).toEqual([`accountInfo.beneficiary.${field}`]);
    }

    const { [broken[2] ?? broken[0]]: _, ...unbroken } = valid;
    const res = await create({ ...unbroken, [broken[0]]: broken[1] });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual([`accountInfo.${broken[0]}`]);

    const refused = await create(accountInfo(c, '105'));
    expectError(refused, 400, 'INVALID_BANK_ACCOUNT');
    expect(failingFields(refused)).toHaveLength(1);
    const notMatched = await create(accountInfo(c, '102'));
    expect(notMatched.status, JSON.stringify(notMatched.body)).toBe(201);
    expect(notMatched.body.beneficiaryVerificationStatus).toBe('NOT_MATCHED');
    const matched = await create(valid);
    expect(matched.status, JSON.stringify(matched.body)).toBe(201);
    expect(matched.body.beneficiaryVerificationStatus).toBe('MATCHED');
  });

  it('a quote from a funded USD account to an account of each type completes, on its rail, in its currency', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 10_000_000);
    const quotes = [];
    for (const c of reference) {
      const ext = await api('POST', '/customers/external-accounts', {
        auth: p.auth,
        body: { customerId: customer.id, currency: CASES[c.accountType]!.currency, accountInfo: accountInfo(c, '321') },
      });
      expect(ext.status, JSON.stringify(ext.body)).toBe(201);
      const quote = await createQuote(p, {
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination: { destinationType: 'ACCOUNT', accountId: ext.body.id },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
      });
      expect(quote.receivingCurrency, c.accountType).toEqual(currency(CASES[c.accountType]!.currency));
      expect(quote.destination.paymentRail, c.accountType).toBe(c.paymentRails?.[0]);
      expect(quote.totalReceivingAmount, c.accountType).toBeGreaterThan(0);
      const res = await execute(p, quote.id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      quotes.push(quote);
    }
    await advance(p, 5);
    for (const quote of quotes) {
      const done = await tx(p, quote.transactionId);
      expect(done.status, quote.receivingCurrency.code).toBe('COMPLETED');
      expect(done.receivedAmount).toEqual({ amount: quote.totalReceivingAmount, currency: quote.receivingCurrency });
    }
    await expectLedgerInvariant(p.id);
  });

  it('the platform and agent endpoints take the same corridors and checks', async () => {
    const a = await newAgent();
    const brl = reference.find((c) => c.accountType === 'BRL_ACCOUNT')!;
    const xof = reference.find((c) => c.accountType === 'XOF_ACCOUNT')!;
    const platform = await api('POST', '/platform/external-accounts', {
      auth: a.p.auth,
      body: { currency: 'BRL', accountInfo: accountInfo(brl, '321') },
    });
    expect(platform.status, JSON.stringify(platform.body)).toBe(201);
    expect(platform.body.accountInfo.paymentRails).toEqual(['PIX']);
    const agent = await api('POST', '/agents/me/external-accounts', {
      auth: a.bearer,
      body: { currency: 'XOF', accountInfo: accountInfo(xof, '321') },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    expect(agent.body).toMatchObject({
      customerId: a.customerId,
      currency: 'XOF',
      accountInfo: { accountType: 'XOF_ACCOUNT', region: 'SN', paymentRails: ['MOBILE_MONEY'] },
    });
    const wrong = { ...accountInfo(brl, '321'), pixKeyType: 'PHONE' };
    expect(
      failingFields(await api('POST', '/platform/external-accounts', { auth: a.p.auth, body: { currency: 'BRL', accountInfo: wrong } })),
    ).toEqual(['accountInfo.pixKey']);
    expect(
      failingFields(
        await api('POST', '/agents/me/external-accounts', {
          auth: a.bearer,
          body: { currency: 'XOF', accountInfo: { ...accountInfo(xof, '321'), region: 'CM' } },
        }),
      ),
    ).toEqual(['accountInfo.region']);
    expect(
      failingFields(
        await api('POST', '/agents/me/external-accounts', {
          auth: a.bearer,
          body: { currency: 'XAF', accountInfo: accountInfo(xof, '322') },
        }),
      ),
    ).toEqual(['currency']);
  });

  it("every type's example in /openapi.json is accepted (the reference's, corrected where it breaks a rule)", async () => {
    const p = await newPlatform();
    const customer = await createCustomer(p);
    const schemas = (await api('GET', '/openapi.json')).body.components.schemas;
    for (const c of reference) {
      const example = schemas[c.schema].example;
      const res = await api('POST', '/customers/external-accounts', {
        auth: p.auth,
        body: { customerId: customer.id, currency: CASES[c.accountType]!.currency, accountInfo: example },
      });
      expect(res.status, `${c.accountType}: ${JSON.stringify(res.body)}`).toBe(201);
      if (!REFERENCE_ERRATA[c.accountType]) expect(example).toMatchObject(c.example);
    }
  });

  it('PATCH /config accepts every corridor currency, with ISO 4217 minor units', async () => {
    const p = await newPlatform();
    const codes = [...new Set(Object.values(CASES).map((c) => c.currency))].filter(
      (code) => currency(code).decimals !== 8 && code !== 'USDC',
    );
    const supportedCurrencies = codes.map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 1_000_000,
      enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
      requiredCounterpartyFields: [],
    }));
    const res = await api('PATCH', '/config', { auth: p.auth, body: { supportedCurrencies } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode)).toEqual(codes);
    expect(['XAF', 'XOF', 'RWF', 'UGX', 'VND', 'JPY'].map((code) => currency(code).decimals)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(['AED', 'BRL', 'INR', 'IDR', 'EGP'].map((code) => currency(code).decimals)).toEqual([2, 2, 2, 2, 2]);
  });
});

describe('/openapi.json and the reference', () => {
  it('describes every external-account type with every field of the reference', async () => {
    const spec = (await api('GET', '/openapi.json')).body;
    const schemas = spec.components.schemas as Record<string, any>;
    const refs = (node: any) => ((node.oneOf ?? node.anyOf) as { $ref: string }[]).map((r) => r.$ref.split('/').pop());
    expect(refs(schemas.ExternalAccountCreateInfoOneOf).sort()).toEqual(reference.map((c) => c.schema).sort());
    expect(refs(schemas.ExternalAccountInfoOneOf).sort()).toEqual(reference.map((c) => c.viewSchema).sort());
    expect(schemas.ExternalAccount.properties.accountInfo.$ref).toBe('#/components/schemas/ExternalAccountInfoOneOf');
    for (const c of reference) {
      const create = schemas[c.schema];
      expect(Object.keys(create.properties), c.schema).toEqual(expect.arrayContaining(['accountType', ...c.properties]));
      expect(create.required, c.schema).toEqual(expect.arrayContaining(c.required));
      const view = schemas[c.viewSchema];
      if (c.paymentRails) expect(view.properties.paymentRails.items.enum, c.viewSchema).toEqual(c.paymentRails);
      if (c.beneficiary) {
        expect(create.required, c.schema).toContain('beneficiary');
        expect(refs(create.properties.beneficiary)).toEqual([c.beneficiary.schema, 'BusinessBeneficiary']);
        const individual = schemas[c.beneficiary.schema];
        expect(Object.keys(individual.properties), c.beneficiary.schema).toEqual(expect.arrayContaining(c.beneficiary.properties));
        expect(individual.required, c.beneficiary.schema).toEqual(expect.arrayContaining(c.beneficiary.required));
      }
    }
  });
});
