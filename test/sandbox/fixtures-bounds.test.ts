import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, type TestPlatform } from '../support/api';
import { individualBody } from '../support/customers';
import { bankInfo } from '../support/payments';
import { ROUTES } from '../../src/router';
import { planFixtures } from '../../src/sandbox/fixtures-service';
import type { PlatformRow } from '../../src/db/schema';
import { ApiError } from '../../src/http/errors';

const load = (p: TestPlatform, doc: unknown) => api('POST', '/sandbox/fixtures', { auth: p.auth, body: doc });

/** `customers` customers with `accounts` external accounts each, and `payments` payments naming refs nobody declares. */
function brokenDocument(customers: number, accounts: number, payments: number) {
  return {
    customers: Array.from({ length: customers }, (_, i) => ({
      ref: `c${i}`,
      ...individualBody({ platformCustomerId: `c-${i}` }),
      externalAccounts: Array.from({ length: accounts }, (_, j) => ({
        ref: `c${i}-b${j}`,
        currency: 'USD',
        accountInfo: bankInfo('USD', '000'),
      })),
    })),
    payments: Array.from({ length: payments }, (_, i) => ({
      ref: `p${i}`,
      transferOut: {
        source: { accountId: { $ref: `nobody${i}.accounts.USD` } },
        destination: { accountId: { $ref: `nothing${i}` } },
        amount: 1,
      },
    })),
  };
}

describe('POST /sandbox/fixtures: planning is linear in the document, and the document is bounded', () => {
  it('the planner visits each declared name a bounded number of times (linear, not names × entries)', async () => {
    const platform = {
      supportedCurrencies: [{ currencyCode: 'USD' }, { currencyCode: 'EUR' }],
      embeddedWalletConfig: null,
    } as unknown as PlatformRow;
    const work = async (n: number) => {
      const meter = { visits: 0 };
      let refused: unknown;
      try {
        await planFixtures(brokenDocument(n, 4, 4 * n) as never, platform, ROUTES, meter);
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(ApiError);
      return meter.visits;
    };
    const small = await work(50);
    const large = await work(200);
    expect(small).toBeGreaterThan(0);
    // Four times the document, four times the work: each entry visits its own names (a customer itself and its two
    // accounts, an external account, a payment), where a scan of every declared name per entry grew sixteenfold.
    expect(large).toBe(4 * small);
    expect(small).toBe(50 * (3 + 4 + 4));
  });

  it("another platform's request is answered while a large document is still being planned", async () => {
    const platform = {
      supportedCurrencies: [{ currencyCode: 'USD' }, { currencyCode: 'EUR' }],
      embeddedWalletConfig: null,
    } as unknown as PlatformRow;
    const meter = { visits: 0 };
    const planning = planFixtures(brokenDocument(1_000, 9, 10_000) as never, platform, ROUTES, meter).then(
      () => undefined,
      (error: unknown) => error,
    );
    const other = await newPlatform();
    const config = await api('GET', '/config', { auth: other.auth });
    expect(config.status).toBe(200);
    const visitsWhenAnswered = meter.visits;
    expect(await planning).toBeInstanceOf(ApiError);
    // The planner had not finished when the other request was answered: it gives the isolate back as it goes.
    expect(visitsWhenAnswered).toBeLessThan(meter.visits);
  }, 120_000);

  it('a large document of invalid references is refused with 400, naming the first issues and counting all', async () => {
    const p = await newPlatform();
    const res = await load(p, brokenDocument(1_000, 9, 10_000));
    const error = expectError(res, 400, 'INVALID_INPUT');
    expect(error.details.issueCount).toBe(20_000);
    expect(error.details.fields).toHaveLength(100);
    expect(error.details.fields[0]).toEqual({
      field: 'payments[0].transferOut.source.accountId.$ref',
      message: 'Unknown ref "nobody0.accounts.USD"',
    });
    expect(error.message).toContain('(and 19900 more)');
    const other = await newPlatform();
    expect((await api('GET', '/config', { auth: other.auth })).status).toBe(200);
    expect((await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(0);
  }, 120_000);

  it('a document of more than 20,000 entries in all (customers, external accounts, agents, payments) is 400', async () => {
    const p = await newPlatform();
    const res = await load(p, brokenDocument(1_000, 14, 10_000));
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['(body)']);
    expect(res.body.message).toContain('25000 entries');
    expect(res.body.message).toContain('at most 20000');
  }, 120_000);
});
