import { describe, expect, it } from 'vitest';
import {
  api,
  expectError,
  failingFields,
  newPlatform,
  productionApi,
  SANDBOX_CURRENCIES,
  tokenWith,
  type TestPlatform,
} from '../support/api';
import { customerWithAccounts } from '../support/payments';
import { INVOICE, SPARK, solanaWithSuffix } from '../support/identifiers';

const EVM = '0x742d35Cc6634C0532925a3b844Bc454e4438f44e';
const TRON = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

/** A platform holding USDC and BTC too, and a customer's accounts by currency. */
async function setup() {
  const p = await newPlatform({
    supportedCurrencies: [
      ...SANDBOX_CURRENCIES,
      ...['USDC', 'BTC'].map((currencyCode) => ({ ...SANDBOX_CURRENCIES[0]!, currencyCode, maxAmount: 10_000_000_000 })),
    ],
  });
  const { accounts } = await customerWithAccounts(p);
  return { p, accounts };
}

/** A withdrawal of 1 USDC from `internalAccountId` to a Solana address. */
const solana = (internalAccountId: string) => ({
  internalAccountId,
  currency: 'USDC',
  cryptoNetwork: 'SOLANA',
  amount: 1_000_000,
  destinationAddress: solanaWithSuffix('1'),
});

const estimate = (p: TestPlatform | { auth: string }, body: Record<string, unknown>) =>
  api('POST', '/crypto/estimate-withdrawal-fee', { auth: p.auth, body });

describe('POST /crypto/estimate-withdrawal-fee', () => {
  it("charges each chain's fee, converted to the currency at the sandbox's fixed prices, rounded up; no application fee", async () => {
    const { p, accounts } = await setup();
    // The fixed sandbox fees, worked by hand: SOL at $150, ETH at $3,000, POL at $0.50, TRX at $0.25, USDC 6 decimals.
    const cases: [string, string, string, number, string, number][] = [
      // network, currency, address, networkFee, asset, totalFee
      ['SOLANA', 'USDC', solanaWithSuffix('123'), 5_000, 'SOL', 750], // 5,000 lamports = $0.00075
      ['ETHEREUM', 'USDC', EVM, 130_000_000_000_000, 'ETH', 390_000], // 65,000 gas at 2 gwei = $0.39
      ['BASE', 'USDC', EVM, 650_000_000_000, 'ETH', 1_950], // 65,000 gas at 0.01 gwei = $0.00195
      ['POLYGON', 'USDC', EVM, 1_950_000_000_000_000, 'POL', 975], // 65,000 gas at 30 gwei = $0.000975
      ['TRON', 'USDC', TRON, 13_000_000, 'TRX', 3_250_000], // 13 TRX = $3.25
      ['SPARK', 'BTC', SPARK, 0, 'BTC', 0],
      ['LIGHTNING', 'BTC', INVOICE, 5, 'BTC', 5],
      ['LIGHTNING', 'BTC', 'alice@wallet.example', 5, 'BTC', 5],
    ];
    for (const [cryptoNetwork, currency, destinationAddress, networkFee, networkFeeAsset, totalFee] of cases) {
      const amount = 10_000_000;
      const res = await estimate(p, { internalAccountId: accounts[currency], currency, cryptoNetwork, amount, destinationAddress });
      expect(res.status, `${cryptoNetwork}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body, cryptoNetwork).toEqual({ networkFee, networkFeeAsset, applicationFee: 0, totalFee, netAmount: amount - totalFee });
    }
  });

  it('refuses a chain no wallet corridor pays on, an asset the chain does not carry, or a non-crypto account', async () => {
    const { p, accounts } = await setup();
    const body = solana(accounts.USDC!);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ cryptoNetwork: 'BITCOIN' }, 'cryptoNetwork', /pays out on: .*LIGHTNING.*SOLANA/],
      [{ cryptoNetwork: 'SPARK', destinationAddress: SPARK }, 'cryptoNetwork', /SPARK carries BTC; USDC withdraws on/],
      [{ currency: 'BTC' }, 'currency', /holds USDC/],
      [{ internalAccountId: accounts.USD, currency: 'USD' }, 'internalAccountId', /only a crypto account/],
      [{ destinationAddress: EVM }, 'destinationAddress', /Solana address/],
      [{ amount: 750 }, 'amount', /Does not cover the fee of 750/],
      [{ amount: 0 }, 'amount', /./],
    ];
    for (const [change, field, message] of cases) {
      const res = await estimate(p, { ...body, ...change });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(change)).toEqual([field]);
      expect(res.body.details.fields[0].message).toMatch(message);
    }
    expect((await estimate(p, { ...body, amount: 751 })).body.netAmount).toBe(1);
    expect(failingFields(await estimate(p, { ...body, memo: 'x' }))).toEqual(['memo']);
  });

  it("an unknown or another platform's account is 404", async () => {
    const { p } = await setup();
    const other = await setup();
    for (const internalAccountId of [other.accounts.USDC, 'InternalAccount:00000000-0000-7000-8000-000000000000'])
      expectError(await estimate(p, solana(internalAccountId!)), 404, 'REFERENCE_NOT_FOUND', 'INTERNAL_ACCOUNT_NOT_FOUND');
  });

  it('changes nothing, so VIEW is enough; production has no live fee source: 503 SERVICE_NOT_CONFIGURED', async () => {
    const { p, accounts } = await setup();
    const body = solana(accounts.USDC!);
    expect((await estimate({ auth: await tokenWith(p, ['VIEW']) }, body)).status).toBe(200);
    expectError(await estimate({ auth: await tokenWith(p, ['TRANSACT']) }, body), 403, 'FORBIDDEN');
    expectError(await productionApi('POST', '/crypto/estimate-withdrawal-fee', { auth: p.auth, body }), 503, 'SERVICE_NOT_CONFIGURED');
    // Its checks come first there too.
    expectError(
      await productionApi('POST', '/crypto/estimate-withdrawal-fee', { auth: p.auth, body: { ...body, destinationAddress: EVM } }),
      400,
      'INVALID_INPUT',
    );
  });
});
