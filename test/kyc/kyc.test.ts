import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { ADDRESS, businessBody, createCustomer, individualBody, personalInfo, productionApi, walk } from '../support/customers';

const ownerBody = (customerId: string, info: Record<string, unknown> = {}) => ({
  customerId,
  roles: ['UBO', 'DIRECTOR'],
  ownershipPercentage: 51,
  personalInfo: personalInfo(info),
});

async function business(p: TestPlatform, registrationNumber = '5523041') {
  return createCustomer(p, businessBody({}, { registrationNumber }));
}

describe('beneficial owners', () => {
  it('creates an owner with the reference BeneficialOwner shape; it appears on the business customer', async () => {
    const p = await newPlatform();
    const b = await business(p);
    const res = await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(b.id) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^BeneficialOwner:[0-9a-f-]{36}$/),
      customerId: b.id,
      roles: ['UBO', 'DIRECTOR'],
      ownershipPercentage: 51,
      personalInfo: personalInfo(),
      kycStatus: 'APPROVED',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api('GET', `/beneficial-owners/${res.body.id}`, { auth: p.auth })).body).toEqual(res.body);
    expect((await api('GET', `/customers/${b.id}`, { auth: p.auth })).body.beneficialOwners).toEqual([res.body]);
    expect((await api('GET', '/customers', { auth: p.auth })).body.data[0].beneficialOwners).toEqual([res.body]);
  });

  it('runs sandbox KYC by the last 3 characters of the last name (001 PENDING, 002 REJECTED, other APPROVED)', async () => {
    const p = await newPlatform();
    const b = await business(p);
    for (const [lastName, status] of [
      ['Smith001', 'PENDING'],
      ['Smith002', 'REJECTED'],
      ['Smith003', 'APPROVED'],
      ['Smith', 'APPROVED'],
      ['X001', 'PENDING'],
    ]) {
      const res = await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(b.id, { lastName }) });
      expect(res.body.kycStatus, lastName).toBe(status);
    }
  });

  it('updates only the fields given, re-running KYC when the last name changes', async () => {
    const p = await newPlatform();
    const b = await business(p);
    const o = (await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(b.id, { lastName: 'Doe002' }) })).body;
    expect(o.kycStatus).toBe('REJECTED');
    const roles = await api('PATCH', `/beneficial-owners/${o.id}`, {
      auth: p.auth,
      body: { roles: ['CONTROL_PERSON'], personalInfo: { middleName: 'Marie' } },
    });
    expect(roles.status).toBe(200);
    expect(roles.body).toEqual({
      ...o,
      roles: ['CONTROL_PERSON'],
      personalInfo: { ...o.personalInfo, middleName: 'Marie' },
      updatedAt: expect.any(String),
    });
    const renamed = await api('PATCH', `/beneficial-owners/${o.id}`, {
      auth: p.auth,
      body: { personalInfo: { lastName: 'Doe' }, ownershipPercentage: 10 },
    });
    expect(renamed.body).toMatchObject({
      kycStatus: 'APPROVED',
      ownershipPercentage: 10,
      personalInfo: { lastName: 'Doe', middleName: 'Marie', firstName: 'Jane' },
    });
    const pending = await api('PATCH', `/beneficial-owners/${o.id}`, { auth: p.auth, body: { personalInfo: { lastName: 'Doe001' } } });
    expect(pending.body.kycStatus).toBe('PENDING');
    for (const [body, fields] of [
      [{ ownershipPercentage: 101 }, ['ownershipPercentage']],
      [{ roles: [] }, ['roles']],
      [{ roles: ['OWNER'] }, ['roles.0']],
      [{ personalInfo: { birthDate: '15/06/1978' } }, ['personalInfo.birthDate']],
      [{ personalInfo: { phoneNumber: '555' } }, ['personalInfo.phoneNumber']],
      [{ customerId: b.id }, ['customerId']],
    ] as const) {
      const res = await api('PATCH', `/beneficial-owners/${o.id}`, { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res)).toEqual(fields);
    }
  });

  it('rejects invalid owners, individuals as the business, and unknown customers', async () => {
    const p = await newPlatform();
    const b = await business(p);
    const ind = await createCustomer(p, individualBody());
    const cases: [unknown, string[]][] = [
      [{ customerId: b.id }, ['roles', 'ownershipPercentage', 'personalInfo']],
      [{ ...ownerBody(b.id), ownershipPercentage: -1 }, ['ownershipPercentage']],
      [{ ...ownerBody(b.id), roles: ['UBO', 'UBO'] }, ['roles']],
      [ownerBody(b.id, { idType: 'PASSPORT' }), ['personalInfo.idType']],
      [ownerBody(b.id, { nationality: 'America' }), ['personalInfo.nationality']],
      [
        { ...ownerBody(b.id), personalInfo: { firstName: 'A' } },
        [
          'personalInfo.lastName',
          'personalInfo.birthDate',
          'personalInfo.nationality',
          'personalInfo.address',
          'personalInfo.idType',
          'personalInfo.identifier',
        ],
      ],
      [ownerBody(ind.id), ['customerId']],
    ];
    for (const [body, fields] of cases) {
      const res = await api('POST', '/beneficial-owners', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort(), JSON.stringify(body)).toEqual([...fields].sort());
    }
    expectError(
      await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody('Customer:00000000-0000-7000-8000-000000000000') }),
      404,
      'USER_NOT_FOUND',
    );
  });

  it('lists the owners of one customer (customerId required), with pages; tenancy 404s; permissions', async () => {
    const p = await newPlatform();
    const b = await business(p);
    const other = await business(p);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(b.id) })).body.id);
    await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(other.id) });
    const first = (await api('GET', `/beneficial-owners?customerId=${b.id}&limit=2`, { auth: p.auth })).body;
    expect(first).toMatchObject({ hasMore: true, totalCount: 3 });
    expect((await walk(`/beneficial-owners?customerId=${b.id}&limit=2`, p.auth)).map((o) => o.id)).toEqual(ids);
    expectError(await api('GET', '/beneficial-owners', { auth: p.auth }), 400, 'INVALID_INPUT');

    const q = await newPlatform();
    expectError(await api('GET', `/beneficial-owners?customerId=${b.id}`, { auth: q.auth }), 404, 'USER_NOT_FOUND');
    expectError(
      await api('GET', `/beneficial-owners/${ids[0]}`, { auth: q.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'BENEFICIAL_OWNER_NOT_FOUND',
    );
    expectError(
      await api('PATCH', `/beneficial-owners/${ids[0]}`, { auth: q.auth, body: { ownershipPercentage: 1 } }),
      404,
      'REFERENCE_NOT_FOUND',
      'BENEFICIAL_OWNER_NOT_FOUND',
    );
    expectError(await api('POST', '/beneficial-owners', { auth: q.auth, body: ownerBody(b.id) }), 404, 'USER_NOT_FOUND');

    const view = await tokenWith(p, ['VIEW']);
    const manage = await tokenWith(p, ['MANAGE']);
    expectError(await api('POST', '/beneficial-owners', { auth: view, body: ownerBody(b.id) }), 403);
    expectError(await api('PATCH', `/beneficial-owners/${ids[0]}`, { auth: view, body: { ownershipPercentage: 1 } }), 403);
    expectError(await api('GET', `/beneficial-owners?customerId=${b.id}`, { auth: manage }), 403);
    expectError(await api('GET', `/beneficial-owners/${ids[0]}`, { auth: manage }), 403);
  });

  it('in production without an identity provider refuses KYC (503) and creates nothing (with one: test/kyc/identity-production)', async () => {
    const p = await newPlatform();
    const b = await business(p);
    const res = await productionApi('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(b.id, { lastName: 'Smith003' }) });
    expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
    expect((await api('GET', `/beneficial-owners?customerId=${b.id}`, { auth: p.auth })).body.data).toEqual([]);
  });
});

