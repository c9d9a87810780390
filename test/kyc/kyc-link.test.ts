import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src';
import { iso } from '../../src/common/time';
import { hashSecret } from '../../src/crypto/secrets';
import { idempotencyKeys, kycLinks } from '../../src/db/schema';
import { api, BASE, expectError, failingFields, newPlatform, ORIGIN, productionApi, tokenWith, type TestPlatform } from '../support/api';
import { businessBody, createCustomer, individualBody } from '../support/customers';
import { advance, db, events } from '../support/payments';

const T0 = Date.parse('2033-05-01T08:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const DAY = 86_400_000;

const link = (p: TestPlatform, customerId: string, body?: unknown, headers: Record<string, string> = {}) =>
  api('POST', `/customers/${customerId}/kyc-link`, { auth: p.auth, body, headers });
/** The secret a kycUrl carries (its fragment). */
const secretOf = (kycUrl: string) => new URL(kycUrl).hash.slice(1);
const open = (secret: string) => api('POST', '/sandbox/kyc-links/open', { body: { secret } });
const complete = (secret: string, outcome: 'APPROVED' | 'REJECTED') =>
  api('POST', '/sandbox/kyc-links/complete', { body: { secret, outcome } });
const customer = async (p: TestPlatform, id: string) => (await api('GET', `/customers/${id}`, { auth: p.auth })).body;

describe('POST /customers/{customerId}/kyc-link', () => {
  it('answers a single-use hosted link that expires in 24 h, and leaves kycStatus as it is', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const res = await link(p, c.id, { redirectUri: 'https://app.example.com/onboarding/done' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'kycUrl', 'provider']);
    expect(res.body).toMatchObject({ expiresAt: iso(T0 + DAY), provider: 'SUMSUB' });
    // The hosted page on this service's origin; the secret is the fragment, which no server receives or logs.
    const url = new URL(res.body.kycUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${ORIGIN}/kyc`);
    expect(secretOf(res.body.kycUrl)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await customer(p, c.id)).kycStatus).toBe('UNVERIFIED');
    // Each call is a fresh link; the earlier one stays valid.
    const second = await link(p, c.id);
    expect(second.status).toBe(201);
    expect(second.body.kycUrl).not.toBe(res.body.kycUrl);
    expect((await open(secretOf(res.body.kycUrl))).body.state).toBe('OPEN');
    expect((await open(secretOf(second.body.kycUrl))).body.state).toBe('OPEN');
  });

  it('keeps only the hash of the secret', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const res = await link(p, c.id, { redirectUri: 'https://app.example.com/x' }, { 'Idempotency-Key': 'k-hash' });
    const secret = secretOf(res.body.kycUrl);
    const rows = await db().select().from(kycLinks).where(eq(kycLinks.customerId, c.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secretHash).toBe(hashSecret(secret));
    expect(JSON.stringify(rows)).not.toContain(secret);
    // Nothing else holds the answer: the generic Idempotency-Key store is not used for it.
    const keys = await db().select().from(idempotencyKeys).where(eq(idempotencyKeys.platformId, p.id));
    expect(JSON.stringify(keys)).not.toContain(secret);
  });

  it('refuses a redirectUri that is not https (http only to localhost in the sandbox), naming it', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    for (const redirectUri of [
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'http://app.example.com/done',
      '//evil.example/done',
      '/relative/path',
      'ftp://files.example.com/',
      'https://user:pass@app.example.com/',
      `https://app.example.com/${'x'.repeat(2048)}`,
    ]) {
      expect(failingFields(await link(p, c.id, { redirectUri })), redirectUri).toEqual(['redirectUri']);
    }
    for (const redirectUri of ['https://app.example.com/done?step=kyc', 'http://localhost:3000/kyc-done', 'http://127.0.0.1:8080/cb']) {
      expect((await link(p, c.id, { redirectUri })).status, redirectUri).toBe(201);
    }
    expect(failingFields(await link(p, c.id, { redirectUri: 'https://a.example', extra: 1 }))).toEqual(['extra']);
  });

  it('is 404 for an unknown or another platform’s customer, 410 for a deleted one, 403 without MANAGE', async () => {
    const p = await newPlatform();
    const q = await newPlatform();
    const c = await createCustomer(p);
    expectError(await link(p, 'Customer:nope'), 404, 'USER_NOT_FOUND');
    expectError(await link(q, c.id), 404, 'USER_NOT_FOUND');
    expectError(await api('POST', `/customers/${c.id}/kyc-link`, { auth: await tokenWith(p, ['VIEW', 'TRANSACT']) }), 403, 'FORBIDDEN');
    expectError(await api('POST', `/customers/${c.id}/kyc-link`), 401, 'UNAUTHORIZED');
    const gone = await createCustomer(p);
    expect((await api('DELETE', `/customers/${gone.id}`, { auth: p.auth })).status).toBe(200);
    expectError(await link(p, gone.id), 410, 'CUSTOMER_DELETED');
  });

  it('under an Idempotency-Key names one link: a repeat answers it with a fresh secret, the earlier URL stops working', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const body = { redirectUri: 'https://app.example.com/done' };
    const first = await link(p, c.id, body, { 'Idempotency-Key': 'kyc-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    vi.setSystemTime(T0 + 60_000);
    const again = await link(p, c.id, { ...body }, { 'Idempotency-Key': 'kyc-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body.expiresAt).toBe(first.body.expiresAt);
    expect(again.body.kycUrl).not.toBe(first.body.kycUrl);
    expectError(await open(secretOf(first.body.kycUrl)), 404, 'REFERENCE_NOT_FOUND', 'KYC_LINK_NOT_FOUND');
    expect((await open(secretOf(again.body.kycUrl))).body.state).toBe('OPEN');
    expect(await db().select().from(kycLinks).where(eq(kycLinks.customerId, c.id))).toHaveLength(1);
    // The same key with another request: 422, nothing made.
    expectError(
      await link(p, c.id, { redirectUri: 'https://other.example.com/' }, { 'Idempotency-Key': 'kyc-1' }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    const other = await createCustomer(p);
    expectError(await link(p, other.id, body, { 'Idempotency-Key': 'kyc-1' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    // Keys are the platform's own.
    const q = await newPlatform();
    const theirs = await createCustomer(q);
    expect((await link(q, theirs.id, body, { 'Idempotency-Key': 'kyc-1' })).status).toBe(201);
    expect(failingFields(await link(p, c.id, body, { 'Idempotency-Key': '' }))).toEqual(['Idempotency-Key']);
  });

  it('in production, without an identity provider, is 503 SERVICE_NOT_CONFIGURED and never the sandbox page', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const res = await productionApi('POST', `/customers/${c.id}/kyc-link`, { auth: p.auth, body: {} });
    expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
    expect(await db().select().from(kycLinks).where(eq(kycLinks.customerId, c.id))).toEqual([]);
    const sandbox = await link(p, c.id);
    expect((await productionApi('POST', '/sandbox/kyc-links/open', { body: { secret: secretOf(sandbox.body.kycUrl) } })).status).toBe(404);
    for (const overrides of [{ SERVICE_ENV: 'production' }, { SERVICE_ENV: 'production', CONSOLE_ENABLED: 'true' }]) {
      const ctx = createExecutionContext();
      const page = await worker.fetch(new Request(`${ORIGIN}/kyc`), { ...env, ...overrides }, ctx);
      await waitOnExecutionContext(ctx);
      expect(page.status, JSON.stringify(overrides)).toBe(404);
    }
  });
});

describe('the hosted KYC page', () => {
  it('is served in the sandbox with the console’s files and Content-Security-Policy', async () => {
    const res = await SELF.fetch(`${ORIGIN}/kyc`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('Content-Security-Policy')).toContain("default-src 'none'");
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
    const html = await res.text();
    expect(html).toContain('<meta name="api-base" content="/2025-10-13" />');
    expect(html).toContain('<script type="module" src="/console/kyc.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    const js = await SELF.fetch(`${ORIGIN}/console/kyc.js`);
    expect(js.status).toBe(200);
    expect(await js.text()).toContain('/sandbox/kyc-links/complete');
  });

  it('completing moves kycStatus exactly as a verification does, with its webhooks, once', async () => {
    const p = await newPlatform({ name: 'Acme Pay' });
    const c = await createCustomer(p, individualBody({ fullName: 'Ada Lovelace' }));
    const secret = secretOf((await link(p, c.id, { redirectUri: 'https://app.example.com/done' })).body.kycUrl);
    expect((await open(secret)).body).toEqual({
      state: 'OPEN',
      customerType: 'INDIVIDUAL',
      name: 'Ada Lovelace',
      platformName: 'Acme Pay',
      expiresAt: iso(T0 + DAY),
    });
    vi.setSystemTime(T0 + 5_000);
    const done = await complete(secret, 'APPROVED');
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toEqual({ outcome: 'APPROVED', redirectUri: 'https://app.example.com/done' });

    const after = await customer(p, c.id);
    expect(after).toMatchObject({ kycStatus: 'APPROVED', updatedAt: iso(T0 + 5_000) });
    const verifications = (await api('GET', `/verifications?customerId=${c.id}`, { auth: p.auth })).body.data;
    expect(verifications).toEqual([
      {
        id: expect.any(String),
        customerId: c.id,
        verificationStatus: 'APPROVED',
        errors: [],
        createdAt: iso(T0 + 5_000),
        updatedAt: iso(T0 + 5_000),
      },
    ]);
    const sent = (await events(p.id)).map((e) => [e.type, e.data]);
    expect(sent).toEqual([
      ['VERIFICATION.APPROVED', verifications[0]],
      ['CUSTOMER.KYC_APPROVED', after],
    ]);

    // Single use: a second completion, either way, changes nothing.
    expectError(await complete(secret, 'REJECTED'), 409, 'CONFLICT');
    expect((await open(secret)).body).toMatchObject({ state: 'USED', outcome: 'APPROVED' });
    expect((await customer(p, c.id)).kycStatus).toBe('APPROVED');
    expect(await events(p.id)).toHaveLength(2);
  });

  it('failing it rejects the customer (a business: kybStatus)', async () => {
    const p = await newPlatform();
    const person = await createCustomer(p);
    const failed = await complete(secretOf((await link(p, person.id)).body.kycUrl), 'REJECTED');
    expect(failed.body).toEqual({ outcome: 'REJECTED' });
    expect((await customer(p, person.id)).kycStatus).toBe('REJECTED');
    const [verification] = (await api('GET', `/verifications?customerId=${person.id}`, { auth: p.auth })).body.data;
    expect(verification).toMatchObject({
      verificationStatus: 'REJECTED',
      errors: [{ resourceId: person.id, type: 'APPLICANT_REJECTED', reason: expect.any(String) }],
    });
    const business = await createCustomer(p, businessBody());
    const secret = secretOf((await link(p, business.id)).body.kycUrl);
    expect((await open(secret)).body).toMatchObject({ customerType: 'BUSINESS', name: 'Acme Corporation' });
    expect((await complete(secret, 'APPROVED')).status).toBe(200);
    expect((await customer(p, business.id)).kybStatus).toBe('APPROVED');
    expect((await events(p.id)).map((e) => e.type)).toEqual([
      'VERIFICATION.REJECTED',
      'CUSTOMER.KYC_REJECTED',
      'VERIFICATION.APPROVED',
      'CUSTOMER.KYB_APPROVED',
    ]);
  });

  it("expires after 24 h on the platform's sandbox clock", async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const secret = secretOf((await link(p, c.id)).body.kycUrl);
    await advance(p, 86_399);
    expect((await open(secret)).body.state).toBe('OPEN');
    await advance(p, 1);
    expect((await open(secret)).body.state).toBe('EXPIRED');
    expectError(await complete(secret, 'APPROVED'), 409, 'CONFLICT');
    expect((await customer(p, c.id)).kycStatus).toBe('UNVERIFIED');
  });

  it('of two completions at once exactly one applies', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const secret = secretOf((await link(p, c.id)).body.kycUrl);
    const answers = await Promise.all([complete(secret, 'APPROVED'), complete(secret, 'REJECTED'), complete(secret, 'APPROVED')]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const winner = answers.find((r) => r.status === 200)!.body.outcome;
    expect((await customer(p, c.id)).kycStatus).toBe(winner);
    expect((await api('GET', `/verifications?customerId=${c.id}`, { auth: p.auth })).body.data).toHaveLength(1);
  });

  it('refuses an unknown secret, a deleted customer’s link and malformed calls', async () => {
    const p = await newPlatform();
    expectError(await open('not-a-secret'), 404, 'REFERENCE_NOT_FOUND', 'KYC_LINK_NOT_FOUND');
    expectError(await complete('not-a-secret', 'APPROVED'), 404, 'REFERENCE_NOT_FOUND', 'KYC_LINK_NOT_FOUND');
    const c = await createCustomer(p);
    const secret = secretOf((await link(p, c.id)).body.kycUrl);
    expect(failingFields(await api('POST', '/sandbox/kyc-links/complete', { body: { secret, outcome: 'PENDING' } }))).toEqual(['outcome']);
    expect(failingFields(await api('POST', '/sandbox/kyc-links/open', { body: {} }))).toEqual(['secret']);
    expect((await api('DELETE', `/customers/${c.id}`, { auth: p.auth })).status).toBe(200);
    expectError(await open(secret), 404, 'REFERENCE_NOT_FOUND', 'KYC_LINK_NOT_FOUND');
    expectError(await complete(secret, 'APPROVED'), 404, 'REFERENCE_NOT_FOUND', 'KYC_LINK_NOT_FOUND');
  });
});

describe('who verifies a platform’s customers', () => {
  it('a platform that is not a regulated institution: an individual is verified only through the KYC link', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: false });
    const c = await createCustomer(p);
    const v = await api('POST', '/verifications', { auth: p.auth, body: { customerId: c.id } });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ verificationStatus: 'READY_FOR_VERIFICATION', errors: [] });
    expect((await customer(p, c.id)).kycStatus).toBe('UNVERIFIED');
    expect((await events(p.id)).map((e) => e.type)).toEqual(['VERIFICATION.READY_FOR_VERIFICATION']);
    // Missing information is still named first.
    const bare = await createCustomer(p, { customerType: 'INDIVIDUAL', platformCustomerId: `bare-${Date.now()}` });
    expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: bare.id } })).body.verificationStatus).toBe(
      'RESOLVE_ERRORS',
    );
    // Nor may it set the status itself.
    const patch = await api('PATCH', `/customers/${c.id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', kycStatus: 'APPROVED' } });
    expect(failingFields(patch)).toEqual(['kycStatus']);
    // Its businesses' KYB runs on POST /verifications, as before.
    const biz = await createCustomer(p, businessBody());
    expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: biz.id } })).body.verificationStatus).toBe('APPROVED');
    // The link decides.
    expect((await complete(secretOf((await link(p, c.id)).body.kycUrl), 'APPROVED')).status).toBe(200);
    expect((await customer(p, c.id)).kycStatus).toBe('APPROVED');
  });

  it('a regulated institution KYCs its own customers: POST /verifications approves an individual, and the link works too', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const c = await createCustomer(p);
    expect((await api('POST', '/verifications', { auth: p.auth, body: { customerId: c.id } })).body.verificationStatus).toBe('APPROVED');
    expect((await customer(p, c.id)).kycStatus).toBe('APPROVED');
    const other = await createCustomer(p);
    expect((await complete(secretOf((await link(p, other.id)).body.kycUrl), 'REJECTED')).status).toBe(200);
    expect((await customer(p, other.id)).kycStatus).toBe('REJECTED');
  });
});

describe("the service's command-line client", () => {
  // `customers kyc-link <customerId> [--redirect-uri <uri>]` posts `{redirectUri}` (undefined dropped by JSON)
  // with these headers, and reads kycUrl, expiresAt, provider and token.
  const cli = (p: TestPlatform, customerId: string, redirectUri?: string) =>
    SELF.fetch(`${BASE}/customers/${customerId}/kyc-link`, {
      method: 'POST',
      headers: { Authorization: p.auth, Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirectUri }),
    });

  it('customers kyc-link, with and without --redirect-uri', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    for (const redirectUri of [undefined, 'https://example.com/kyc-complete']) {
      const res = await cli(p, c.id, redirectUri);
      expect(res.status).toBe(201);
      expect(res.headers.get('Content-Type')).toContain('application/json');
      const body = (await res.json()) as Record<string, string>;
      expect(body).toMatchObject({ kycUrl: expect.stringMatching(/\/kyc#/), expiresAt: iso(T0 + DAY), provider: 'SUMSUB' });
      const done = await complete(secretOf(body.kycUrl!), 'APPROVED');
      expect(done.body.redirectUri).toBe(redirectUri);
    }
    // A client generated from the reference may send no body at all (it is optional).
    const bare = await SELF.fetch(`${BASE}/customers/${c.id}/kyc-link`, { method: 'POST', headers: { Authorization: p.auth } });
    expect(bare.status).toBe(201);
  });
});
