// Production hosted KYC links: the operator's identity provider hosts the page and reports the outcome.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform, type TestPlatform } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { events } from '../support/payments';
import { IDENTITY_SECRET, productionWorld, RAIL_SECRET, signedOutcome, type ProductionWorld } from '../support/providers';

const T0 = Date.parse('2032-06-01T12:00:00.000Z');
const PAGE = 'https://kyc.provider.test/start?flow=basic';

beforeEach(() => vi.setSystemTime(T0));
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const withPage = (identity = true) => productionWorld({ identity, overrides: { IDENTITY_PROVIDER_KYC_URL: PAGE } });

async function report(w: ProductionWorld, body: Record<string, unknown>, sign: Parameters<typeof signedOutcome>[1] = {}) {
  const { raw, headers } = await signedOutcome(body, { secret: IDENTITY_SECRET, purpose: 'identity-outcome', ...sign });
  return w.call('POST', '/providers/identity/outcomes', { raw, headers });
}

const typesAbout = async (p: TestPlatform, id: string) =>
  (await events(p.id)).filter((e) => (e.data as { id?: string }).id === id).map((e) => e.type);

/** A link made in production for `customerId`, with its id read from kycUrl. */
async function makeLink(w: ProductionWorld, p: TestPlatform, customerId: string, body: Record<string, unknown> = {}) {
  const res = await w.call('POST', `/customers/${customerId}/kyc-link`, { auth: p.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const url = new URL(res.body.kycUrl);
  return { res, url, id: url.searchParams.get('kycLinkId')! };
}

describe("production KYC links at the identity provider's page", () => {
  it("answer the provider's page with the link's id and tell the provider, in the same change", async () => {
    const p = await newPlatform();
    const person = await createCustomer(p, individualBody());
    const w = withPage();
    const { res, url, id } = await makeLink(w, p, person.id, { redirectUri: 'https://app.example.com/done' });
    expect(`${url.origin}${url.pathname}`).toBe('https://kyc.provider.test/start');
    expect(url.searchParams.get('flow')).toBe('basic'); // the page's own query is kept
    expect(id).toMatch(/^KycLink:/);
    expect(url.hash).toBe(''); // no sandbox secret
    expect(res.body).toEqual({ kycUrl: res.body.kycUrl, expiresAt: '2032-06-02T12:00:00.000Z', provider: 'SUMSUB' });
    // Making it changes nothing on the customer.
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe('UNVERIFIED');
    await w.deliver();
    const [instruction] = w.instructions().filter((i) => i.body.kycLinkId === id);
    expect(instruction!.body).toEqual({
      type: 'KYC_LINK',
      id: `${id}/KYC_LINK`,
      platformId: p.id,
      createdAt: new Date(T0).toISOString(),
      kycLinkId: id,
      customer: expect.objectContaining({ id: person.id, fullName: 'Jane Smith', kycStatus: 'UNVERIFIED' }),
      redirectUri: 'https://app.example.com/done',
      expiresAt: '2032-06-02T12:00:00.000Z',
    });
    // A repeat under the same Idempotency-Key answers the same link; no second instruction.
    const keyed = { auth: p.auth, body: {}, headers: { 'Idempotency-Key': 'link-1' } };
    const first = await w.call('POST', `/customers/${person.id}/kyc-link`, keyed);
    const again = await w.call('POST', `/customers/${person.id}/kyc-link`, keyed);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body.kycUrl).toBe(first.body.kycUrl);
    await w.deliver();
    expect(w.instructions().filter((i) => i.type === 'KYC_LINK')).toHaveLength(2);
  });

  it("the provider's outcome applies once: a verification, the customer's kycStatus and their webhooks", async () => {
    const p = await newPlatform();
    const person = await createCustomer(p, individualBody());
    const w = withPage();
    const { id } = await makeLink(w, p, person.id);
    await w.deliver();
    const [instruction] = w.instructions().filter((i) => i.body.kycLinkId === id);
    // The reference provider settles it as its page would.
    expect(await w.settle(instruction!.key, 'APPROVED')).toMatchObject({ answer: 200 });
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe('APPROVED');
    const verifications = (await api('GET', `/verifications?customerId=${person.id}`, { auth: p.auth })).body.data;
    expect(verifications).toMatchObject([{ customerId: person.id, verificationStatus: 'APPROVED', errors: [] }]);
    const body = { kycLinkId: id, platformId: p.id, status: 'APPROVED' };
    const repeat = await report(w, body);
    expect(repeat.body).toEqual({ id, status: 'APPROVED', applied: false, kycStatus: 'APPROVED' });
    const contradiction = await report(w, { ...body, status: 'REJECTED', errors: [{ type: 'APPLICANT_REJECTED', reason: 'No' }] });
    expectError(contradiction, 409, 'CONFLICT');
    expect((await api('GET', `/verifications?customerId=${person.id}`, { auth: p.auth })).body.data).toHaveLength(1);
    expect(await typesAbout(p, person.id)).toEqual(['CUSTOMER.KYC_APPROVED']);
    expect(await typesAbout(p, verifications[0].id)).toEqual(['VERIFICATION.APPROVED']);
  });

  it("a rejection shows the provider's reasons; concurrent reports apply once", async () => {
    const p = await newPlatform();
    const person = await createCustomer(p, individualBody());
    const w = withPage();
    const { id } = await makeLink(w, p, person.id);
    const reasons = [{ type: 'APPLICANT_SANCTIONED', reason: 'On a sanctions list' }];
    const body = { kycLinkId: id, platformId: p.id, status: 'REJECTED', errors: reasons };
    const answers = await Promise.all(Array.from({ length: 4 }, () => report(w, body)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.filter((a) => a.body.applied)).toHaveLength(1);
    expect(answers[0]!.body).toMatchObject({ id, status: 'REJECTED', kycStatus: 'REJECTED' });
    const [v] = (await api('GET', `/verifications?customerId=${person.id}`, { auth: p.auth })).body.data;
    expect(v).toMatchObject({ verificationStatus: 'REJECTED', errors: [{ resourceId: person.id, ...reasons[0] }] });
    expect(await typesAbout(p, person.id)).toEqual(['CUSTOMER.KYC_REJECTED']);
  });

  it('refuses forged (401), unknown or foreign (404), expired (409) and reason-less rejections (400), changing nothing', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const person = await createCustomer(p, individualBody());
    const w = withPage();
    const { id } = await makeLink(w, p, person.id);
    const body = { kycLinkId: id, platformId: p.id, status: 'APPROVED' };
    for (const sign of [{ secret: RAIL_SECRET }, { purpose: 'rail-outcome' as const }, { at: T0 - 10 * 60_000 }]) {
      expectError(await report(w, body, sign), 401, 'INVALID_SIGNATURE');
    }
    expectError(await report(w, { ...body, platformId: other.id }), 404, 'REFERENCE_NOT_FOUND', 'KYC_LINK_NOT_FOUND');
    expectError(
      await report(w, { ...body, kycLinkId: 'KycLink:019542f5-b3e7-1d02-0000-000000000001' }),
      404,
      'REFERENCE_NOT_FOUND',
      'KYC_LINK_NOT_FOUND',
    );
    expectError(await report(w, { ...body, status: 'REJECTED' }), 400, 'INVALID_INPUT');
    expectError(
      await report(w, { ...body, status: 'DOCUMENTS_REQUESTED', errors: [{ type: 'MISSING_FIELD', reason: 'x' }] }),
      400,
      'INVALID_INPUT',
    );
    expect((await api('GET', `/customers/${person.id}`, { auth: p.auth })).body.kycStatus).toBe('UNVERIFIED');
    // Past its expiry the link takes no outcome (the customer can be sent a new one).
    vi.setSystemTime(T0 + 24 * 3_600_000);
    const late = await report(w, body);
    expectError(late, 409, 'CONFLICT');
    expect(late.body.message).toContain('expired');
    expect((await api('GET', `/verifications?customerId=${person.id}`, { auth: p.auth })).body.data).toEqual([]);
    // Nor is it asked of the provider once expired.
    await w.deliver();
    expect(w.instructions().filter((i) => i.type === 'KYC_LINK')).toEqual([]);
  });

  it('is 503 SERVICE_NOT_CONFIGURED naming what is missing: the page, or the provider', async () => {
    const p = await newPlatform();
    const person = await createCustomer(p, individualBody());
    const cases: [ProductionWorld, string][] = [
      [productionWorld(), 'IDENTITY_PROVIDER_KYC_URL'],
      [productionWorld({ overrides: { IDENTITY_PROVIDER_KYC_URL: 'http://kyc.provider.test/start' } }), 'IDENTITY_PROVIDER_KYC_URL'],
      [withPage(false), 'IDENTITY_PROVIDER_URL'],
    ];
    for (const [w, named] of cases) {
      const res = await w.call('POST', `/customers/${person.id}/kyc-link`, { auth: p.auth, body: {} });
      expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
      expect(res.body.message).toContain(named);
      vi.restoreAllMocks();
    }
    const w = withPage();
    await w.deliver();
    expect(w.instructions()).toEqual([]);
  });
});
