import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currency } from '../../src/common/currencies';
import { api, expectError, failingFields, newPlatform, SANDBOX_CURRENCIES, tokenWith, type TestPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import { businessBody, createCustomer, individualBody } from '../support/customers';
import { advance, createQuote, customerWithAccounts, execute, externalAccount, fund, tx } from '../support/payments';

const T0 = Date.parse('2032-03-04T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const DOMAIN = 'sandbox.uma.test';
const LOOKUP_ID = /^LookupRequest:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const lookUp = (p: TestPlatform, address: string, query: Record<string, string>) =>
  api('GET', `/receiver/uma/${encodeURIComponent(address)}?${new URLSearchParams(query)}`, { auth: p.auth });
const lookUpAccount = (p: TestPlatform, accountId: string, query: Record<string, string>) =>
  api('GET', `/receiver/external-account/${encodeURIComponent(accountId)}?${new URLSearchParams(query)}`, { auth: p.auth });

const umaQuote = (from: string, umaAddress: string, extra: Record<string, unknown> = {}, amount = 10_000) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'UMA_ADDRESS', umaAddress },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  ...extra,
});

/** A platform with a funded customer (USD 1,000.00). */
async function setup() {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  return { p, customer, usd: accounts.USD!, accounts };
}

/** What GET /exchange-rates says a quote from USD sending `amount` delivers in `to`. */
async function rateFor(p: TestPlatform, to: string, amount: number) {
  const res = await api('GET', `/exchange-rates?sourceCurrency=USD&destinationCurrency=${to}&sendingAmount=${amount}`, { auth: p.auth });
  expect(res.status).toBe(200);
  return res.body.data[0];
}

