import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { BASE, newPlatform, SANDBOX_CURRENCIES, type TestPlatform } from '../support/api';
import { customerWithAccounts, externalAccount, fund } from '../support/payments';
import { individualBody } from '../support/customers';
import { solanaWithSuffix } from '../support/identifiers';

/**
 * The requests the service's command-line client (`cli/` of its public repository) sends for `receiver
 * lookup-uma`, `receiver lookup-account`, `quotes create --lookup-id`, `discoveries` and `crypto estimate-fee`,
 * built exactly as its `GridClient` builds them: the path joined to a base URL with a trailing slash, path
 * parameters through encodeURIComponent, query parameters appended only when set, `Accept: application/json`,
 * and a JSON body with its Content-Type on POST.
 */
async function cli(
  p: TestPlatform,
  method: 'GET' | 'POST',
  path: string,
  options: { params?: Record<string, string | undefined>; body?: unknown } = {},
) {
  const url = new URL(path.startsWith('/') ? path.slice(1) : path, `${BASE}/`);
  for (const [key, value] of Object.entries(options.params ?? {})) if (value !== undefined) url.searchParams.append(key, String(value));
  const headers: Record<string, string> = { Authorization: p.auth, Accept: 'application/json' };
  const init: RequestInit = { method, headers };
  if (options.body) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  const res = await SELF.fetch(url.toString(), init);
  return { status: res.status, body: (await res.json()) as any };
}

describe('the command-line client, unchanged', () => {
  it('receiver lookup-uma, then quotes create with --lookup-id and --sender-name', async () => {
    const p = await newPlatform();
    // A customer registered without a name: the receiver asks for it, and --sender-name gives it.
    const { customer, accounts } = await customerWithAccounts(p, individualBody({ fullName: undefined }));
    await fund(p, accounts.USD!, 100_000);
    const uma = '$success.eur@sandbox.uma.test';
    // grid receiver lookup-uma '$success.eur@sandbox.uma.test' --customer-id <id>
    const lookup = await cli(p, 'GET', `/receiver/uma/${encodeURIComponent(uma)}`, {
      params: { customerId: customer.id, senderUmaAddress: undefined },
    });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(200);
    expect(lookup.body).toMatchObject({ receiverUmaAddress: uma, requiredPayerDataFields: [{ name: 'FULL_NAME', mandatory: true }] });
    // grid receiver lookup-uma ... --sender-uma <address>
    const bySender = await cli(p, 'GET', `/receiver/uma/${encodeURIComponent(uma)}`, {
      params: { customerId: undefined, senderUmaAddress: customer.umaAddress },
    });
    expect(bySender.status, JSON.stringify(bySender.body)).toBe(200);
    // grid quotes create --amount 1000 --lock-side SENDING --source-account <id> --dest-uma <uma> --lookup-id <id> --sender-name 'Ana Diaz'
    const quote = await cli(p, 'POST', '/quotes', {
      body: {
        lockedCurrencyAmount: 1000,
        lockedCurrencySide: 'SENDING',
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: uma, currency: undefined },
        lookupId: lookup.body.lookupId,
        senderCustomerInfo: { FULL_NAME: 'Ana Diaz' },
      },
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    expect(quote.body.receivingCurrency.code).toBe('EUR');
  });

  it('receiver lookup-account, with --customer-id', async () => {
    const p = await newPlatform();
    const { customer } = await customerWithAccounts(p);
    const account = await externalAccount(p, customer.id, 'MXN', '123');
    const res = await cli(p, 'GET', `/receiver/external-account/${encodeURIComponent(account)}`, {
      params: { customerId: customer.id, senderUmaAddress: undefined },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ accountId: account, supportedCurrencies: [{ currency: { code: 'MXN' } }] });
  });

  it('discoveries, with and without --country and --currency', async () => {
    const p = await newPlatform();
    const all = await cli(p, 'GET', '/discoveries', { params: { country: undefined, currency: undefined } });
    expect(all.status).toBe(200);
    const ph = await cli(p, 'GET', '/discoveries', { params: { country: 'PH', currency: 'PHP' } });
    expect(ph.status).toBe(200);
    expect(ph.body.data.length).toBeGreaterThan(1);
    expect(all.body.data).toEqual(expect.arrayContaining(ph.body.data));
  });

  it('crypto estimate-fee', async () => {
    const p = await newPlatform({
      supportedCurrencies: [...SANDBOX_CURRENCIES, { ...SANDBOX_CURRENCIES[0]!, currencyCode: 'USDC', maxAmount: 10_000_000_000 }],
    });
    const { accounts } = await customerWithAccounts(p);
    // grid crypto estimate-fee --internal-account-id <id> --currency USDC --crypto-network SOLANA --amount 5000 --destination-address <address>
    const res = await cli(p, 'POST', '/crypto/estimate-withdrawal-fee', {
      body: {
        internalAccountId: accounts.USDC,
        currency: 'USDC',
        cryptoNetwork: 'SOLANA',
        amount: 5000,
        destinationAddress: solanaWithSuffix('123'),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ networkFee: 5000, networkFeeAsset: 'SOL', applicationFee: 0, totalFee: 750, netAmount: 4250 });
  });
});
