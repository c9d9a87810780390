// The signed-retry engine: the 202 challenge, then the stamped retry applied once.
import { bodyHash } from '../crypto/canonical';
import { iso } from '../common/time';
import { ApiError } from '../http/errors';
import type { Ctx } from '../http/route';
import { failure, metaOf, reserveAuthId, type Wallet } from './service';
import type { CredentialType, Effect, EffectResult } from './account-protocol';

/** What step 1 of a signed-retry operation binds: checked once, then fixed for the retry. */
export interface SignedOperation {
  /** Activity type written into payloadToSign, e.g. `ACTIVITY_TYPE_REVOKE_SESSION`. */
  activity: string;
  /** Parameters bound into payloadToSign (e.g. `targetPublicKey`). */
  parameters: Record<string, unknown>;
  effect: Effect;
  /** Credential type concerned, for the auth variants of the 202. */
  type?: CredentialType;
}

/** Operations whose effect creates a credential or a session: its id is reserved (indexed) before the retry. */
const CREATES: Readonly<Record<string, 'AuthMethod' | 'Session'>> = { ADD_CREDENTIAL: 'AuthMethod', REFRESH_SESSION: 'Session' };

type SignedRetryResult = { status: 'challenge'; body: Record<string, unknown> } | { status: 'done'; result: EffectResult };

/**
 * The one signed-retry engine. Without signature headers: runs `first` (the operation's
 * checks) and answers the 202 challenge; nothing changes. With both headers: the account checks the
 * stamp, the request id and that this is the same request, then consumes the id and applies the effect
 * fixed at step 1, atomically. `operation` names the operation so a challenge of one cannot authorise another.
 */
export async function signedRetry(
  c: Ctx,
  wallet: Wallet,
  operation: string,
  first: () => Promise<SignedOperation>,
): Promise<SignedRetryResult> {
  const signature = c.request.headers.get('Service-Wallet-Signature');
  const requestId = c.request.headers.get('Request-Id');
  const method = c.request.method;
  const path = new URL(c.request.url).pathname;
  const hash = bodyHash(c.rawBody);
  if (signature === null && requestId === null) {
    const op = await first();
    const challenge = await wallet.stub.issueChallenge(
      metaOf(wallet, c.now),
      { operation, activity: op.activity, method, path, bodyHash: hash, parameters: op.parameters },
      op.effect,
    );
    const body: Record<string, unknown> = {
      payloadToSign: challenge.payloadToSign,
      requestId: challenge.requestId,
      expiresAt: iso(challenge.expiresAt),
    };
    if (op.type) body.type = op.type;
    return { status: 'challenge', body };
  }
  if (requestId === null) throw new ApiError('REQUEST_ID_MISSING', 'Request-Id is required with Service-Wallet-Signature');
  if (signature === null) throw new ApiError('WALLET_SIGNATURE_MISSING', 'Service-Wallet-Signature is required with Request-Id');
  const creates = Object.hasOwn(CREATES, operation) ? CREATES[operation] : undefined;
  const reservedId = creates && (await reserveAuthId(c.db, wallet, creates, c.now));
  const outcome = await wallet.stub.completeSignedRetry(metaOf(wallet, c.now), {
    reservedId,
    requestId,
    signature,
    operation,
    method,
    path,
    bodyHash: hash,
    sandbox: c.settings.mode === 'sandbox',
  });
  if (!outcome.ok) throw failure(outcome);
  return { status: 'done', result: outcome.result };
}