describe('GET /receiver/uma/{receiverUmaAddress}', () => {
  it('answers the currency a sandbox receiver accepts, priced like quotes within the sending limits, and stores the look-up', async () => {
    const { p, customer } = await setup();
    const res = await lookUp(p, `$success.eur@${DOMAIN}`, { customerId: customer.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [least, most] = [await rateFor(p, 'EUR', 1), await rateFor(p, 'EUR', 100_000_000)];
    expect(least.receivingAmount).toBe(0); // a 1-cent quote cannot cover the fees: the least deliverable is 1
    expect(res.body).toEqual({
      receiverUmaAddress: `$success.eur@${DOMAIN}`,
      supportedCurrencies: [{ currency: currency('EUR'), estimatedExchangeRate: most.exchangeRate, min: 1, max: most.receivingAmount }],
      requiredPayerDataFields: [],
      lookupId: expect.stringMatching(LOOKUP_ID),
      expiresAt: new Date(T0 + 15 * 60_000).toISOString(),
    });
  });

  it('min and max are what quotes can deliver: max within maxAmount, one more is refused', async () => {
    const p = await newPlatform({ supportedCurrencies: [{ ...SANDBOX_CURRENCIES[0]!, minAmount: 5_000, maxAmount: 20_000 }] });
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    const res = await lookUp(p, `$success.usd@${DOMAIN}`, { customerId: customer.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [{ min, max }] = res.body.supportedCurrencies;
    const quoted = (side: string, amount: number) =>
      api('POST', '/quotes', {
        auth: p.auth,
        body: { ...umaQuote(accounts.USD!, `$success.usd@${DOMAIN}`), lockedCurrencySide: side, lockedCurrencyAmount: amount },
      });
    // The sending side at the limits delivers exactly min and max.
    expect((await quoted('SENDING', 5_000)).body.totalReceivingAmount).toBe(min);
    expect((await quoted('SENDING', 20_000)).body.totalReceivingAmount).toBe(max);
    // Locked on the receiving side: max fits maxAmount, max + 1 does not; min - 1 is under minAmount.
    expect((await quoted('RECEIVING', max)).status).toBe(201);
    expect(failingFields(await quoted('RECEIVING', max + 1))).toEqual(['lockedCurrencyAmount']);
    expect(failingFields(await quoted('RECEIVING', min - 1))).toEqual(['lockedCurrencyAmount']);
  });

  it("the sandbox receivers answer their own currency, and the payer data their currency needs that the sender's registration lacks", async () => {
    const { p, customer } = await setup();
    const expected: Record<string, [string, unknown[]]> = {
      '$success.usd': ['USD', []],
      '$success.eur': ['EUR', []],
      '$success.mxn': ['MXN', [{ name: 'TAX_ID', mandatory: true }]],
      '$pending.long.usd': ['USD', []],
      '$fail.compliance.usd': ['USD', []],
    };
    for (const [local, [code, fields]] of Object.entries(expected)) {
      const res = await lookUp(p, `${local}@${DOMAIN}`, { customerId: customer.id });
      expect(res.status, `${local}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.supportedCurrencies.map((c: { currency: { code: string } }) => c.currency.code)).toEqual([code]);
      expect(res.body.requiredPayerDataFields, local).toEqual(fields);
    }
  });

  it('takes the address as the command-line client sends it (percent-encoded), raw, or in any case, answering it lower-cased', async () => {
    const { p, customer } = await setup();
    for (const path of [
      `/receiver/uma/%24success.usd%40${DOMAIN}`,
      `/receiver/uma/$success.usd@${DOMAIN}`,
      `/receiver/uma/$Success.USD@${DOMAIN.toUpperCase()}`,
      `/receiver/uma/success.usd@${DOMAIN}`,
    ]) {
      const res = await api('GET', `${path}?customerId=${customer.id}`, { auth: p.auth });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.receiverUmaAddress).toBe(`$success.usd@${DOMAIN}`);
    }
  });

  it('names the sender by UMA address (any case), or the platform by its own id', async () => {
    const { p, customer } = await setup();
    const byUma = await lookUp(p, `$success.usd@${DOMAIN}`, { senderUmaAddress: customer.umaAddress.toUpperCase() });
    expect(byUma.status, JSON.stringify(byUma.body)).toBe(200);
    const both = await lookUp(p, `$success.usd@${DOMAIN}`, { senderUmaAddress: customer.umaAddress, customerId: customer.id });
    expect(both.status).toBe(200);
    const platform = await lookUp(p, `$success.usd@${DOMAIN}`, { customerId: p.id });
    expect(platform.status, JSON.stringify(platform.body)).toBe(200);
  });

  it('refuses a look-up without a sender, or with an unknown, deleted or mismatched one', async () => {
    const { p, customer } = await setup();
    const other = await newPlatform();
    const { customer: stranger } = await customerWithAccounts(other);
    const { customer: second } = await customerWithAccounts(p);
    const to = `$success.usd@${DOMAIN}`;
    const none = await lookUp(p, to, {});
    expectError(none, 400, 'INVALID_INPUT');
    expect(failingFields(none)).toEqual(['customerId', 'senderUmaAddress']);
    expectError(await lookUp(p, to, { customerId: 'Customer:00000000-0000-7000-8000-000000000000' }), 404, 'USER_NOT_FOUND');
    expectError(await lookUp(p, to, { customerId: stranger.id }), 404, 'USER_NOT_FOUND');
    expectError(await lookUp(p, to, { senderUmaAddress: stranger.umaAddress }), 404, 'USER_NOT_FOUND');
    const mismatch = await lookUp(p, to, { customerId: customer.id, senderUmaAddress: second.umaAddress });
    expectError(mismatch, 400, 'INVALID_INPUT');
    expect(failingFields(mismatch)).toEqual(['senderUmaAddress']);
    expect(failingFields(await lookUp(p, to, { customerId: customer.id, limit: '5' }))).toEqual(['limit']);
    expect((await api('DELETE', `/customers/${second.id}`, { auth: p.auth })).status).toBe(200);
    expectError(await lookUp(p, to, { customerId: second.id }), 410, 'CUSTOMER_DELETED');
  });

  it('a well-formed address with no receiver is 404 UMA_NOT_FOUND; a malformed one 400', async () => {
    const { p, customer } = await setup();
    const q = { customerId: customer.id };
    expectError(await lookUp(p, `$non.existent.usd@${DOMAIN}`, q), 404, 'UMA_NOT_FOUND');
    expectError(await lookUp(p, '$success.usd@elsewhere.example', q), 404, 'UMA_NOT_FOUND');
    const bad = await lookUp(p, 'not an address', q);
    expectError(bad, 400, 'INVALID_INPUT');
    expect(failingFields(bad)).toEqual(['receiverUmaAddress']);
  });

  it('the magic counterparties answer 412 UNSUPPORTED_UMA_VERSION and 424 LNURLP_REQUEST_FAILED, to look-ups and quotes alike', async () => {
    const { p, customer, usd } = await setup();
    const cases: [string, number, string][] = [
      [`$fail.version.usd@${DOMAIN}`, 412, 'UNSUPPORTED_UMA_VERSION'],
      [`$fail.lnurlp.usd@${DOMAIN}`, 424, 'LNURLP_REQUEST_FAILED'],
    ];
    for (const [address, status, code] of cases) {
      const body = expectError(await lookUp(p, address, { customerId: customer.id }), status, code);
      expect(body.details).toEqual({ receiverUmaAddress: address });
      expectError(await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, address) }), status, code);
    }
    // GET /sandbox/magic-values lists them, read from the table the look-ups decide with.
    const magic = await api('GET', '/sandbox/magic-values', { auth: p.auth });
    expect(magic.body.umaReceivers.refusals).toEqual(
      cases.map(([address, status, code]) => ({
        address,
        operations: ['GET /receiver/uma/{receiverUmaAddress}', 'POST /quotes'],
        error: { status, code },
      })),
    );
    expect(magic.body.timings).toContainEqual({ name: 'lookupTtl', ms: 15 * 60_000, description: expect.any(String) });
  });

  it('needs VIEW', async () => {
    const { p, customer } = await setup();
    const view = await tokenWith(p, ['VIEW']);
    const transact = await tokenWith(p, ['TRANSACT']);
    const path = `/receiver/uma/${encodeURIComponent(`$success.usd@${DOMAIN}`)}?customerId=${customer.id}`;
    expect((await api('GET', path, { auth: view })).status).toBe(200);
    expectError(await api('GET', path, { auth: transact }), 403, 'FORBIDDEN');
    expectError(await api('GET', path), 401, 'UNAUTHORIZED');
  });
});

describe('GET /receiver/external-account/{accountId}', () => {
  it("answers the account's currency, priced like quotes, and what its currency asks of the payer", async () => {
    const { p, customer } = await setup();
    const eur = await externalAccount(p, customer.id, 'EUR', '123');
    const res = await lookUpAccount(p, eur, { customerId: customer.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const most = await rateFor(p, 'EUR', 100_000_000);
    expect(res.body).toEqual({
      accountId: eur,
      supportedCurrencies: [{ currency: currency('EUR'), estimatedExchangeRate: most.exchangeRate, min: 1, max: most.receivingAmount }],
      requiredPayerDataFields: [],
      lookupId: expect.stringMatching(LOOKUP_ID),
      expiresAt: new Date(T0 + 15 * 60_000).toISOString(),
    });
    const mxn = await externalAccount(p, undefined, 'MXN', '123');
    const platform = await lookUpAccount(p, mxn, { customerId: p.id });
    expect(platform.status, JSON.stringify(platform.body)).toBe(200);
    expect(platform.body.requiredPayerDataFields).toEqual([{ name: 'TAX_ID', mandatory: true }]);
  });

  it("an unknown, deleted or other platform's account is 404", async () => {
    const { p, customer } = await setup();
    const other = await newPlatform();
    const foreign = await externalAccount(other, undefined, 'EUR', '123');
    const gone = await externalAccount(p, customer.id, 'EUR', '123');
    expect((await api('DELETE', `/customers/external-accounts/${gone}`, { auth: p.auth })).status).toBe(204);
    for (const id of [foreign, gone, 'ExternalAccount:00000000-0000-7000-8000-000000000000'])
      expectError(await lookUpAccount(p, id, { customerId: customer.id }), 404, 'REFERENCE_NOT_FOUND', 'EXTERNAL_ACCOUNT_NOT_FOUND');
  });
});

describe('the payer data a look-up asks for', () => {
  it("is what the receiving currency needs about a payer and the sender's registration does not give", async () => {
    const p = await newPlatform();
    const business = await createCustomer(p, businessBody());
    const nameless = await createCustomer(p, individualBody({ fullName: undefined }));
    const asked = async (to: string, sender: string) => {
      const res = await lookUp(p, to, { customerId: sender });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.requiredPayerDataFields.map((f: { name: string; mandatory: boolean }) => `${f.name}${f.mandatory ? '' : '?'}`);
    };
    // MXN payouts need the payer's name and tax id: a business registered both.
    expect(await asked(`$success.mxn@${DOMAIN}`, business.id)).toEqual([]);
    expect(await asked(`$success.mxn@${DOMAIN}`, nameless.id)).toEqual(['FULL_NAME', 'TAX_ID']);
    expect(await asked(`$success.usd@${DOMAIN}`, nameless.id)).toEqual(['FULL_NAME']);
    // The platform paying itself is known by its name.
    expect(await asked(`$success.usd@${DOMAIN}`, p.id)).toEqual([]);
  });

  it('PURPOSE_OF_PAYMENT (INR) is given by the quote’s purposeOfPayment as well', async () => {
    const { p, customer, usd } = await setup();
    const inr = await api('POST', '/customers/external-accounts', {
      auth: p.auth,
      body: {
        customerId: customer.id,
        currency: 'INR',
        accountInfo: {
          accountType: 'INR_ACCOUNT',
          vpa: 'ravi@upi',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ravi Kumar' },
        },
      },
    });
    expect(inr.status, JSON.stringify(inr.body)).toBe(201);
    const lookup = (await lookUpAccount(p, inr.body.id, { customerId: customer.id })).body;
    expect(lookup.requiredPayerDataFields).toEqual([{ name: 'PURPOSE_OF_PAYMENT', mandatory: true }]);
    const quote = (extra: Record<string, unknown>) =>
      api('POST', '/quotes', {
        auth: p.auth,
        body: {
          source: { sourceType: 'ACCOUNT', accountId: usd },
          destination: { destinationType: 'ACCOUNT', accountId: inr.body.id },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 10_000,
          lookupId: lookup.lookupId,
          ...extra,
        },
      });
    expect(failingFields(await quote({}))).toEqual(['senderCustomerInfo.PURPOSE_OF_PAYMENT']);
    expect((await quote({ purposeOfPayment: 'GIFT' })).status).toBe(201);
    expect((await quote({ senderCustomerInfo: { PURPOSE_OF_PAYMENT: 'GIFT' } })).status).toBe(201);
  });
});

describe('POST /quotes with a lookupId', () => {
  it('quotes the receiver looked up, with the payer data it asked for; without it, 400 naming the field', async () => {
    const { p, customer, usd } = await setup();
    const to = `$success.mxn@${DOMAIN}`;
    const lookup = (await lookUp(p, to, { customerId: customer.id })).body;
    const missing = await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, to, { lookupId: lookup.lookupId }) });
    expectError(missing, 400, 'INVALID_INPUT');
    expect(failingFields(missing)).toEqual(['senderCustomerInfo.TAX_ID']);
    const quote = await createQuote(p, umaQuote(usd, to, { lookupId: lookup.lookupId, senderCustomerInfo: { TAX_ID: 'GODE561231GR8' } }));
    expect(quote).toMatchObject({
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: to, currency: 'MXN' },
      receivingCurrency: currency('MXN'),
      counterpartyInformation: { FULL_NAME: 'Sandbox Receiver MXN' },
    });
    // A look-up serves several quotes while it lasts (a re-quote after the first expired, say).
    expect(
      (
        await api('POST', '/quotes', {
          auth: p.auth,
          body: umaQuote(usd, to, { lookupId: lookup.lookupId, senderCustomerInfo: { TAX_ID: 'X' } }),
        })
      ).status,
    ).toBe(201);
  });

  it('a looked-up $fail.compliance.usd is quoted and its payment fails as its name says', async () => {
    const { p, customer, usd } = await setup();
    const to = `$fail.compliance.usd@${DOMAIN}`;
    const lookup = (await lookUp(p, to, { customerId: customer.id })).body;
    const quote = await createQuote(p, umaQuote(usd, to, { lookupId: lookup.lookupId }));
    expect((await execute(p, quote.id)).status).toBe(200);
    await advance(p, 5);
    expect(await tx(p, quote.transactionId)).toMatchObject({ status: 'REJECTED', failureReason: 'PAY_REQUEST_FAILED' });
  });

  it("an unknown, expired or another platform's lookupId is 404 LOOKUP_REQUEST_NOT_FOUND", async () => {
    const { p, customer, usd } = await setup();
    const other = await newPlatform();
    const { customer: stranger } = await customerWithAccounts(other);
    const to = `$success.usd@${DOMAIN}`;
    const foreign = (await lookUp(other, to, { customerId: stranger.id })).body.lookupId;
    const mine = (await lookUp(p, to, { customerId: customer.id })).body.lookupId;
    for (const lookupId of ['LookupRequest:00000000-0000-7000-8000-000000000000', 'nonsense', foreign])
      expectError(await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, to, { lookupId }) }), 404, 'LOOKUP_REQUEST_NOT_FOUND');
    // Valid up to its expiresAt, 15 minutes of the platform's clock, then not found.
    await advance(p, 15 * 60 - 1);
    expect((await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, to, { lookupId: mine }) })).status).toBe(201);
    await advance(p, 1);
    expectError(
      await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, to, { lookupId: mine }) }),
      404,
      'LOOKUP_REQUEST_NOT_FOUND',
    );
  });

  it('a look-up of another receiver or of another sender is 400 naming lookupId', async () => {
    const { p, customer, usd, accounts } = await setup();
    const { accounts: theirs } = await customerWithAccounts(p);
    await fund(p, theirs.USD!, 100_000);
    const eur = await externalAccount(p, customer.id, 'EUR', '123');
    const otherEur = await externalAccount(p, customer.id, 'EUR', '124');
    const usdLookup = (await lookUp(p, `$success.usd@${DOMAIN}`, { customerId: customer.id })).body.lookupId;
    const accountLookup = (await lookUpAccount(p, eur, { customerId: customer.id })).body.lookupId;
    const accountQuote = (to: string, lookupId: string) => ({
      source: { sourceType: 'ACCOUNT', accountId: usd },
      destination: { destinationType: 'ACCOUNT', accountId: to },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
      lookupId,
    });
    const refused = [
      umaQuote(usd, `$success.eur@${DOMAIN}`, { lookupId: usdLookup }),
      umaQuote(theirs.USD!, `$success.usd@${DOMAIN}`, { lookupId: usdLookup }),
      accountQuote(otherEur, accountLookup),
      accountQuote(accounts.EUR!, accountLookup),
      umaQuote(usd, `$success.usd@${DOMAIN}`, { lookupId: accountLookup }),
    ];
    for (const body of refused) {
      const res = await api('POST', '/quotes', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(body)).toEqual(['lookupId']);
    }
    const quote = await createQuote(p, accountQuote(eur, accountLookup));
    expect(quote.destination).toEqual({ destinationType: 'ACCOUNT', accountId: eur, paymentRail: 'SEPA' });
  });

  it("an agent's quote may name a look-up made for its customer", async () => {
    const { p, bearer, customerId, accounts } = await newAgent();
    const usd = accounts.find((a) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD')!.id;
    await fund(p, usd, 100_000);
    const customer = { id: customerId };
    const to = `$success.mxn@${DOMAIN}`;
    const lookupId = (await lookUp(p, to, { customerId: customer.id })).body.lookupId;
    const missing = await api('POST', '/agents/me/quotes', { auth: bearer, body: umaQuote(usd, to, { lookupId }) });
    expectError(missing, 400, 'INVALID_INPUT');
    expect(failingFields(missing)).toEqual(['senderCustomerInfo.TAX_ID']);
    const res = await api('POST', '/agents/me/quotes', {
      auth: bearer,
      body: umaQuote(usd, to, { lookupId, senderCustomerInfo: { TAX_ID: 'GODE561231GR8' } }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
