// The signed retry authorising a change of an embedded wallet's privacy, for PATCH /internal-accounts/{id} in accounts/.
import type { WalletPrivacySigning } from '../accounts/routes';
import { SIGNATURE_HEADERS, SignedRequestChallenge } from './schema';
import { walletByAccount } from './service';
import { signedRetry } from './signed-retry';

export const walletPrivacySigning: WalletPrivacySigning = {
  headers: SIGNATURE_HEADERS,
  challenge: SignedRequestChallenge,
  async authorize(c, accountId, privateEnabled) {
    const wallet = await walletByAccount(c.db, c.env.ACCOUNT, c.auth.platform.id, accountId);
    const result = await signedRetry(c, wallet, 'UPDATE_WALLET_PRIVACY', async () => ({
      activity: 'ACTIVITY_TYPE_UPDATE_WALLET_PRIVACY',
      parameters: { privateEnabled },
      effect: { kind: 'none' },
    }));
    return result.status === 'challenge' ? result : { status: 'done', accountId: wallet.accountId };
  },
};
