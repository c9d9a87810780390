// POST /crypto/estimate-withdrawal-fee: what a withdrawal from a crypto account to a chain address costs, from
// the wallet corridors' network fees (reference EstimateCryptoWithdrawalFeeRequest / Response).
import * as z from 'zod';
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import type { Settings } from '../env';
import { internalAccounts } from '../db/schema';
import { currencyInfo, CurrencyCode } from '../common/currencies';
import { ApiError, invalidFields } from '../http/errors';
import { internalAccountNotFound } from '../accounts/internal-service';
import { WALLET_NETWORKS, walletAddressProblem } from '../external-accounts/corridors';
import { requireActiveInternal } from './parties';
import { convertUp, usdValue } from './rates';
import type { RateSource } from './rates-source';

const NETWORK_NAMES = [...WALLET_NETWORKS.keys()] as [string, ...string[]];

export const EstimateCryptoWithdrawalFeeRequest = z
  .object({
    internalAccountId: z.string().max(128).meta({
      description: 'The crypto internal account (INTERNAL_CRYPTO) to withdraw from',
      example: 'InternalAccount:a12dcbd6-dced-4ec4-b756-3c3a9ea3d123',
    }),
    currency: CurrencyCode.meta({ description: 'The asset withdrawn: the currency the account holds', example: 'USDC' }),
    cryptoNetwork: z
      .enum(NETWORK_NAMES, { error: `Must be a chain a wallet corridor pays out on: ${NETWORK_NAMES.join(', ')}` })
      .meta({ description: 'The chain of the withdrawal (the wallet corridors’ chains)', example: 'SOLANA' }),
    amount: z
      .int({ error: 'Must be an integer' })
      .positive()
      .max(9_000_000_000_000_000)
      .meta({ description: 'The amount withdrawn, in the smallest unit of the currency', example: 1_000_000 }),
    destinationAddress: z
      .string()
      .min(1)
      .max(7089)
      .meta({ description: 'Where on the chain it goes', example: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU' }),
  })
  .meta({ id: 'EstimateCryptoWithdrawalFeeRequest' });
export type EstimateCryptoWithdrawalFeeRequest = z.infer<typeof EstimateCryptoWithdrawalFeeRequest>;

export const EstimateCryptoWithdrawalFeeResponse = z
  .object({
    networkFee: z
      .int()
      .min(0)
      .meta({ description: 'The chain’s fee, in the smallest unit of networkFeeAsset (lamports for SOL): for information' }),
    networkFeeAsset: z.string().meta({ description: 'The asset the chain charges its fee in', example: 'SOL' }),
    applicationFee: z
      .int()
      .min(0)
      .meta({ description: 'The service’s own fee on a withdrawal, in the currency’s smallest unit: none (0)' }),
    totalFee: z
      .int()
      .min(0)
      .meta({ description: 'networkFee converted to the currency (rounded up) plus applicationFee, in the currency’s smallest unit' }),
    netAmount: z.int().min(0).meta({ description: 'What arrives: amount minus totalFee' }),
  })
  .meta({ id: 'EstimateCryptoWithdrawalFeeResponse' });
type Estimate = z.infer<typeof EstimateCryptoWithdrawalFeeResponse>;

/** The account withdrawn from, as a load for authentication's round trip (`platformId` SQL: see `RouteSpec.load`). */
export function withdrawalLoads(db: Db, platformId: SQL, input: EstimateCryptoWithdrawalFeeRequest) {
  return {
    account: db
      .select()
      .from(internalAccounts)
      .where(and(eq(internalAccounts.id, input.internalAccountId), eq(internalAccounts.platformId, platformId)))
      .limit(1),
  };
}

/**
 * The fees of withdrawing `amount` from a crypto account to `destinationAddress` on `cryptoNetwork`: the
 * chain's fee its wallet corridor declares (fixed in the sandbox, so estimates are deterministic), converted
 * to the currency at a fixed price of the fee asset (the currency's own rate from the sandbox table: USDC is
 * pegged at 1 USD); the service adds no application fee. The address is checked as the corridor's account
 * info would check it. Production has no live source of chain fees: 503 SERVICE_NOT_CONFIGURED.
 */
export async function estimateWithdrawalFee(
  input: EstimateCryptoWithdrawalFeeRequest,
  loaded: Loaded<ReturnType<typeof withdrawalLoads>>,
  s: Settings,
  rates: RateSource,
  now: number,
): Promise<Estimate> {
  const account = loaded.account[0];
  if (!account) throw internalAccountNotFound();
  requireActiveInternal(account);
  const corridor = WALLET_NETWORKS.get(input.cryptoNetwork)!;
  const onChain = [...WALLET_NETWORKS.values()].filter((c) => c.currency === input.currency).map((c) => c.network.network);
  const problem =
    currencyInfo(account.currency).kind !== 'CRYPTO'
      ? { field: 'internalAccountId', message: `Holds ${account.currency}: only a crypto account (BTC, USDC) withdraws on a chain` }
      : account.currency !== input.currency
        ? { field: 'currency', message: `The account holds ${account.currency}` }
        : corridor.currency !== input.currency
          ? {
              field: 'cryptoNetwork',
              message: `${input.cryptoNetwork} carries ${corridor.currency}; ${input.currency} withdraws on ${onChain.join(', ')}`,
            }
          : undefined;
  if (problem) throw invalidFields('request body', [problem]);
  const badAddress = walletAddressProblem(corridor, input.destinationAddress);
  if (badAddress) throw invalidFields('request body', [{ field: 'destinationAddress', message: badAddress }]);
  if (s.mode !== 'sandbox')
    throw new ApiError(
      'SERVICE_NOT_CONFIGURED',
      'No source of live network fees is configured: withdrawal fees are estimated in the sandbox only',
    );
  const { network } = corridor;
  const totalFee =
    network.feeAsset === input.currency
      ? network.fee
      : convertUp(
          network.fee,
          { usd: network.feeAssetUsd!, decimals: network.feeAssetDecimals },
          { usd: usdValue(await rates(now), input.currency), decimals: currencyInfo(input.currency).decimals },
        );
  if (input.amount <= totalFee)
    throw invalidFields('request body', [
      { field: 'amount', message: `Does not cover the fee of ${totalFee} (smallest unit of ${input.currency})` },
    ]);
  return { networkFee: network.fee, networkFeeAsset: network.feeAsset, applicationFee: 0, totalFee, netAmount: input.amount - totalFee };
}
