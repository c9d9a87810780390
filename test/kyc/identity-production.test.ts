import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SHOULD_RETRY_HEADER } from '../../src/http/errors';
import { api, expectError, newPlatform, type TestPlatform } from '../support/api';
import { businessBody, createCustomer, individualBody, personalInfo } from '../support/customers';
import { events } from '../support/payments';
import { IDENTITY_SECRET, productionWorld, RAIL_SECRET, signedOutcome, type ProductionWorld } from '../support/providers';

const T0 = Date.parse('2032-06-01T12:00:00.000Z');

beforeEach(() => vi.setSystemTime(T0));
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const ownerBody = (customerId: string, info: Record<string, unknown> = {}) => ({
  customerId,
  roles: ['UBO'],
  ownershipPercentage: 60,
  personalInfo: personalInfo(info),
});

/** The outcome an identity provider reports, signed with its secret (or as told). */
async function report(w: ProductionWorld, body: Record<string, unknown>, sign: Parameters<typeof signedOutcome>[1] = {}) {
  const { raw, headers } = await signedOutcome(body, { secret: IDENTITY_SECRET, purpose: 'identity-outcome', ...sign });
  return w.call('POST', '/providers/identity/outcomes', { raw, headers });
}

const typesAbout = async (p: TestPlatform, id: string) =>
  (await events(p.id)).filter((e) => (e.data as { id?: string; customerId?: string }).id === id).map((e) => e.type);

describe('production without an identity provider', () => {
  it('verification routes answer 503 SERVICE_NOT_CONFIGURED; owner changes that need no KYC still apply', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const person = await createCustomer(p, individualBody());
    const business = await createCustomer(p, businessBody());
    const owner = (await api('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(business.id) })).body;
    const w = productionWorld({ identity: false });
    for (const res of [
      await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } }),
      await w.call('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(business.id) }),
      await w.call('PATCH', `/beneficial-owners/${owner.id}`, { auth: p.auth, body: { personalInfo: { lastName: 'Jones' } } }),
    ]) {
      expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
      expect(res.body.message).toContain('IDENTITY_PROVIDER_URL');
    }
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe('UNVERIFIED');
    expect((await api('GET', `/beneficial-owners?customerId=${business.id}`, { auth: p.auth })).body.data).toHaveLength(1);
    const roles = await w.call('PATCH', `/beneficial-owners/${owner.id}`, { auth: p.auth, body: { roles: ['DIRECTOR'] } });
    expect(roles.status, JSON.stringify(roles.body)).toBe(200);
    expect(w.railCalls).toEqual([]);
    const { raw, headers } = await signedOutcome({ verificationId: 'Verification:x', platformId: p.id, status: 'APPROVED' });
    expectError(await w.call('POST', '/providers/identity/outcomes', { raw, headers }), 503, 'SERVICE_NOT_CONFIGURED');
  });
});

