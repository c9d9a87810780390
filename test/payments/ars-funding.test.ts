import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withCbuCheckDigits } from '../../src/common/identifiers';
import { api, newPlatform, SANDBOX_CURRENCIES } from '../support/api';
import { advance, createQuote, customerWithAccounts, expectLedgerInvariant, externalAccount, tx } from '../support/payments';

/** Argentine CBU (bank) or CVU (payment provider, starts with 000): 22 digits, blocks of 8 and 14 each ending in a check digit. */
function cbuValid(cbu: string): boolean {
  return /^[0-9]{22}$/.test(cbu) && withCbuCheckDigits(cbu.slice(0, 7), cbu.slice(8, 21)) === cbu;
}

const T0 = Date.parse('2032-01-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

/** A platform that added ARS to its currencies through PATCH /config, as a platform would. */
async function arsPlatform() {
  const p = await newPlatform();
  const ars = { ...SANDBOX_CURRENCIES[0]!, currencyCode: 'ARS', maxAmount: 100_000_000_000 };
  const res = await api('PATCH', '/config', { auth: p.auth, body: { supportedCurrencies: [...SANDBOX_CURRENCIES, ars] } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { p, config: res.body };
}

describe('CBU / CVU check digits', () => {
  it('accepts valid 22-digit keys and refuses a changed digit or a wrong length', () => {
    expect(cbuValid('2850590940090418135201')).toBe(true); // a published bank CBU
    expect(cbuValid('2850590940090418135202')).toBe(false); // second check digit
    expect(cbuValid('2850590840090418135201')).toBe(false); // first check digit
    expect(cbuValid('285059094009041813520')).toBe(false);
    expect(cbuValid('285059094009041813520a')).toBe(false);
  });
});

describe('real-time funding in ARS', () => {
  it('is in the catalogue: PATCH /config takes it, with ISO 4217 data and provider fields', async () => {
    const { config } = await arsPlatform();
    expect(config.supportedCurrencies.find((c: any) => c.currencyCode === 'ARS')).toMatchObject({
      currencyCode: 'ARS',
      providerRequiredCustomerFields: expect.arrayContaining(['FULL_NAME', 'TAX_ID']),
    });
    const { p } = await arsPlatform();
    const rates = await api('GET', '/exchange-rates?sourceCurrency=ARS&destinationCurrency=USD', { auth: p.auth });
    expect(rates.status).toBe(200);
    expect(rates.body.data[0].sourceCurrency).toEqual({ code: 'ARS', name: 'Argentine Peso', symbol: '$', decimals: 2 });
  });

  it('gives an ARS_ACCOUNT instruction with a valid 22-digit CVU, and POST /sandbox/send pays it', async () => {
    const { p } = await arsPlatform();
    const { customer } = await customerWithAccounts(p);
    const ext = await externalAccount(p, customer.id, 'EUR', '123');
    const quote = await createQuote(p, {
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'ARS' },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 10_000,
    });
    expect(quote.sendingCurrency.code).toBe('ARS');
    const [ars, spark] = quote.paymentInstructions;
    // The reference's PaymentArsAccountInfo: accountType and accountNumber, nothing else.
    expect(ars).toEqual({
      instructionsNotes: expect.stringContaining('"ARS"'),
      accountOrWalletInfo: { accountType: 'ARS_ACCOUNT', accountNumber: expect.stringMatching(/^\d{22}$/) },
    });
    expect(cbuValid(ars.accountOrWalletInfo.accountNumber)).toBe(true);
    expect(ars.accountOrWalletInfo.accountNumber.startsWith('000')).toBe(true); // a CVU, not a bank CBU
    expect(spark.accountOrWalletInfo.accountType).toBe('SPARK_WALLET');
    // Stable for the quote: GET shows the same instructions.
    expect((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body.paymentInstructions).toEqual(quote.paymentInstructions);

    const res = await api('POST', '/sandbox/send', {
      auth: p.auth,
      body: { quoteId: quote.id, currencyCode: 'ARS', currencyAmount: quote.totalSendingAmount },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await advance(p, 5);
    expect((await tx(p, quote.transactionId)).status).toBe('COMPLETED');
    await expectLedgerInvariant(p.id);
  });
});
