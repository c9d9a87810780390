// The wallet credential routes: create, list, delete, challenge and verify.
import { ApiError, badRequest, notFound } from '../http/errors';
import { defineRoute, json, noContent, type Ctx } from '../http/route';
import { errorResponses } from '../http/responses';
import { addCredentialOperation, checkOidc, newCredential, relyingParty, sendOtp } from './credentials';
import {
  AccountIdQuery,
  AuthMethod,
  AuthSession,
  AuthSignedRequestChallenge,
  ChallengeRequest,
  CredentialCreate,
  CredentialList,
  CredentialVerify,
  IdParams,
  PasskeyAuthChallenge,
  SIGNATURE_HEADERS,
} from './schema';
import {
  authMethodJson,
  failure,
  metaOf,
  releaseSessionId,
  sessionJson,
  walletByAccount,
  walletFrom,
  walletLoads,
  walletByAuthId,
  reserveAuthId,
  reserveSession,
  reservedSession,
  type Wallet,
} from './service';
import { signedRetry } from './signed-retry';
import { OTP_ADDRESS_MAX_SENDS } from './otp-address-cap';

const tag = 'Embedded Wallet Auth';
const credentialNotFound = () => notFound('CREDENTIAL_NOT_FOUND', 'Credential not found');
const challenge202 = { 202: { description: 'Signed-retry challenge: sign payloadToSign and retry', schema: AuthSignedRequestChallenge } };

const passkeysNotConfigured = {
  503: {
    ...errorResponses(503)[503]!,
    description: 'PASSKEY: SERVICE_NOT_CONFIGURED, production without WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS',
  },
};

const otpRateLimited = (description: string) => ({
  description,
  schema: errorResponses(429)[429]!.schema,
  headers: { 'Retry-After': 'Seconds to wait' },
});