describe("production with the operator's identity provider", () => {
  it('a verification waits IN_PROGRESS until the provider approves it; the customer and its webhooks follow once', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const person = await createCustomer(p, individualBody());
    const w = productionWorld();
    const submitted = await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body).toMatchObject({ verificationStatus: 'IN_PROGRESS', errors: [] });
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe('PENDING');
    await w.deliver();
    const [instruction] = w.instructions().filter((i) => i.body.verificationId === submitted.body.id);
    expect(instruction!.body).toMatchObject({
      type: 'VERIFICATION',
      id: `${submitted.body.id}/VERIFICATION`,
      platformId: p.id,
      customer: { id: person.id, fullName: 'Jane Smith', kycStatus: 'PENDING' },
    });
    // Nothing decides by itself.
    vi.setSystemTime(T0 + 7 * 86_400_000);
    await w.sweep();
    expect((await api('GET', `/verifications/${submitted.body.id}`, { auth: p.auth })).body.verificationStatus).toBe('IN_PROGRESS');

    expect(await w.settle(instruction!.key, 'APPROVED')).toMatchObject({ answer: 200 });
    expect((await api('GET', `/verifications/${submitted.body.id}`, { auth: p.auth })).body).toMatchObject({
      verificationStatus: 'APPROVED',
    });
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe('APPROVED');
    const repeat = await report(w, { verificationId: submitted.body.id, platformId: p.id, status: 'APPROVED' });
    expect(repeat.body).toEqual({
      id: submitted.body.id,
      status: 'APPROVED',
      applied: false,
      verificationStatus: 'APPROVED',
      kycStatus: 'APPROVED',
    });
    const contradiction = await report(w, {
      verificationId: submitted.body.id,
      platformId: p.id,
      status: 'REJECTED',
      errors: [{ type: 'APPLICANT_SANCTIONED', reason: 'Listed' }],
    });
    expectError(contradiction, 409, 'CONFLICT');
    expect(contradiction.headers.get(SHOULD_RETRY_HEADER)).toBe('false');
    expect(await typesAbout(p, submitted.body.id)).toEqual(['VERIFICATION.IN_PROGRESS', 'VERIFICATION.APPROVED']);
    expect(await typesAbout(p, person.id)).toEqual(['CUSTOMER.KYC_PENDING', 'CUSTOMER.KYC_APPROVED']);
  });

  it('rejected with reasons, or documents requested: the reasons show on the verification', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const a = await createCustomer(p, businessBody());
    const b = await createCustomer(p, individualBody());
    const w = productionWorld();
    const va = (await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: a.id } })).body;
    const vb = (await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } })).body;
    const reasons = [{ type: 'APPLICANT_SANCTIONED', reason: 'On a sanctions list' }];
    const rejected = await report(w, { verificationId: va.id, platformId: p.id, status: 'REJECTED', errors: reasons });
    expect(rejected.body).toMatchObject({ applied: true, verificationStatus: 'REJECTED', kycStatus: 'REJECTED' });
    expect((await api('GET', `/verifications/${va.id}`, { auth: p.auth })).body.errors).toEqual([{ resourceId: a.id, ...reasons[0] }]);
    expect((await api('GET', `/customers/${a.id}`, { auth: p.auth })).body.kybStatus).toBe('REJECTED');
    const documents = [{ type: 'MISSING_IDENTITY_DOCUMENT', acceptedDocumentTypes: ['PASSPORT'], reason: 'A passport scan is needed' }];
    const asked = await report(w, { verificationId: vb.id, platformId: p.id, status: 'DOCUMENTS_REQUESTED', errors: documents });
    expect(asked.body).toMatchObject({ applied: true, verificationStatus: 'RESOLVE_ERRORS', kycStatus: 'PENDING' });
    expect((await api('GET', `/verifications/${vb.id}`, { auth: p.auth })).body.errors).toEqual([{ resourceId: b.id, ...documents[0] }]);
    expect(await typesAbout(p, vb.id)).toEqual(['VERIFICATION.IN_PROGRESS', 'VERIFICATION.RESOLVE_ERRORS']);
    // Resubmitted once the documents are uploaded: a new verification, asked of the provider again.
    const again = await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: b.id } });
    expect(again.body.verificationStatus).toBe('IN_PROGRESS');
    await w.deliver();
    // The two decided before their instructions went out are not asked about any more.
    expect(w.instructions().map((i) => i.body.verificationId)).toEqual([again.body.id]);
  });

  it("a beneficial owner's KYC waits PENDING for the provider; a new last name submits it again", async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const business = await createCustomer(p, businessBody());
    const w = productionWorld();
    const owner = await w.call('POST', '/beneficial-owners', { auth: p.auth, body: ownerBody(business.id, { lastName: 'Smith002' }) });
    expect(owner.status, JSON.stringify(owner.body)).toBe(201);
    expect(owner.body.kycStatus).toBe('PENDING'); // no magic value in production
    await w.deliver();
    const [first] = w.instructions().filter((i) => i.body.beneficialOwnerId === owner.body.id);
    expect(first!.body).toMatchObject({
      type: 'BENEFICIAL_OWNER',
      beneficialOwner: { id: owner.body.id, personalInfo: { lastName: 'Smith002' } },
    });
    expect(await w.settle(first!.key, 'APPROVED')).toMatchObject({ answer: 200 });
    expect((await api('GET', `/beneficial-owners/${owner.body.id}`, { auth: p.auth })).body.kycStatus).toBe('APPROVED');
    expect((await report(w, { beneficialOwnerId: owner.body.id, platformId: p.id, status: 'APPROVED' })).body.applied).toBe(false);
    expectError(await report(w, { beneficialOwnerId: owner.body.id, platformId: p.id, status: 'REJECTED' }), 409, 'CONFLICT');

    vi.setSystemTime(T0 + 60_000);
    const renamed = await w.call('PATCH', `/beneficial-owners/${owner.body.id}`, {
      auth: p.auth,
      body: { personalInfo: { lastName: 'Jones' } },
    });
    expect(renamed.body.kycStatus).toBe('PENDING');
    await w.deliver();
    const all = w.instructions().filter((i) => i.body.beneficialOwnerId === owner.body.id);
    expect(all.map((i) => (i.body.beneficialOwner as { personalInfo: { lastName: string } }).personalInfo.lastName)).toEqual([
      'Smith002',
      'Jones',
    ]);
    expect(await w.settle(all[1]!.key, 'REJECTED')).toMatchObject({ answer: 200 });
    expect((await api('GET', `/beneficial-owners/${owner.body.id}`, { auth: p.auth })).body.kycStatus).toBe('REJECTED');
  });

  it('refuses forged outcomes (401) and unknown or foreign ids (404), changing nothing', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const other = await newPlatform();
    const person = await createCustomer(p, individualBody());
    const w = productionWorld();
    const v = (await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } })).body;
    const body = { verificationId: v.id, platformId: p.id, status: 'APPROVED' };
    for (const sign of [{ secret: RAIL_SECRET }, { purpose: 'rail-outcome' as const }, { at: T0 - 10 * 60_000 }]) {
      expectError(await report(w, body, sign), 401, 'INVALID_SIGNATURE');
    }
    // The rail's secret and purpose do not open the identity outcomes either.
    const { raw, headers } = await signedOutcome(body);
    expectError(await w.call('POST', '/providers/identity/outcomes', { raw, headers }), 401, 'INVALID_SIGNATURE');
    expectError(await report(w, { ...body, platformId: other.id }), 404, 'REFERENCE_NOT_FOUND', 'VERIFICATION_NOT_FOUND');
    expectError(
      await report(w, { ...body, verificationId: 'Verification:019542f5-b3e7-1d02-0000-000000000001' }),
      404,
      'REFERENCE_NOT_FOUND',
      'VERIFICATION_NOT_FOUND',
    );
    expectError(
      await report(w, { beneficialOwnerId: 'BeneficialOwner:019542f5-b3e7-1d02-0000-000000000001', platformId: p.id, status: 'APPROVED' }),
      404,
      'REFERENCE_NOT_FOUND',
      'BENEFICIAL_OWNER_NOT_FOUND',
    );
    expectError(await report(w, { ...body, status: 'REJECTED' }), 400, 'INVALID_INPUT'); // rejected needs its reasons
    expect((await api('GET', `/verifications/${v.id}`, { auth: p.auth })).body.verificationStatus).toBe('IN_PROGRESS');
    expect((await report(w, body)).body.applied).toBe(true);
  });

  it('concurrent deliveries of one outcome apply it once', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const person = await createCustomer(p, individualBody());
    const w = productionWorld();
    const v = (await w.call('POST', '/verifications', { auth: p.auth, body: { customerId: person.id } })).body;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => report(w, { verificationId: v.id, platformId: p.id, status: 'APPROVED' })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(answers.filter((a) => a.body.applied)).toHaveLength(1);
    expect(await typesAbout(p, v.id)).toEqual(['VERIFICATION.IN_PROGRESS', 'VERIFICATION.APPROVED']);
    expect((await typesAbout(p, person.id)).filter((t) => t === 'CUSTOMER.KYC_APPROVED')).toHaveLength(1);
  });
});
