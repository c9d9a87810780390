import { describe, expect, it } from 'vitest';
import { primaryIdentifier } from '../../src/external-accounts/beneficiary';
import { textSuffix } from '../../src/external-accounts/corridors/define';
import { api, expectError, failingFields, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { ADDRESS, createCustomer, productionApi, walk } from '../support/customers';
import { INVOICE, SPARK, sparkWithSuffix } from '../support/identifiers';

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', birthDate: '1990-01-15', nationality: 'US', address: ADDRESS };
const usBank = (accountNumber: string, beneficiary: Record<string, unknown> = person) => ({
  accountType: 'USD_ACCOUNT',
  accountNumber,
  routingNumber: '021000021',
  bankAccountType: 'CHECKING',
  bankName: 'Chase Bank',
  beneficiary,
});

async function customerWith(p?: TestPlatform) {
  const platform = p ?? (await newPlatform());
  return { p: platform, c: await createCustomer(platform) };
}

const create = (p: TestPlatform, body: Record<string, unknown>) => api('POST', '/customers/external-accounts', { auth: p.auth, body });

describe('POST /customers/external-accounts', () => {
  it('creates a US bank account with the reference ExternalAccount shape', async () => {
    const { p, c } = await customerWith();
    const res = await create(p, {
      customerId: c.id,
      currency: 'USD',
      platformAccountId: 'ext_acc_123456',
      accountInfo: usBank('12345678901'),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ExternalAccount:[0-9a-f-]{36}$/),
      customerId: c.id,
      status: 'ACTIVE',
      platformAccountId: 'ext_acc_123456',
      currency: 'USD',
      defaultUmaDepositAccount: false,
      beneficiaryVerificationStatus: 'MATCHED',
      beneficiaryVerifiedData: { fullName: 'John Doe' },
      accountInfo: { ...usBank('12345678901'), paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'], countries: ['US'] },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api('GET', `/customers/external-accounts/${res.body.id}`, { auth: p.auth })).body).toEqual(res.body);
  });

  it('accepts IBAN, CLABE, GBP, Spark, Lightning and on-chain wallet variants', async () => {
    const { p, c } = await customerWith();
    const variants: [string, Record<string, unknown>, Record<string, string[]> | undefined][] = [
      [
        'EUR',
        { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', swiftCode: 'DEUTDEFF', beneficiary: person },
        { paymentRails: ['SEPA', 'SEPA_INSTANT'], countries: ['DE'] },
      ],
      [
        'MXN',
        {
          accountType: 'MXN_ACCOUNT',
          clabeNumber: '032180000118359719',
          beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme SA de CV', taxId: 'ACM010101AAA' },
        },
        { paymentRails: ['SPEI'], countries: ['MX'] },
      ],
      [
        'GBP',
        {
          accountType: 'GBP_ACCOUNT',
          sortCode: '123456',
          accountNumber: '12345678',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ann Lee' },
        },
        { paymentRails: ['FASTER_PAYMENTS'], countries: ['GB'] },
      ],
      ['BTC', { accountType: 'SPARK_WALLET', address: SPARK }, undefined],
      ['BTC', { accountType: 'LIGHTNING', lightningAddress: 'john.doe@lightningwallet.com' }, undefined],
      ['BTC', { accountType: 'LIGHTNING', invoice: INVOICE }, undefined],
      ['USDC', { accountType: 'SOLANA_WALLET', address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' }, undefined],
      ['USDC', { accountType: 'ETHEREUM_WALLET', address: '0x742d35Cc6634C0532925a3b844Bc454e4438f44e' }, undefined],
      ['USDC', { accountType: 'BASE_WALLET', address: '0x742d35cc6634c0532925a3b844bc454e4438f44f' }, undefined],
      ['USDC', { accountType: 'POLYGON_WALLET', address: '0x742d35cc6634c0532925a3b844bc454e4438f440' }, undefined],
      ['USDC', { accountType: 'TRON_WALLET', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }, undefined],
    ];
    for (const [currency, accountInfo, derived] of variants) {
      const res = await create(p, { customerId: c.id, currency, accountInfo });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.accountInfo).toEqual({ ...accountInfo, ...derived });
      expect(res.body.currency).toBe(currency);
    }
    expect((await api('GET', `/customers/external-accounts?customerId=${c.id}&limit=100`, { auth: p.auth })).body.totalCount).toBe(
      variants.length,
    );
  });

  it('sets beneficiaryVerificationStatus by the last 3 digits, 105 refusing the account', async () => {
    const { p, c } = await customerWith();
    const table: [string, string, Record<string, unknown> | undefined][] = [
      ['102', 'NOT_MATCHED', undefined],
      ['103', 'PARTIAL_MATCH', { fullName: 'J. Doe' }],
      ['104', 'PENDING', undefined],
      ['106', 'UNSUPPORTED', undefined],
      ['107', 'CHECKED_BY_RECEIVING_FI', undefined],
      ['101', 'MATCHED', { fullName: 'John Doe' }],
      ['555', 'MATCHED', { fullName: 'John Doe' }],
    ];
    for (const [suffix, status, verified] of table) {
      const res = await create(p, { customerId: c.id, currency: 'USD', accountInfo: usBank(`9876543${suffix}`) });
      expect(res.status).toBe(201);
      expect(res.body.beneficiaryVerificationStatus, suffix).toBe(status);
      if (verified) expect(res.body.beneficiaryVerifiedData).toEqual(verified);
      else expect(res.body).not.toHaveProperty('beneficiaryVerifiedData');
    }
    const refused = await create(p, { customerId: c.id, currency: 'USD', accountInfo: usBank('9876543105') });
    expectError(refused, 400, 'INVALID_BANK_ACCOUNT');
    expect(refused.body.message).toMatch(/invalid account/i);
    expect(failingFields(refused)).toEqual(['accountInfo.accountNumber']);
    // IBAN and CLABE: the same rule on their last digits.
    const iban = await create(p, {
      customerId: c.id,
      currency: 'EUR',
      accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE24370400440532013103', beneficiary: person },
    });
    expect(iban.body.beneficiaryVerificationStatus).toBe('PARTIAL_MATCH');
    expectError(
      await create(p, {
        customerId: c.id,
        currency: 'MXN',
        accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '032180000118358105', beneficiary: person },
      }),
      400,
      'INVALID_BANK_ACCOUNT',
    );
    // Nothing was stored for the refused accounts.
    expect((await api('GET', `/customers/external-accounts?customerId=${c.id}&limit=100`, { auth: p.auth })).body.totalCount).toBe(
      table.length + 1,
    );
  });

  it('reads the digits of identifiers with a domain part from the username', async () => {
    const { p, c } = await customerWith();
    const lightning = (lightningAddress: string) =>
      create(p, { customerId: c.id, currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', lightningAddress } });
    expect((await lightning('user102@wallet.example')).body.beneficiaryVerificationStatus).toBe('NOT_MATCHED');
    expect((await lightning('user107@wallet107.example')).body.beneficiaryVerificationStatus).toBe('CHECKED_BY_RECEIVING_FI');
    expect((await lightning('alice@wallet102.example')).body.beneficiaryVerificationStatus).toBe('MATCHED');
    expectError(await lightning('user105@wallet.example'), 400, 'INVALID_BANK_ACCOUNT');
    const spark = await create(p, {
      customerId: c.id,
      currency: 'BTC',
      accountInfo: { accountType: 'SPARK_WALLET', address: sparkWithSuffix('104') },
    });
    expect(spark.body.beneficiaryVerificationStatus).toBe('PENDING');
  });

  it('exports the primary identifier and its suffix for the payments work', () => {
    expect(primaryIdentifier({ accountType: 'USD_ACCOUNT', identifier: '9876543002' })).toEqual({
      identifier: '9876543002',
      suffix: '002',
    });
    expect(textSuffix('user005@wallet.example')).toBe('005');
    expect(textSuffix('spark1abcxyz')).toBeNull();
    expect(textSuffix('12')).toBeNull();
    // Encoded addresses: the last 3 digits of their decoded value (their text has no 0 or no 1).
    expect(primaryIdentifier({ accountType: 'SPARK_WALLET', identifier: sparkWithSuffix('002') }).suffix).toBe('002');
  });

  it('rejects invalid input, a mismatched currency and a duplicate', async () => {
    const { p, c } = await customerWith();
    const cases: [unknown, string[]][] = [
      [{ customerId: c.id, currency: 'USD' }, ['accountInfo']],
      [{ customerId: c.id, currency: 'USD', accountInfo: { accountType: 'CHEQUE' } }, ['accountInfo.accountType']],
      [{ customerId: c.id, currency: 'USD', accountInfo: usBank('12ab') }, ['accountInfo.accountNumber']],
      [{ customerId: c.id, currency: 'USD', accountInfo: { ...usBank('123456789'), routingNumber: '12' } }, ['accountInfo.routingNumber']],
      [
        { customerId: c.id, currency: 'USD', accountInfo: { ...usBank('123456789'), beneficiary: { beneficiaryType: 'INDIVIDUAL' } } },
        ['accountInfo.beneficiary.fullName'],
      ],
      [
        { customerId: c.id, currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'XX', beneficiary: person } },
        ['accountInfo.iban'],
      ],
      [
        {
          customerId: c.id,
          currency: 'EUR',
          accountInfo: {
            accountType: 'EUR_ACCOUNT',
            iban: 'DE89370400440532013000',
            beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'No Address' },
          },
        },
        ['accountInfo.beneficiary.address'],
      ],
      [
        { customerId: c.id, currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '123', beneficiary: person } },
        ['accountInfo.clabeNumber'],
      ],
      [{ customerId: c.id, currency: 'BTC', accountInfo: { accountType: 'LIGHTNING' } }, ['accountInfo']],
      [
        { customerId: c.id, currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', lightningAddress: 'a@b.example', invoice: INVOICE } },
        ['accountInfo'],
      ],
      [{ customerId: c.id, currency: 'USDC', accountInfo: { accountType: 'ETHEREUM_WALLET', address: '0x123' } }, ['accountInfo.address']],
      [{ customerId: c.id, currency: 'EUR', accountInfo: usBank('123456789') }, ['currency']],
      [{ customerId: c.id, currency: 'ZZZ', accountInfo: usBank('123456789') }, ['currency']],
      [{ customerId: c.id, currency: 'USD', accountInfo: usBank('123456789'), nickname: 'x' }, ['nickname']],
    ];
    for (const [body, fields] of cases) {
      const res = await api('POST', '/customers/external-accounts', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(body)).toEqual(fields);
    }
    expect((await create(p, { customerId: c.id, currency: 'USD', accountInfo: usBank('111222333') })).status).toBe(201);
    expectError(await create(p, { customerId: c.id, currency: 'USD', accountInfo: usBank('111222333') }), 409, 'CONFLICT');
    // Another customer may register the same destination.
    const d = await createCustomer(p);
    expect((await create(p, { customerId: d.id, currency: 'USD', accountInfo: usBank('111222333') })).status).toBe(201);
  });

  it('keeps one default UMA deposit account per customer', async () => {
    const { p, c } = await customerWith();
    const a = (await create(p, { customerId: c.id, currency: 'USD', defaultUmaDepositAccount: true, accountInfo: usBank('100000001') }))
      .body;
    expect(a.defaultUmaDepositAccount).toBe(true);
    const b = (await create(p, { customerId: c.id, currency: 'USD', defaultUmaDepositAccount: true, accountInfo: usBank('100000002') }))
      .body;
    expect(b.defaultUmaDepositAccount).toBe(true);
    expect((await api('GET', `/customers/external-accounts/${a.id}`, { auth: p.auth })).body.defaultUmaDepositAccount).toBe(false);
  });

  it('404s an unknown or other-platform customer, 410s a deleted one, needs MANAGE', async () => {
    const { p, c } = await customerWith();
    const q = await newPlatform();
    expectError(await create(q, { customerId: c.id, currency: 'USD', accountInfo: usBank('123456789') }), 404, 'USER_NOT_FOUND');
    expectError(await create(p, { customerId: 'Customer:nope', currency: 'USD', accountInfo: usBank('123456789') }), 404, 'USER_NOT_FOUND');
    const gone = await createCustomer(p);
    await api('DELETE', `/customers/${gone.id}`, { auth: p.auth });
    expectError(await create(p, { customerId: gone.id, currency: 'USD', accountInfo: usBank('123456789') }), 410, 'CUSTOMER_DELETED');
    expectError(
      await api('POST', '/customers/external-accounts', {
        auth: await tokenWith(p, ['VIEW', 'TRANSACT']),
        body: { customerId: c.id, currency: 'USD', accountInfo: usBank('123456789') },
      }),
      403,
    );
  });

  it('in production marks name verification UNSUPPORTED and honours no magic suffix', async () => {
    const { p, c } = await customerWith();
    const res = await productionApi('POST', '/customers/external-accounts', {
      auth: p.auth,
      body: { customerId: c.id, currency: 'USD', accountInfo: usBank('9876543105') },
    });
    expect(res.status).toBe(201);
    expect(res.body.beneficiaryVerificationStatus).toBe('UNSUPPORTED');
  });
});

describe('GET/DELETE /customers/external-accounts', () => {
  it('lists with filters and pages, gets and deletes; other platforms get 404', async () => {
    const { p, c } = await customerWith();
    const d = await createCustomer(p);
    const ids = [];
    for (let i = 0; i < 4; i++)
      ids.push((await create(p, { customerId: c.id, currency: 'USD', accountInfo: usBank(`20000000${i}`) })).body.id);
    const eur = (
      await create(p, {
        customerId: d.id,
        currency: 'EUR',
        accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary: person },
      })
    ).body.id;
    const page = (await api('GET', '/customers/external-accounts?limit=2', { auth: p.auth })).body;
    expect(page).toMatchObject({ hasMore: true, totalCount: 5 });
    expect(page.data.map((x: any) => x.id)).toEqual(ids.slice(0, 2));
    expect((await walk('/customers/external-accounts?limit=2', p.auth)).map((x) => x.id)).toEqual([...ids, eur]);
    expect((await api('GET', '/customers/external-accounts?currency=EUR', { auth: p.auth })).body.data.map((x: any) => x.id)).toEqual([
      eur,
    ]);
    expect((await api('GET', `/customers/external-accounts?customerId=${d.id}`, { auth: p.auth })).body.data.map((x: any) => x.id)).toEqual(
      [eur],
    );
    expectError(await api('GET', '/customers/external-accounts?limit=500', { auth: p.auth }), 400);

    const q = await newPlatform();
    expectError(
      await api('GET', `/customers/external-accounts/${eur}`, { auth: q.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'EXTERNAL_ACCOUNT_NOT_FOUND',
    );
    expectError(
      await api('DELETE', `/customers/external-accounts/${eur}`, { auth: q.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'EXTERNAL_ACCOUNT_NOT_FOUND',
    );
    expect((await api('GET', '/customers/external-accounts', { auth: q.auth })).body.totalCount).toBe(0);
    expectError(await api('DELETE', `/customers/external-accounts/${eur}`, { auth: await tokenWith(p, ['VIEW']) }), 403);
    expectError(await api('GET', `/customers/external-accounts/${eur}`, { auth: await tokenWith(p, ['MANAGE']) }), 403);
    expectError(await api('GET', '/customers/external-accounts', { auth: await tokenWith(p, ['MANAGE', 'TRANSACT']) }), 403);

    const del = await api('DELETE', `/customers/external-accounts/${eur}`, { auth: p.auth });
    expect(del.status).toBe(204);
    expect(del.body).toBe('');
    expectError(await api('GET', `/customers/external-accounts/${eur}`, { auth: p.auth }), 404);
    expectError(await api('DELETE', `/customers/external-accounts/${eur}`, { auth: p.auth }), 404);
    expect((await api('GET', '/customers/external-accounts', { auth: p.auth })).body.totalCount).toBe(4);
    // Deleted accounts free their identifier.
    expect(
      (
        await create(p, {
          customerId: d.id,
          currency: 'EUR',
          accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary: person },
        })
      ).status,
    ).toBe(201);
  });
});

describe('/platform/external-accounts', () => {
  it("creates, lists, gets and deletes the platform's own accounts, apart from customers'", async () => {
    const { p, c } = await customerWith();
    const customerAccount = (await create(p, { customerId: c.id, currency: 'USD', accountInfo: usBank('300000001') })).body;
    const res = await api('POST', '/platform/external-accounts', {
      auth: p.auth,
      body: { currency: 'USD', platformAccountId: 'treasury', accountInfo: usBank('300000001') },
    });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('customerId');
    expect(res.body).toMatchObject({
      platformAccountId: 'treasury',
      beneficiaryVerificationStatus: 'MATCHED',
      defaultUmaDepositAccount: false,
    });
    expectError(
      await api('POST', '/platform/external-accounts', { auth: p.auth, body: { currency: 'USD', accountInfo: usBank('300000001') } }),
      409,
    );
    expectError(
      await api('POST', '/platform/external-accounts', {
        auth: p.auth,
        body: { customerId: c.id, currency: 'USD', accountInfo: usBank('300000009') },
      }),
      400,
    );
    expectError(
      await api('POST', '/platform/external-accounts', { auth: p.auth, body: { currency: 'USD', accountInfo: usBank('300000105') } }),
      400,
      'INVALID_BANK_ACCOUNT',
    );
    const list = (await api('GET', '/platform/external-accounts', { auth: p.auth })).body;
    expect(list).toEqual({ data: [res.body], hasMore: false, totalCount: 1 });
    expect((await api('GET', '/customers/external-accounts', { auth: p.auth })).body.data.map((x: any) => x.id)).toEqual([
      customerAccount.id,
    ]);
    expect((await api('GET', `/platform/external-accounts/${res.body.id}`, { auth: p.auth })).body).toEqual(res.body);
    expectError(await api('GET', `/platform/external-accounts/${customerAccount.id}`, { auth: p.auth }), 404);
    expectError(await api('DELETE', `/platform/external-accounts/${customerAccount.id}`, { auth: p.auth }), 404);
    const q = await newPlatform();
    expectError(await api('GET', `/platform/external-accounts/${res.body.id}`, { auth: q.auth }), 404);
    expectError(await api('DELETE', `/platform/external-accounts/${res.body.id}`, { auth: q.auth }), 404);
    expectError(
      await api('POST', '/platform/external-accounts', {
        auth: await tokenWith(p, ['VIEW']),
        body: { currency: 'USD', accountInfo: usBank('300000002') },
      }),
      403,
    );
    expectError(await api('GET', '/platform/external-accounts', { auth: await tokenWith(p, ['TRANSACT']) }), 403);
    expectError(await api('GET', `/platform/external-accounts/${res.body.id}`, { auth: await tokenWith(p, ['MANAGE']) }), 403);
    expectError(await api('DELETE', `/platform/external-accounts/${res.body.id}`, { auth: await tokenWith(p, ['VIEW', 'TRANSACT']) }), 403);
    expect((await api('DELETE', `/platform/external-accounts/${res.body.id}`, { auth: p.auth })).status).toBe(204);
    expect((await api('GET', '/platform/external-accounts', { auth: p.auth })).body.totalCount).toBe(0);
  });
});