export const credentialRoutes = [
  defineRoute({
    method: 'POST',
    path: '/auth/credentials',
    operationId: 'createAuthCredential',
    summary: 'Create a credential: 201 for the first one, otherwise a signed retry',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: CredentialCreate,
    headers: SIGNATURE_HEADERS,
    responses: {
      201: { description: 'Created', schema: AuthMethod },
      ...challenge202,
      ...errorResponses(400, 401, 403, 404, 409),
      ...passkeysNotConfigured,
    },
    handler: async (c) => {
      const wallet = await walletByAccount(c.db, c.env.ACCOUNT, c.auth.platform.id, c.body.accountId);
      const signing = c.request.headers.has('Service-Wallet-Signature') || c.request.headers.has('Request-Id');
      let credential;
      if (!signing) {
        credential = await newCredential(c, wallet, c.body);
        const id = await reserveAuthId(c.db, wallet, 'AuthMethod', c.now);
        const first = await wallet.stub.addFirstCredential(metaOf(wallet, c.now), credential, id);
        if (first.ok) return created(c, wallet, first.credential);
        if (!('needsSignature' in first)) throw failure(first);
        const conflict = await wallet.stub.checkCanAdd(metaOf(wallet, c.now), credential);
        if (conflict) throw failure(conflict);
      }
      const op = credential && addCredentialOperation(credential);
      const result = await signedRetry(c, wallet, 'ADD_CREDENTIAL', async () => op!);
      if (result.status === 'challenge') return json(result.body, 202);
      if (result.result.kind !== 'credential') throw new Error('unexpected signed-retry result');
      return created(c, wallet, result.result.credential);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/auth/credentials',
    operationId: 'listAuthCredentials',
    summary: "List an embedded wallet's credentials (not paginated)",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: AccountIdQuery,
    responses: { 200: { description: 'The credentials', schema: CredentialList }, ...errorResponses(400, 401, 403, 404) },
    // The wallet rides on authentication; then one call to its account.
    load: ({ db, platformId, query }) => walletLoads(db, platformId, query.accountId),
    handler: async (c) => {
      const wallet = walletFrom(c.env.ACCOUNT, c.loaded);
      const list = await wallet.stub.listCredentials(metaOf(wallet, c.now));
      return json({ data: list.map(authMethodJson) });
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/auth/credentials/:id',
    revokes: true,
    operationId: 'revokeAuthCredential',
    summary: 'Revoke a credential (signed retry by a session of another credential); its sessions go with it',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: IdParams,
    headers: SIGNATURE_HEADERS,
    responses: { 204: { description: 'Revoked' }, ...challenge202, ...errorResponses(400, 401, 403, 404) },
    handler: async (c) => {
      const wallet = await walletByAuthId(c.db, c.env.ACCOUNT, c.auth.platform.id, c.params.id, credentialNotFound);
      const result = await signedRetry(c, wallet, 'REVOKE_CREDENTIAL', async () => {
        const meta = metaOf(wallet, c.now);
        const credential = await wallet.stub.getCredential(meta, c.params.id);
        if (!credential) throw credentialNotFound();
        if ((await wallet.stub.credentialCount(meta)) <= 1) throw badRequest('The only credential of an account cannot be revoked');
        return {
          activity: 'ACTIVITY_TYPE_DELETE_CREDENTIAL',
          parameters: { credentialId: credential.id, credentialType: credential.type },
          effect: { kind: 'revokeCredential', credentialId: credential.id },
          type: credential.type,
        };
      });
      return result.status === 'challenge' ? json(result.body, 202) : noContent();
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/credentials/:id/challenge',
    operationId: 'challengeAuthCredential',
    summary: 'Start authentication: EMAIL_OTP sends a code, PASSKEY returns a WebAuthn challenge',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: IdParams,
    body: ChallengeRequest,
    responses: {
      200: { description: 'EMAIL_OTP: the AuthMethod; PASSKEY: the passkey challenge', schema: PasskeyAuthChallenge.or(AuthMethod) },
      429: otpRateLimited(
        `EMAIL_OTP: re-issued too soon, the address has had ${OTP_ADDRESS_MAX_SENDS} codes this hour, or locked after too many wrong codes in a day`,
      ),
      ...errorResponses(400, 401, 403, 404),
      ...passkeysNotConfigured,
    },
    handler: async (c) => {
      const wallet = await walletByAuthId(c.db, c.env.ACCOUNT, c.auth.platform.id, c.params.id, credentialNotFound);
      const meta = metaOf(wallet, c.now);
      const credential = await wallet.stub.getCredential(meta, c.params.id);
      if (!credential) throw credentialNotFound();
      if (credential.type === 'EMAIL_OTP') return json(authMethodJson(await sendOtp(c, wallet, credential)));
      if (credential.type === 'OAUTH') {
        throw badRequest('OAUTH credentials have no challenge step: call verify with a fresh OIDC token');
      }
      // No challenge that no verify could accept.
      relyingParty(c.settings);
      const clientPublicKey = c.body?.clientPublicKey;
      if (!clientPublicKey)
        throw badRequest('clientPublicKey is required for PASSKEY', { fields: [{ field: 'clientPublicKey', message: 'Required' }] });
      const issued = await wallet.stub.passkeyChallenge(meta, { credentialId: credential.id, clientPublicKey });
      if (!issued.ok) throw failure(issued);
      return json({
        ...authMethodJson(issued.credential),
        credentialId: issued.credential.credentialId,
        challenge: issued.challenge,
        requestId: issued.requestId,
        expiresAt: new Date(issued.expiresAt).toISOString(),
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/credentials/:id/verify',
    operationId: 'verifyAuthCredential',
    summary: 'Verify a credential and issue a session (encryptedSessionSigningKey sealed to clientPublicKey)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: IdParams,
    body: CredentialVerify,
    headers: { 'Request-Id': { description: 'PASSKEY: the requestId of the challenge' } },
    responses: {
      200: { description: 'The new session, with its key', schema: AuthSession },
      429: otpRateLimited('EMAIL_OTP: locked after too many wrong codes in a day'),
      ...errorResponses(400, 401, 403, 404),
      ...passkeysNotConfigured,
    },
    // The wallet lookup and the new session's id reservation ride on the authentication round trip; the id
    // is given back if verify refuses.
    load: ({ db, params, platformId, now }) => reserveSession(db, platformId, params.id, now),
    handler: async (c) => {
      const { wallet, sessionId } = reservedSession(c.env.ACCOUNT, c.loaded, credentialNotFound);
      let outcome: Awaited<ReturnType<typeof issueSession>>;
      try {
        outcome = await issueSession(c, wallet, sessionId);
      } catch (error) {
        // A refusal before the account acted; any other failure leaves the row (the session may exist).
        if (error instanceof ApiError) await releaseSessionId(c.db, wallet.platformId, sessionId);
        throw error;
      }
      if (!outcome.ok) {
        await releaseSessionId(c.db, wallet.platformId, sessionId);
        throw failure(outcome);
      }
      return json(sessionJson(outcome.session));
    },
  }),
];

/**
 * Verify of credential `c.params.id` issuing session `sessionId`: one call to the account, which checks the
 * credential's existence and type itself. OAUTH first reads the credential, so a token of the wrong type is
 * refused before its issuer's keys are fetched.
 */
async function issueSession(c: Ctx<'basic', { id: string }, Record<string, never>, CredentialVerify>, wallet: Wallet, sessionId: string) {
  const meta = metaOf(wallet, c.now);
  const credentialId = c.params.id;
  const body = c.body;
  const ttlMs = c.settings.sessionTtlSeconds * 1000;
  const sandbox = c.settings.mode === 'sandbox';
  if (body.type === 'EMAIL_OTP') {
    return wallet.stub.verifyOtp(meta, { credentialId, otp: body.otp, clientPublicKey: body.clientPublicKey, sandbox, ttlMs, sessionId });
  }
  if (body.type === 'OAUTH') {
    const credential = await wallet.stub.getCredential(meta, credentialId);
    if (!credential) throw credentialNotFound();
    if (credential.type !== 'OAUTH') {
      throw badRequest(`This credential is ${credential.type}, not OAUTH`, {
        fields: [{ field: 'type', message: `Must be ${credential.type}` }],
      });
    }
    const { identity } = await checkOidc(c.settings, body.oidcToken, c.now, body.clientPublicKey);
    return wallet.stub.verifyOauth(meta, { credentialId, identity, clientPublicKey: body.clientPublicKey, ttlMs, sessionId });
  }
  const rp = relyingParty(c.settings);
  const requestId = c.request.headers.get('Request-Id');
  if (!requestId) throw new ApiError('REQUEST_ID_MISSING', 'Request-Id (from the challenge) is required to verify a PASSKEY');
  return wallet.stub.verifyPasskey(meta, { credentialId, requestId, assertion: body.assertion, sandbox, rp, ttlMs, sessionId });
}

/**
 * 201 with the AuthMethod; a new EMAIL_OTP credential gets its first code at once, unless its
 * address has had its e-mails this hour: the credential exists by now, so it stands and a challenge sends
 * the code later (a 429 here would report a change that was made).
 */
async function created(
  c: Parameters<typeof sendOtp>[0],
  wallet: Parameters<typeof sendOtp>[1],
  credential: Parameters<typeof authMethodJson>[0],
) {
  if (credential.type === 'EMAIL_OTP') {
    try {
      await sendOtp(c, wallet, credential);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'RATE_LIMITED')) throw error;
    }
  }
  return json(authMethodJson(credential), 201);
}
