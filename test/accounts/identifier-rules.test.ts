import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, type TestPlatform } from '../support/api';
import { ADDRESS, businessBody, createCustomer, individualBody, postForm, type FormPart } from '../support/customers';

/**
 * The identifier rules written once in src/common and used by every field of their kind: phone numbers
 * (E.164, up to 15 digits), country codes (the ISO 3166-1 alpha-2 list) and the Brazilian CNPJ (numeric or,
 * since July 2026, alphanumeric).
 */

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', nationality: 'US', address: ADDRESS };
const account = (p: TestPlatform, customerId: string, currency: string, accountInfo: Record<string, unknown>) =>
  api('POST', '/customers/external-accounts', { auth: p.auth, body: { customerId, currency, accountInfo } });

async function customerWith() {
  const p = await newPlatform();
  return { p, c: await createCustomer(p) };
}

/** The CNPJ check digits of 12 characters, computed here from the published rule (value = ASCII code - 48). */
function cnpjCheckDigits(body: string): string {
  const weights = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const digit = (values: number[]) => {
    const r = values.reduce((s, v, i) => s + v * weights[weights.length - values.length + i]!, 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const values = [...body].map((c) => c.charCodeAt(0) - 48);
  const first = digit(values);
  return `${first}${digit([...values, first])}`;
}

describe('phone numbers: E.164, up to 15 digits, everywhere', () => {
  it('accepts 15 digits on a corridor phone field and a beneficial owner, refuses 16 and a leading 0', async () => {
    const { p, c } = await customerWith();
    const htg = (phoneNumber: string) => account(p, c.id, 'HTG', { accountType: 'HTG_ACCOUNT', phoneNumber, beneficiary: person });
    const fifteen = await htg('+491234567890123');
    expect(fifteen.status, JSON.stringify(fifteen.body)).toBe(201);
    expect(fifteen.body.accountInfo.phoneNumber).toBe('+491234567890123');
    for (const bad of ['+4912345678901234', '+0123456789', '+12345', '491234567890']) {
      const res = await htg(bad);
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res)).toContain('accountInfo.phoneNumber');
    }
    // A beneficiary's contact phone follows the same rule.
    const beneficiary = { ...person, phoneNumber: '+491234567890123' };
    const usd = { accountType: 'USD_ACCOUNT', accountNumber: '12345678901', routingNumber: '021000021', bankAccountType: 'CHECKING' };
    expect((await account(p, c.id, 'USD', { ...usd, beneficiary })).status).toBe(201);
    const long = await account(p, c.id, 'USD', { ...usd, beneficiary: { ...beneficiary, phoneNumber: '+4912345678901234' } });
    expect(failingFields(long)).toContain('accountInfo.beneficiary.phoneNumber');

    const b = await createCustomer(p, businessBody());
    const owner = (phoneNumber: string) =>
      api('POST', '/beneficial-owners', {
        auth: p.auth,
        body: {
          customerId: b.id,
          roles: ['UBO'],
          ownershipPercentage: 51,
          personalInfo: {
            firstName: 'Jane',
            lastName: 'Smith',
            birthDate: '1978-06-15',
            nationality: 'DE',
            phoneNumber,
            address: ADDRESS,
            idType: 'SSN',
            identifier: '123-45-6789',
          },
        },
      });
    expect((await owner('+491234567890123')).status).toBe(201);
    // Two digits passed here before: now the same rule as the corridors.
    expect(failingFields(await owner('+12'))).toEqual(['personalInfo.phoneNumber']);
  });
});

