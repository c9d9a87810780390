// POST /internal-accounts/{id}/export: an embedded wallet's credentials, sealed to the client's key (signed retry).
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { ClientKeyRequest, ExportResponse, IdParams, SIGNATURE_HEADERS, SignedRequestChallenge } from './schema';
import { walletByAccount } from './service';
import { signedRetry } from './signed-retry';

const tag = 'Internal Accounts';
const challenge202 = { 202: { description: 'Signed-retry challenge: sign payloadToSign and retry', schema: SignedRequestChallenge } };

export const walletAccountRoutes = [
  defineRoute({
    method: 'POST',
    path: '/internal-accounts/:id/export',
    operationId: 'exportInternalAccount',
    summary: "Export an embedded wallet's credentials, sealed to clientPublicKey (signed retry)",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: IdParams,
    body: ClientKeyRequest,
    headers: SIGNATURE_HEADERS,
    responses: {
      200: { description: 'The sealed wallet credentials', schema: ExportResponse },
      ...challenge202,
      ...errorResponses(400, 401, 403, 404),
    },
    handler: async (c) => {
      const wallet = await walletByAccount(c.db, c.env.ACCOUNT, c.auth.platform.id, c.params.id);
      const { clientPublicKey } = c.body;
      const result = await signedRetry(c, wallet, 'EXPORT_WALLET', async () => ({
        activity: 'ACTIVITY_TYPE_EXPORT_WALLET',
        // Bound into payloadToSign: the signature commits to the key the secret will be sealed to.
        parameters: { targetPublicKey: clientPublicKey },
        effect: { kind: 'exportWallet', clientPublicKey },
      }));
      if (result.status === 'challenge') return json(result.body, 202);
      if (result.result.kind !== 'export') throw new Error('unexpected signed-retry result');
      return json({ id: wallet.accountId, encryptedWalletCredentials: result.result.encryptedWalletCredentials });
    },
  }),
];
