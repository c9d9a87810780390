// PATCH /customers/{id}: applied at once, or as a signed retry when it changes a wallet's OTP e-mail.
import type { Ctx } from '../http/route';
import type { CustomerUpdate } from './schema';
import { checkCustomerUpdate, updateCustomer } from './service';
import { metaOf, walletOfCustomer } from '../wallet/service';
import { signedRetry } from '../wallet/signed-retry';

type PatchCtx = Ctx<'basic', { customerId: string }, unknown, CustomerUpdate>;

/**
 * PATCH /customers/{id}. The customer e-mail is the address of the wallet's EMAIL_OTP credential,
 * so changing it while such a credential exists is a signed retry: the retry changes the credential's
 * e-mail (with the request id, atomically) and then the customer's. Any other update applies at once.
 */
export async function patchCustomer(c: PatchCtx): Promise<{ status: 200 | 202; body: unknown }> {
  const { customerId } = c.params;
  const platform = c.auth.platform;
  const email = c.body.email;
  const wallet = email !== undefined ? await walletOfCustomer(c.db, c.env.ACCOUNT, platform.id, customerId) : undefined;
  if (wallet && email !== undefined && wallet.email !== email) {
    const credentials = await wallet.stub.listCredentials(metaOf(wallet, c.now));
    if (credentials.some((cr) => cr.type === 'EMAIL_OTP')) {
      const result = await signedRetry(c, wallet, 'UPDATE_CUSTOMER_EMAIL', async () => {
        await checkCustomerUpdate(c.db, platform, customerId, c.body);
        return {
          activity: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
          parameters: { customerId, userEmail: email },
          effect: { kind: 'updateEmail', email },
          type: 'EMAIL_OTP',
        };
      });
      if (result.status === 'challenge') return { status: 202, body: result.body };
    }
  }
  return { status: 200, body: await updateCustomer(c.db, c.env.JOBS, platform, customerId, c.body, c.now) };
}