describe('verifications', () => {
  it('runs sandbox KYB by the registration number suffix (001 PENDING, 002 REJECTED, other APPROVED)', async () => {
    const p = await newPlatform();
    for (const [registrationNumber, kyb, status] of [
      ['BRN-987654001', 'PENDING', 'IN_PROGRESS'],
      ['BRN-987654002', 'REJECTED', 'REJECTED'],
      ['BRN-987654003', 'APPROVED', 'APPROVED'],
      ['5523041', 'APPROVED', 'APPROVED'],
    ]) {
      const b = await business(p, registrationNumber);
      const res = await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^Verification:[0-9a-f-]{36}$/),
        customerId: b.id,
        verificationStatus: status,
        errors: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('GET', `/customers/${b.id}`, { auth: p.auth })).body.kybStatus, registrationNumber).toBe(kyb);
      expect((await api('GET', `/verifications/${res.body.id}`, { auth: p.auth })).body).toEqual(res.body);
    }
  });

  it('KYB of a business created without businessInfo names every missing business field', async () => {
    const p = await newPlatform();
    const b = await createCustomer(p, { customerType: 'BUSINESS', address: ADDRESS });
    const res = await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } });
    expect(res.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(res.body.errors.map((e: any) => e.field)).toEqual([
      'customer.businessInfo.legalName',
      'customer.businessInfo.registrationNumber',
      'customer.businessInfo.taxId',
      'customer.businessInfo.incorporatedOn',
    ]);
  });

  it('answers RESOLVE_ERRORS naming missing information, leaving the status unchanged', async () => {
    const p = await newPlatform();
    const b = await createCustomer(p, {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Bare Co', taxId: '1', incorporatedOn: '2020-01-01' },
    });
    const res = await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } });
    expect(res.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(res.body.errors).toEqual([
      { resourceId: b.id, type: 'MISSING_FIELD', field: 'customer.address', reason: 'Address is required' },
      {
        resourceId: b.id,
        type: 'MISSING_FIELD',
        field: 'customer.businessInfo.registrationNumber',
        reason: 'Business registration number is required',
      },
    ]);
    expect((await api('GET', `/customers/${b.id}`, { auth: p.auth })).body.kybStatus).toBe('UNVERIFIED');
    // Fixing the data and submitting again succeeds.
    await api('PATCH', `/customers/${b.id}`, {
      auth: p.auth,
      body: { customerType: 'BUSINESS', address: ADDRESS, businessInfo: { registrationNumber: 'R-002' } },
    });
    expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } })).body.verificationStatus).toBe('REJECTED');
    const i = await createCustomer(p, { customerType: 'INDIVIDUAL' });
    const ind = await api('POST', '/verifications', { auth: p.auth, body: { customerId: i.id } });
    expect(ind.body.errors.map((e: any) => e.field)).toEqual(['customer.address', 'customer.fullName', 'customer.birthDate']);
  });

  it("approves a regulated platform's complete individual in the sandbox; production without an identity provider answers 503", async () => {
    // Other platforms' individuals are verified through the hosted KYC link (test/kyc/kyc-link.test.ts).
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const i = await createCustomer(p, individualBody());
    expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: i.id } })).body.verificationStatus).toBe('APPROVED');
    expect((await api('GET', `/customers/${i.id}`, { auth: p.auth })).body.kycStatus).toBe('APPROVED');
    const b = await business(p, 'R-003');
    const prod = await productionApi('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } });
    expectError(prod, 503, 'SERVICE_NOT_CONFIGURED');
    expect(prod.body.message).toContain('IDENTITY_PROVIDER_URL');
    expect((await api('GET', `/customers/${b.id}`, { auth: p.auth })).body.kybStatus).toBe('UNVERIFIED');
    expect((await api('GET', `/verifications?customerId=${b.id}`, { auth: p.auth })).body.data).toEqual([]);
  });

  it('lists with filters and pages; validates; tenancy 404s; permissions', async () => {
    const p = await newPlatform();
    const a = await business(p, 'R-001');
    const b = await business(p, 'R-002');
    const v1 = (await api('POST', '/verifications', { auth: p.auth, body: { customerId: a.id } })).body;
    const v2 = (await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } })).body;
    const v3 = (await api('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } })).body;
    expect((await api('GET', '/verifications?limit=2', { auth: p.auth })).body).toMatchObject({ hasMore: true, totalCount: 3 });
    expect((await walk('/verifications?limit=2', p.auth)).map((v) => v.id)).toEqual([v1.id, v2.id, v3.id]);
    expect((await api('GET', `/verifications?customerId=${b.id}`, { auth: p.auth })).body.data.map((v: any) => v.id)).toEqual([
      v2.id,
      v3.id,
    ]);
    expect((await api('GET', '/verifications?verificationStatus=IN_PROGRESS', { auth: p.auth })).body.data.map((v: any) => v.id)).toEqual([
      v1.id,
    ]);
    expectError(await api('GET', '/verifications?verificationStatus=DONE', { auth: p.auth }), 400);
    expectError(await api('POST', '/verifications', { auth: p.auth, body: {} }), 400);
    expectError(await api('POST', '/verifications', { auth: p.auth, body: { customerId: 'Customer:x' } }), 404, 'USER_NOT_FOUND');

    const q = await newPlatform();
    expectError(await api('GET', `/verifications/${v1.id}`, { auth: q.auth }), 404, 'REFERENCE_NOT_FOUND', 'VERIFICATION_NOT_FOUND');
    expectError(await api('POST', '/verifications', { auth: q.auth, body: { customerId: a.id } }), 404, 'USER_NOT_FOUND');
    expect((await api('GET', '/verifications', { auth: q.auth })).body.totalCount).toBe(0);

    expectError(await api('POST', '/verifications', { auth: await tokenWith(p, ['VIEW', 'TRANSACT']), body: { customerId: a.id } }), 403);
    expectError(await api('GET', '/verifications', { auth: await tokenWith(p, ['MANAGE']) }), 403);
    expectError(await api('GET', `/verifications/${v1.id}`, { auth: await tokenWith(p, ['TRANSACT']) }), 403);
  });
});
