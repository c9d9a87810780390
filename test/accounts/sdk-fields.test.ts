import { describe, expect, it } from 'vitest';
import { api, failingFields, newPlatform, type TestPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import { ADDRESS, createCustomer } from '../support/customers';
import { customerWithAccounts, fund } from '../support/payments';

/**
 * Clients generated from the service's newer OpenAPI (its TypeScript SDK 0.7.0) send `countries` and
 * `paymentRails` in every bank account's `accountInfo`, and `swiftBic` on EUR and DKK accounts: honoured,
 * validated and shown back, on every endpoint that creates external accounts.
 */

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', birthDate: '1990-01-15', nationality: 'US', address: ADDRESS };

/** The SDK's bodies, as its `UsdExternalAccountInfo`, `EurExternalAccountInfo` and `SparkWalletInfo` type them. */
const SDK_USD = {
  accountType: 'USD_ACCOUNT',
  accountNumber: '12345678901',
  routingNumber: '021000021',
  countries: ['US'],
  paymentRails: ['WIRE', 'ACH'],
  beneficiary: { ...person, registrationNumber: 'A1234567' },
};
const SDK_EUR = {
  accountType: 'EUR_ACCOUNT',
  iban: 'DE89370400440532013000',
  swiftBic: 'DEUTDEFF',
  countries: ['DE'],
  paymentRails: ['SEPA_INSTANT'],
  beneficiary: person,
};
const SDK_SPARK = { accountType: 'SPARK_WALLET', address: 'spark1pgss9ev456vvtxsexs9r3ruq6we68qhjwqzg7nrwyfq4tgtea2gxx5xc4kr7vd' };

const create = (p: TestPlatform, body: Record<string, unknown>, path = '/customers/external-accounts', auth = p.auth) =>
  api('POST', path, { auth, body });

async function customerOf() {
  const p = await newPlatform();
  return { p, c: await createCustomer(p) };
}

describe('external accounts: the fields newer clients send', () => {
  it('accepts the SDK bodies of a USD, an EUR and a wallet account and shows them back', async () => {
    const { p, c } = await customerOf();
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['USD', SDK_USD, SDK_USD],
      ['EUR', SDK_EUR, SDK_EUR],
      ['BTC', SDK_SPARK, SDK_SPARK],
    ];
    for (const [currency, accountInfo, shown] of cases) {
      const res = await create(p, { customerId: c.id, currency, accountInfo });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.accountInfo).toEqual(shown);
      expect((await api('GET', `/customers/external-accounts/${res.body.id}`, { auth: p.auth })).body.accountInfo).toEqual(shown);
    }
  });

  it('derives rails and countries when a client omits them', async () => {
    const { p, c } = await customerOf();
    const older = { accountType: 'EUR_ACCOUNT', iban: 'FR1420041010050500013M02606', beneficiary: person };
    const res = await create(p, { customerId: c.id, currency: 'EUR', accountInfo: older });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.accountInfo).toEqual({ ...older, countries: ['FR'], paymentRails: ['SEPA', 'SEPA_INSTANT'] });
  });

  it('takes them on platform and agent external accounts too', async () => {
    const p = await newPlatform();
    const own = await create(p, { currency: 'USD', accountInfo: SDK_USD }, '/platform/external-accounts');
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body.accountInfo).toEqual(SDK_USD);
    const a = await newAgent();
    const mine = await create(a.p, { currency: 'EUR', accountInfo: SDK_EUR }, '/agents/me/external-accounts', a.bearer);
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    expect(mine.body.accountInfo).toEqual(SDK_EUR);
  });

  it('refuses rails and countries the account type does not have, naming the field', async () => {
    const { p, c } = await customerOf();
    const bad: [string, Record<string, unknown>, string][] = [
      ['USD', { ...SDK_USD, paymentRails: ['SEPA'] }, 'accountInfo.paymentRails.0'],
      ['USD', { ...SDK_USD, paymentRails: [] }, 'accountInfo.paymentRails'],
      ['USD', { ...SDK_USD, paymentRails: ['ACH', 'ACH'] }, 'accountInfo.paymentRails'],
      ['USD', { ...SDK_USD, countries: ['MX'] }, 'accountInfo.countries.0'],
      ['USD', { ...SDK_USD, countries: [] }, 'accountInfo.countries'],
      ['EUR', { ...SDK_EUR, countries: ['FR'] }, 'accountInfo.countries'],
      ['EUR', { ...SDK_EUR, countries: ['US'] }, 'accountInfo.countries.0'],
      ['EUR', { ...SDK_EUR, paymentRails: ['ACH'] }, 'accountInfo.paymentRails.0'],
      ['EUR', { ...SDK_EUR, swiftBic: 'DEUT' }, 'accountInfo.swiftBic'],
      ['EUR', { ...SDK_EUR, swiftCode: 'BNPAFRPP' }, 'accountInfo.swiftBic'],
      // Turkey is not in SEPA: an EUR account there is not paid by SEPA transfer.
      ['EUR', { ...SDK_EUR, iban: 'TR330006100519786457841326', countries: undefined }, 'accountInfo.iban'],
      ['BTC', { ...SDK_SPARK, paymentRails: ['SEPA'] }, 'accountInfo.paymentRails'],
    ];
    for (const [currency, accountInfo, field] of bad) {
      const res = await create(p, { customerId: c.id, currency, accountInfo });
      expect(res.status, JSON.stringify(accountInfo)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(accountInfo)).toEqual([field]);
    }
    expect((await api('GET', '/customers/external-accounts', { auth: p.auth })).body.data).toEqual([]);
  });

  it('pays the account on the chosen rails only, the first by default', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    const ext = await create(p, { customerId: customer.id, currency: 'EUR', accountInfo: SDK_EUR });
    const quote = (paymentRail?: string) =>
      api('POST', '/quotes', {
        auth: p.auth,
        body: {
          source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
          destination: { destinationType: 'ACCOUNT', accountId: ext.body.id, ...(paymentRail ? { paymentRail } : {}) },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 10_000,
        },
      });
    const byDefault = await quote();
    expect(byDefault.status, JSON.stringify(byDefault.body)).toBe(201);
    expect(byDefault.body.destination.paymentRail).toBe('SEPA_INSTANT');
    const refused = await quote('SEPA');
    expect(refused.status).toBe(400);
    expect(failingFields(refused)).toEqual(['destination.paymentRail']);
  });
});