describe('country codes: the ISO 3166-1 alpha-2 list', () => {
  const NOT_COUNTRIES = ['XX', 'AA', 'EU', 'UK'];
  const COUNTRIES = ['US', 'DE', 'GB'];

  it('customer addresses, nationality and countries of operation', async () => {
    const p = await newPlatform();
    for (const country of COUNTRIES) {
      await createCustomer(p, individualBody({ nationality: country, address: { ...ADDRESS, country } }));
    }
    for (const country of NOT_COUNTRIES) {
      const address = await api('POST', '/customers', { auth: p.auth, body: individualBody({ address: { ...ADDRESS, country } }) });
      expectError(address, 400, 'INVALID_INPUT');
      expect(failingFields(address)).toEqual(['address.country']);
      const nationality = await api('POST', '/customers', { auth: p.auth, body: individualBody({ nationality: country }) });
      expect(failingFields(nationality)).toEqual(['nationality']);
      const operation = await api('POST', '/customers', {
        auth: p.auth,
        body: businessBody({}, { countriesOfOperation: ['US', country] }),
      });
      expect(failingFields(operation)).toEqual(['businessInfo.countriesOfOperation.1']);
    }
  });

  it('beneficiaries, SWIFT accounts and a corridor`s countries', async () => {
    const { p, c } = await customerWith();
    let n = 0;
    const usd = (beneficiary: Record<string, unknown>) =>
      account(p, c.id, 'USD', {
        accountType: 'USD_ACCOUNT',
        accountNumber: `1234567890${n++}`,
        routingNumber: '021000021',
        bankAccountType: 'CHECKING',
        beneficiary,
      });
    const swift = (country: string) =>
      account(p, c.id, 'USD', {
        accountType: 'SWIFT_ACCOUNT',
        country,
        swiftCode: 'DEUTDEFF',
        bankName: 'Deutsche Bank',
        accountNumber: `2234567890${n++}`,
        beneficiary: person,
      });
    for (const country of COUNTRIES) {
      expect((await usd({ ...person, nationality: country, countryOfResidence: country })).status).toBe(201);
      expect((await swift(country)).status).toBe(201);
    }
    for (const country of NOT_COUNTRIES) {
      expect(failingFields(await usd({ ...person, nationality: country }))).toEqual(['accountInfo.beneficiary.nationality']);
      expect(failingFields(await usd({ ...person, countryOfResidence: country }))).toEqual(['accountInfo.beneficiary.countryOfResidence']);
      expect(failingFields(await usd({ ...person, address: { ...ADDRESS, country } }))).toEqual([
        'accountInfo.beneficiary.address.country',
      ]);
      expect(failingFields(await swift(country))).toEqual(['accountInfo.country']);
      const eur = await account(p, c.id, 'EUR', {
        accountType: 'EUR_ACCOUNT',
        iban: 'DE89370400440532013000',
        countries: ['DE', country],
        beneficiary: person,
      });
      expect(failingFields(eur)).toEqual(['accountInfo.countries.1']);
    }
  });

  it('documents and the UMA provider filter', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
    const upload = (country: string) => {
      const parts: FormPart[] = Object.entries({ documentHolder: c.id, documentType: 'PASSPORT', country }).map(([name, value]) => ({
        name,
        value,
      }));
      return postForm('/documents', p.auth, [
        ...parts,
        { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: PDF },
      ]);
    };
    for (const country of COUNTRIES) {
      expect((await upload(country)).status).toBe(201);
      expect((await api('GET', `/uma-providers?countryCode=${country}`, { auth: p.auth })).status).toBe(200);
    }
    for (const country of NOT_COUNTRIES) {
      const doc = await upload(country);
      expectError(doc, 400, 'INVALID_INPUT');
      expect(failingFields(doc)).toEqual(['country']);
      const list = await api('GET', `/uma-providers?countryCode=${country}`, { auth: p.auth });
      expectError(list, 400, 'INVALID_INPUT');
      expect(failingFields(list)).toEqual(['countryCode']);
    }
  });
});

describe('Brazilian CNPJ: numeric and alphanumeric', () => {
  // 12ABC34501DE35: the alphanumeric example of the published rule; 11222333000181: a classic numeric one.
  const ALPHANUMERIC = '12ABC34501DE35';
  const NUMERIC = '11222333000181';

  it('computes the example`s check digits from the rule', () => {
    expect(cnpjCheckDigits('12ABC34501DE')).toBe('35');
    expect(cnpjCheckDigits('112223330001')).toBe('81');
  });

  it('accepts both forms as taxId and as a CNPJ PIX key; refuses wrong check digits, small letters and letters in them', async () => {
    const { p, c } = await customerWith();
    let n = 0;
    const brl = (taxId: string, pixKey = `user${n++}@example.com`, pixKeyType = 'EMAIL') =>
      account(p, c.id, 'BRL', { accountType: 'BRL_ACCOUNT', pixKey, pixKeyType, taxId, beneficiary: person });
    const body = `A1B2C3D41A2B`;
    const generated = body + cnpjCheckDigits(body);
    for (const cnpj of [ALPHANUMERIC, NUMERIC, generated]) {
      const asTaxId = await brl(cnpj);
      expect(asTaxId.status, JSON.stringify(asTaxId.body)).toBe(201);
      expect(asTaxId.body.accountInfo.taxId).toBe(cnpj);
      expect((await brl('52998224725', cnpj, 'CNPJ')).status).toBe(201);
    }
    for (const bad of ['12ABC34501DE36', '12abc34501de35', '12ABC34501DEA5', 'AAAAAAAAAAAAAA', '00000000000000', '12ABC34501DE3']) {
      expect(failingFields(await brl(bad))).toEqual(['accountInfo.taxId']);
      expect(failingFields(await brl('52998224725', bad, 'CNPJ'))).toEqual(['accountInfo.pixKey']);
    }
  });
});
