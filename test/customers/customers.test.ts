import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, tokenWith } from '../support/api';
import { accountsOf, ADDRESS, businessBody, createCustomer, individualBody, uniqueId, walk } from '../support/customers';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /customers', () => {
  it('creates an individual with the reference fields, a default UMA address and its internal accounts', async () => {
    const p = await newPlatform();
    const res = await api('POST', '/customers', {
      auth: p.auth,
      body: { ...individualBody({ platformCustomerId: 'ind-9f84e0c2' }), region: 'US', email: 'jane@example.com' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^Customer:[0-9a-f-]{36}$/),
      platformCustomerId: 'ind-9f84e0c2',
      customerType: 'INDIVIDUAL',
      region: 'US',
      currencies: ['USD', 'EUR', 'MXN', 'BRL', 'INR'],
      email: 'jane@example.com',
      umaAddress: `$ind-9f84e0c2@${p.umaDomain}`,
      kycStatus: 'UNVERIFIED',
      fullName: 'Jane Smith',
      birthDate: '1990-01-15',
      nationality: 'US',
      address: ADDRESS,
      isDeleted: false,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const accounts = await accountsOf(p, res.body.id);
    expect(accounts.map((a) => [a.type, a.balance.currency.code, a.status, a.balance.amount])).toEqual([
      ['INTERNAL_FIAT', 'USD', 'ACTIVE', 0],
      ['INTERNAL_FIAT', 'EUR', 'ACTIVE', 0],
      ['INTERNAL_FIAT', 'MXN', 'ACTIVE', 0],
      ['INTERNAL_FIAT', 'BRL', 'ACTIVE', 0],
      ['INTERNAL_FIAT', 'INR', 'ACTIVE', 0],
      ['EMBEDDED_WALLET', 'USD', 'ACTIVE', 0],
    ]);
    expect(accounts.every((a) => a.customerId === res.body.id)).toBe(true);
  });

  it('creates a business with businessInfo and an empty beneficialOwners list', async () => {
    const p = await newPlatform();
    const body = businessBody(
      { platformCustomerId: 'biz-acme-001', umaAddress: `$acme@${p.umaDomain}`, currencies: ['USD'] },
      { doingBusinessAs: 'Acme', entityType: 'LLC', countriesOfOperation: ['US'] },
    );
    const res = await api('POST', '/customers', { auth: p.auth, body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^Customer:/),
      platformCustomerId: 'biz-acme-001',
      customerType: 'BUSINESS',
      currencies: ['USD'],
      umaAddress: `$acme@${p.umaDomain}`,
      kybStatus: 'UNVERIFIED',
      address: ADDRESS,
      businessInfo: {
        legalName: 'Acme Corporation',
        doingBusinessAs: 'Acme',
        taxId: '47-1234567',
        incorporatedOn: '2018-03-14',
        registrationNumber: '5523041',
        entityType: 'LLC',
        countriesOfOperation: ['US'],
      },
      beneficialOwners: [],
      isDeleted: false,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
  });

  it('creates a business without businessInfo (not in the reference required list); the first businessInfo given later needs legalName', async () => {
    const p = await newPlatform();
    const res = await api('POST', '/customers', {
      auth: p.auth,
      body: { customerType: 'BUSINESS', platformCustomerId: 'biz-bare-001', region: 'US', currencies: ['USD'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      customerType: 'BUSINESS',
      platformCustomerId: 'biz-bare-001',
      kybStatus: 'UNVERIFIED',
      beneficialOwners: [],
    });
    expect(res.body).not.toHaveProperty('businessInfo');
    expect((await api('GET', `/customers/${res.body.id}`, { auth: p.auth })).body).toEqual(res.body);

    const noName = await api('PATCH', `/customers/${res.body.id}`, {
      auth: p.auth,
      body: { customerType: 'BUSINESS', businessInfo: { taxId: '47-1234567' } },
    });
    expectError(noName, 400, 'INVALID_INPUT');
    expect(failingFields(noName)).toEqual(['businessInfo.legalName']);
    const named = await api('PATCH', `/customers/${res.body.id}`, {
      auth: p.auth,
      body: { customerType: 'BUSINESS', businessInfo: { legalName: 'Bare Co', taxId: '47-1234567' } },
    });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect(named.body.businessInfo).toEqual({ legalName: 'Bare Co', taxId: '47-1234567' });
    // Once stored, a later update may leave the legal name out (it is merged).
    const more = await api('PATCH', `/customers/${res.body.id}`, {
      auth: p.auth,
      body: { customerType: 'BUSINESS', businessInfo: { incorporatedOn: '2018-03-14' } },
    });
    expect(more.body.businessInfo).toEqual({ legalName: 'Bare Co', taxId: '47-1234567', incorporatedOn: '2018-03-14' });
  });

  it('provisions INTERNAL_CRYPTO for BTC/USDC, and the wallet in the first currency when USD is not supported', async () => {
    const currencies = ['EUR', 'BTC', 'USDC'].map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 1000,
      enabledTransactionTypes: ['OUTGOING'],
      requiredCounterpartyFields: [],
    }));
    const p = await newPlatform({ supportedCurrencies: currencies });
    const c = await createCustomer(p);
    expect((await accountsOf(p, c.id)).map((a) => [a.type, a.balance.currency.code])).toEqual([
      ['INTERNAL_FIAT', 'EUR'],
      ['INTERNAL_CRYPTO', 'BTC'],
      ['INTERNAL_CRYPTO', 'USDC'],
      ['EMBEDDED_WALLET', 'EUR'],
    ]);
    const noWallet = await newPlatform({ supportedCurrencies: currencies, embeddedWalletConfig: undefined });
    const d = await createCustomer(noWallet);
    expect((await accountsOf(noWallet, d.id)).map((a) => a.type)).toEqual(['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'INTERNAL_CRYPTO']);
  });

  it('generates a platformCustomerId when omitted and accepts an address without $', async () => {
    const p = await newPlatform();
    const res = await api('POST', '/customers', { auth: p.auth, body: { customerType: 'INDIVIDUAL', umaAddress: `bob@${p.umaDomain}` } });
    expect(res.status).toBe(201);
    expect(res.body.platformCustomerId).toBe(res.body.id.slice('Customer:'.length));
    expect(res.body.umaAddress).toBe(`$bob@${p.umaDomain}`);
  });

  it('rejects invalid input naming each field', async () => {
    const p = await newPlatform();
    const cases: [unknown, string[]][] = [
      [{}, ['customerType']],
      [{ customerType: 'ROBOT' }, ['customerType']],
      [individualBody({ email: 'not-an-email', birthDate: '1990-13-45', nationality: 'usa' }), ['email', 'birthDate', 'nationality']],
      [individualBody({ address: { line1: 'x', country: 'US' } }), ['address.postalCode']],
      [individualBody({ region: 'United States' }), ['region']],
      [individualBody({ shoeSize: 42 }), ['shoeSize']],
      [individualBody({ currencies: ['USD', 'USD'] }), ['currencies']],
      [individualBody({ currencies: ['XYZ'] }), ['currencies.0']],
      [individualBody({ currencies: ['GBP'] }), ['currencies.0']],
      [individualBody({ umaAddress: '$jane@elsewhere.test' }), ['umaAddress']],
      [individualBody({ umaAddress: 'no at sign' }), ['umaAddress']],
      [individualBody({ platformCustomerId: 'has space' }), ['umaAddress']],
      [individualBody({ kycStatus: 'APPROVED' }), ['kycStatus']],
      [businessBody({}, { taxId: undefined }), ['businessInfo.taxId']],
      [
        { customerType: 'BUSINESS', platformCustomerId: 'b1', businessInfo: {} },
        ['businessInfo.legalName', 'businessInfo.taxId', 'businessInfo.incorporatedOn'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await api('POST', '/customers', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort(), JSON.stringify(body)).toEqual([...fields].sort());
    }
    expectError(
      await api('POST', '/customers', { auth: p.auth, raw: '{', headers: { 'Content-Type': 'application/json' } }),
      400,
      'INVALID_INPUT',
    );
  });

  it('lets a regulated platform set kycStatus/kybStatus itself', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    expect((await createCustomer(p, individualBody({ kycStatus: 'APPROVED' }))).kycStatus).toBe('APPROVED');
    expect((await createCustomer(p, businessBody({ kybStatus: 'PENDING' }))).kybStatus).toBe('PENDING');
  });

  it('409s a duplicate platformCustomerId (CONFLICT) and a taken UMA address (UMA_ADDRESS_EXISTS), per platform', async () => {
    const p = await newPlatform();
    await createCustomer(p, individualBody({ platformCustomerId: 'dup-1' }));
    expectError(await api('POST', '/customers', { auth: p.auth, body: individualBody({ platformCustomerId: 'dup-1' }) }), 409, 'CONFLICT');
    expectError(
      await api('POST', '/customers', {
        auth: p.auth,
        body: individualBody({ platformCustomerId: 'dup-2', umaAddress: `$dup-1@${p.umaDomain}` }),
      }),
      409,
      'UMA_ADDRESS_EXISTS',
    );
    // Another platform has its own namespace.
    const q = await newPlatform();
    await createCustomer(q, individualBody({ platformCustomerId: 'dup-1' }));
  });

  it('needs MANAGE and credentials', async () => {
    const p = await newPlatform();
    for (const perms of [['VIEW'], ['TRANSACT'], ['VIEW', 'TRANSACT']]) {
      expectError(await api('POST', '/customers', { auth: await tokenWith(p, perms), body: individualBody() }), 403, 'FORBIDDEN');
    }
    expectError(await api('POST', '/customers', { body: individualBody() }), 401, 'UNAUTHORIZED');
    expect((await api('POST', '/customers', { auth: await tokenWith(p, ['MANAGE']), body: individualBody() })).status).toBe(201);
  });
});

describe('GET /customers/{id}', () => {
  it('returns the customer; unknown and other-platform ids are 404 USER_NOT_FOUND', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p, businessBody());
    const res = await api('GET', `/customers/${c.id}`, { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(c);
    expectError(await api('GET', `/customers/Customer:00000000-0000-7000-8000-000000000000`, { auth: p.auth }), 404, 'USER_NOT_FOUND');
    const q = await newPlatform();
    expectError(await api('GET', `/customers/${c.id}`, { auth: q.auth }), 404, 'USER_NOT_FOUND');
    expectError(await api('GET', `/customers/${c.id}`, { auth: await tokenWith(p, ['MANAGE']) }), 403);
    expect((await api('GET', `/customers/${c.id}`, { auth: await tokenWith(p, ['VIEW']) })).status).toBe(200);
  });
});

describe('PATCH /customers/{id}', () => {
  it('updates ordinary fields, e-mail included, and merges businessInfo', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p, individualBody());
    const res = await api('PATCH', `/customers/${c.id}`, {
      auth: p.auth,
      body: {
        customerType: 'INDIVIDUAL',
        fullName: 'John Smith',
        email: 'john@example.com',
        currencies: ['USD', 'EUR'],
        umaAddress: `$john@${p.umaDomain}`,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...c,
      fullName: 'John Smith',
      email: 'john@example.com',
      currencies: ['USD', 'EUR'],
      umaAddress: `$john@${p.umaDomain}`,
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(c.updatedAt));
    expect((await api('GET', `/customers/${c.id}`, { auth: p.auth })).body).toEqual(res.body);

    const b = await createCustomer(p, businessBody());
    const upd = await api('PATCH', `/customers/${b.id}`, {
      auth: p.auth,
      body: { customerType: 'BUSINESS', businessInfo: { legalName: 'New Tech Solutions LLC', registrationNumber: 'BRN-987654321' } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.businessInfo).toEqual({ ...b.businessInfo, legalName: 'New Tech Solutions LLC', registrationNumber: 'BRN-987654321' });
  });

  it('rejects a type change, immutable or unknown fields, and bad values', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p, individualBody());
    const cases: [unknown, string[]][] = [
      [{ customerType: 'BUSINESS' }, ['customerType']],
      [{ fullName: 'x' }, ['customerType']],
      [{ customerType: 'INDIVIDUAL', region: 'MX' }, ['region']],
      [{ customerType: 'INDIVIDUAL', platformCustomerId: 'x' }, ['platformCustomerId']],
      [{ customerType: 'INDIVIDUAL', email: 'nope' }, ['email']],
      [{ customerType: 'INDIVIDUAL', umaAddress: '$x@other.test' }, ['umaAddress']],
      [{ customerType: 'INDIVIDUAL', kycStatus: 'APPROVED' }, ['kycStatus']],
    ];
    for (const [body, fields] of cases) {
      const res = await api('PATCH', `/customers/${c.id}`, { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(body)).toEqual(fields);
    }
  });

  it('409s a taken UMA address; 404s unknown and other-platform ids; needs MANAGE', async () => {
    const p = await newPlatform();
    const a = await createCustomer(p, individualBody());
    const b = await createCustomer(p, individualBody());
    expectError(
      await api('PATCH', `/customers/${b.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', umaAddress: a.umaAddress } }),
      409,
      'UMA_ADDRESS_EXISTS',
    );
    const q = await newPlatform();
    expectError(
      await api('PATCH', `/customers/${a.id}`, { auth: q.auth, body: { customerType: 'INDIVIDUAL', fullName: 'x' } }),
      404,
      'USER_NOT_FOUND',
    );
    expectError(
      await api('PATCH', `/customers/${a.id}`, { auth: await tokenWith(p, ['VIEW', 'TRANSACT']), body: { customerType: 'INDIVIDUAL' } }),
      403,
    );
  });

  it('keeps every field of concurrent updates to different fields', async () => {
    const p = await newPlatform();
    const b = await createCustomer(p, businessBody());
    const fields = ['doingBusinessAs', 'sourceOfFunds', 'taxId', 'legalName', 'registrationNumber'];
    await Promise.all(
      fields.map((f) =>
        api('PATCH', `/customers/${b.id}`, { auth: p.auth, body: { customerType: 'BUSINESS', businessInfo: { [f]: `new-${f}` } } }),
      ),
    );
    const after = (await api('GET', `/customers/${b.id}`, { auth: p.auth })).body;
    for (const f of fields) expect(after.businessInfo[f]).toBe(`new-${f}`);
  });
});

describe('DELETE /customers/{id}', () => {
  it('soft-deletes: readable with isDeleted, hidden from lists, accounts closed, ids reusable; again is 410', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p, individualBody({ platformCustomerId: 'gone-1' }));
    const res = await api('DELETE', `/customers/${c.id}`, { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...c, isDeleted: true, updatedAt: expect.stringMatching(ISO) });
    expect((await api('GET', `/customers/${c.id}`, { auth: p.auth })).body.isDeleted).toBe(true);
    expect((await api('GET', '/customers', { auth: p.auth })).body.data).toEqual([]);
    expect((await api('GET', '/customers?isIncludingDeleted=true', { auth: p.auth })).body.data.map((x: any) => x.id)).toEqual([c.id]);
    expect((await accountsOf(p, c.id)).every((a) => a.status === 'CLOSED')).toBe(true);
    expectError(await api('DELETE', `/customers/${c.id}`, { auth: p.auth }), 410, 'CUSTOMER_DELETED');
    expectError(await api('PATCH', `/customers/${c.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL' } }), 410, 'CUSTOMER_DELETED');
    const again = await createCustomer(p, individualBody({ platformCustomerId: 'gone-1' }));
    expect(again.umaAddress).toBe(c.umaAddress);
  });

  it('refuses (409) while an internal account holds funds; 404 for other platforms; needs MANAGE', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const [usd] = await accountsOf(p, c.id);
    expect((await api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: p.auth, body: { amount: 5 } })).status).toBe(200);
    expectError(await api('DELETE', `/customers/${c.id}`, { auth: p.auth }), 409, 'CONFLICT');
    expect((await api('GET', `/customers/${c.id}`, { auth: p.auth })).body.isDeleted).toBe(false);
    const q = await newPlatform();
    expectError(await api('DELETE', `/customers/${c.id}`, { auth: q.auth }), 404, 'USER_NOT_FOUND');
    expectError(await api('DELETE', `/customers/${c.id}`, { auth: await tokenWith(p, ['VIEW']) }), 403);
  });
});

describe('GET /customers', () => {
  it('filters by every reference filter', async () => {
    const p = await newPlatform();
    const a = await createCustomer(p, individualBody({ region: 'US', currencies: ['USD'] }));
    const b = await createCustomer(p, businessBody({ region: 'MX', currencies: ['MXN', 'USD'] }));
    const c = await createCustomer(p, individualBody({ region: 'MX', currencies: ['EUR'] }));
    const ids = async (q: string) => {
      const res = await api('GET', `/customers?${q}`, { auth: p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((x: any) => x.id);
    };
    expect(await ids('')).toEqual([a.id, b.id, c.id]);
    expect(await ids(`platformCustomerId=${b.platformCustomerId}`)).toEqual([b.id]);
    expect(await ids('customerType=INDIVIDUAL')).toEqual([a.id, c.id]);
    expect(await ids('region=MX')).toEqual([b.id, c.id]);
    expect(await ids('currency=USD')).toEqual([a.id, b.id]);
    expect(await ids(`umaAddress=${encodeURIComponent(c.umaAddress)}`)).toEqual([c.id]);
    expect(await ids(`createdAfter=${encodeURIComponent(b.createdAt)}`)).toEqual([b.id, c.id]);
    expect(await ids(`createdBefore=${encodeURIComponent(b.createdAt)}`)).toEqual([a.id, b.id]);
    await api('PATCH', `/customers/${a.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', fullName: 'Later' } });
    const later = (await api('GET', `/customers/${a.id}`, { auth: p.auth })).body.updatedAt;
    expect(await ids(`updatedAfter=${encodeURIComponent(later)}`)).toContain(a.id);
    expect(await ids(`updatedBefore=${encodeURIComponent(c.updatedAt)}`)).toEqual(expect.arrayContaining([b.id, c.id]));
    for (const bad of [
      'customerType=ROBOT',
      'limit=0',
      'limit=101',
      'createdAfter=yesterday',
      'isIncludingDeleted=yes',
      'cursor=garbage',
      'region=usa',
    ]) {
      expectError(await api('GET', `/customers?${bad}`, { auth: p.auth }), 400, 'INVALID_INPUT');
    }
    // Another platform sees none of them.
    expect((await api('GET', '/customers', { auth: (await newPlatform()).auth })).body).toEqual({
      data: [],
      hasMore: false,
      totalCount: 0,
    });
  });

  it('pages by keyset: first, middle and last pages, totalCount, no nextCursor on the last', async () => {
    const p = await newPlatform();
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await createCustomer(p)).id);
    const first = await api('GET', '/customers?limit=2', { auth: p.auth });
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 5, nextCursor: expect.any(String) });
    expect(first.body.data.map((x: any) => x.id)).toEqual(made.slice(0, 2));
    const middle = await api('GET', `/customers?limit=2&cursor=${first.body.nextCursor}`, { auth: p.auth });
    expect(middle.body.data.map((x: any) => x.id)).toEqual(made.slice(2, 4));
    expect(middle.body).toMatchObject({ hasMore: true, totalCount: 5 });
    const last = await api('GET', `/customers?limit=2&cursor=${middle.body.nextCursor}`, { auth: p.auth });
    expect(last.body.data.map((x: any) => x.id)).toEqual(made.slice(4));
    expect(last.body.hasMore).toBe(false);
    expect(last.body).not.toHaveProperty('nextCursor');
    expect(last.body.totalCount).toBe(5);
  });

  it('returns every pre-existing customer exactly once while customers are created between pages', async () => {
    const p = await newPlatform();
    const before = [];
    for (let i = 0; i < 7; i++) before.push((await createCustomer(p)).id);
    const seen = await walk('/customers?limit=3', p.auth, async () => {
      await createCustomer(p);
    });
    const ids = seen.map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids.filter((x) => x === id)).toHaveLength(1);
  });

  it('searches platformCustomerId, full name, legal name and e-mail, ignoring case, without totalCount', async () => {
    const p = await newPlatform();
    const tag = uniqueId('srch');
    const jane = await createCustomer(
      p,
      individualBody({ platformCustomerId: `${tag}-jane`, fullName: 'Jane Smith', email: 'jane@example.com' }),
    );
    const acme = await createCustomer(p, businessBody({ platformCustomerId: `${tag}-acme`, email: 'billing@acme.test' }));
    const bob = await createCustomer(p, individualBody({ platformCustomerId: `${tag}-bob`, fullName: 'Bob Smithers' }));
    const pct = await createCustomer(p, individualBody({ platformCustomerId: `${tag}-pct`, fullName: 'Fifty 50% Off' }));
    const under = await createCustomer(p, individualBody({ platformCustomerId: `${tag}-under`, fullName: 'Under_Score' }));
    const other = await newPlatform();
    await createCustomer(other, individualBody({ fullName: 'Jane Smith' }));
    const search = async (term: string, extra = '') => {
      const res = await api('GET', `/customers?search=${encodeURIComponent(term)}${extra}`, { auth: p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const ids = async (term: string) => (await search(term)).data.map((x: any) => x.id);
    expect(await ids('smith')).toEqual([jane.id, bob.id]); // partial full names, any case
    expect(await ids('SMITHERS')).toEqual([bob.id]);
    expect(await ids('acme corp')).toEqual([acme.id]); // the legal name
    expect(await ids(`${tag}-JANE`.toUpperCase())).toEqual([jane.id]); // platformCustomerId
    expect(await ids('Example.COM')).toEqual([jane.id]); // the e-mail
    expect(await ids(tag)).toEqual([jane.id, acme.id, bob.id, pct.id, under.id]);
    // % and _ are characters, not patterns.
    expect(await ids('50%')).toEqual([pct.id]);
    expect(await ids('0% o')).toEqual([pct.id]);
    expect(await ids('r_S')).toEqual([under.id]);
    expect(await ids('r%s')).toEqual([]);
    expect(await ids('nobody')).toEqual([]);
    // Pages follow a cursor; other filters still apply. Matches are not counted (issue 24: a count would read
    // every match on every page): totalCount is absent.
    const first = await search('smith', '&limit=1');
    expect(first).toMatchObject({ data: [{ id: jane.id }], hasMore: true, nextCursor: expect.any(String) });
    expect(first).not.toHaveProperty('totalCount');
    const second = await search('smith', `&limit=1&cursor=${first.nextCursor}`);
    expect(second).toEqual({ data: [expect.objectContaining({ id: bob.id })], hasMore: false });
    expect((await search('smith', `&platformCustomerId=${encodeURIComponent(bob.platformCustomerId)}`)).data).toHaveLength(1);
    expect((await search(tag, '&customerType=BUSINESS')).data.map((x: any) => x.id)).toEqual([acme.id]);
    // Up to 128 characters; an empty term is no search.
    expect(await search('x'.repeat(128))).toEqual({ data: [], hasMore: false });
    expect(failingFields(await api('GET', `/customers?search=${'x'.repeat(129)}`, { auth: p.auth }))).toEqual(['search']);
    expect((await search('')).totalCount).toBe(5);
  });

  it('serves terms of one and two characters through an index: two-letter surnames, an initial, a digit', async () => {
    const p = await newPlatform();
    const wu = await createCustomer(p, individualBody({ platformCustomerId: 'p-1', fullName: 'Wei Wu', email: 'wei@example.com' }));
    const li = await createCustomer(p, individualBody({ platformCustomerId: 'p-2', fullName: 'Li Na' }));
    const ng = await createCustomer(p, individualBody({ platformCustomerId: 'p-3', fullName: 'Kim Ng', email: 'kim.ng@x.test' }));
    const xi = await createCustomer(p, businessBody({ platformCustomerId: 'p-4x' }));
    const other = await newPlatform();
    await createCustomer(other, individualBody({ fullName: 'Other Wu' }));
    const page = async (term: string, extra = '') => {
      const res = await api('GET', `/customers?search=${encodeURIComponent(term)}${extra}`, { auth: p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).not.toHaveProperty('totalCount');
      return res.body;
    };
    const ids = async (term: string, extra = '') => (await page(term, extra)).data.map((x: any) => x.id);
    // A substring of any length, as longer terms: anywhere in a name, an id or an e-mail, ASCII letters in any case.
    expect(await ids('Wu')).toEqual([wu.id]);
    expect(await ids('wu')).toEqual([wu.id]);
    expect(await ids('LI')).toEqual([li.id]);
    expect(await ids('Ng')).toEqual([ng.id]);
    expect(await ids('4x')).toEqual([xi.id]);
    expect(await ids('X')).toEqual([wu.id, ng.id, xi.id]); // example.com, x.test, p-4x
    expect(await ids('W')).toEqual([wu.id]);
    expect(await ids('.')).toEqual([wu.id, ng.id]);
    expect(await ids('%')).toEqual([]);
    expect(await ids('zq')).toEqual([]);
    // Pages follow a cursor, other filters still apply.
    const first = await page('p-', '&limit=2');
    expect(first.data.map((x: any) => x.id)).toEqual([wu.id, li.id]);
    expect(await ids('p-', `&limit=2&cursor=${first.nextCursor}`)).toEqual([ng.id, xi.id]);
    expect(await ids('N', '&customerType=INDIVIDUAL')).toEqual([li.id, ng.id]);
  });

  it('needs VIEW', async () => {
    const p = await newPlatform();
    expectError(await api('GET', '/customers', { auth: await tokenWith(p, ['MANAGE', 'TRANSACT']) }), 403);
    expect((await api('GET', '/customers', { auth: await tokenWith(p, ['VIEW']) })).status).toBe(200);
  });
});
