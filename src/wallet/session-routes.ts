// The wallet session routes: list, refresh and revoke.
import { notFound } from '../http/errors';
import { defineRoute, json, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
import {
  AccountIdQuery,
  AuthSession,
  AuthSignedRequestChallenge,
  ClientKeyRequest,
  IdParams,
  SessionList,
  SIGNATURE_HEADERS,
  SignedRequestChallenge,
} from './schema';
import { metaOf, sessionJson, walletByAuthId, walletFrom, walletLoads } from './service';
import { signedRetry } from './signed-retry';

const tag = 'Embedded Wallet Auth';
// Unknown, revoked and expired sessions all answer 404 (the reference: the code reflects the resource state).
const sessionNotFound = () => notFound('SESSION_NOT_FOUND', 'Session not found or no longer active');
const challenge202 = { 202: { description: 'Signed-retry challenge: sign payloadToSign and retry', schema: SignedRequestChallenge } };
const revokeChallenge202 = {
  202: {
    description: 'Signed-retry challenge, with the type of the credential that issued the session: sign payloadToSign and retry',
    schema: AuthSignedRequestChallenge,
  },
};

export const sessionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/auth/sessions',
    operationId: 'listAuthSessions',
    summary: "List an embedded wallet's active sessions (never with keys; not paginated)",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: AccountIdQuery,
    responses: { 200: { description: 'Active sessions', schema: SessionList }, ...errorResponses(400, 401, 403, 404) },
    // The wallet rides on authentication; then one call to its account.
    load: ({ db, platformId, query }) => walletLoads(db, platformId, query.accountId),
    handler: async (c) => {
      const wallet = walletFrom(c.env.ACCOUNT, c.loaded);
      const sessions = await wallet.stub.listSessions(metaOf(wallet, c.now));
      return json({ data: sessions.map(sessionJson) });
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/auth/sessions/:id',
    revokes: true,
    operationId: 'revokeAuthSession',
    summary: 'Revoke a session before it expires (signed retry by any active session of the account)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: IdParams,
    headers: SIGNATURE_HEADERS,
    responses: { 204: { description: 'Revoked' }, ...revokeChallenge202, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      const wallet = await walletByAuthId(c.db, c.env.ACCOUNT, c.auth.platform.id, c.params.id, sessionNotFound);
      const result = await signedRetry(c, wallet, 'REVOKE_SESSION', async () => {
        const session = await requireActive(wallet, c.params.id, c.now);
        return {
          activity: 'ACTIVITY_TYPE_REVOKE_SESSION',
          parameters: { sessionId: c.params.id },
          effect: { kind: 'revokeSession', sessionId: c.params.id },
          type: session.type,
        };
      });
      return result.status === 'challenge' ? json(result.body, 202) : noContent();
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/auth/sessions/:id/refresh',
    operationId: 'refreshAuthSession',
    summary: 'Refresh an active session: a new session and key sealed to clientPublicKey (signed by that session)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: IdParams,
    body: ClientKeyRequest,
    headers: SIGNATURE_HEADERS,
    responses: {
      200: { description: 'The new session, with its key', schema: AuthSession },
      ...challenge202,
      ...errorResponses(400, 401, 403, 404),
    },
    handler: async (c) => {
      const wallet = await walletByAuthId(c.db, c.env.ACCOUNT, c.auth.platform.id, c.params.id, sessionNotFound);
      const { clientPublicKey } = c.body;
      const result = await signedRetry(c, wallet, 'REFRESH_SESSION', async () => {
        await requireActive(wallet, c.params.id, c.now);
        return {
          activity: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
          // Bound into payloadToSign: the signature commits to the key the new session is sealed to.
          parameters: { sessionId: c.params.id, targetPublicKey: clientPublicKey },
          effect: { kind: 'refreshSession', sessionId: c.params.id, clientPublicKey, ttlMs: c.settings.sessionTtlSeconds * 1000 },
        };
      });
      if (result.status === 'challenge') return json(result.body, 202);
      if (result.result.kind !== 'session') throw new Error('unexpected signed-retry result');
      return json(sessionJson(result.result.session));
    },
  }),
];

async function requireActive(wallet: Awaited<ReturnType<typeof walletByAuthId>>, sessionId: string, now: number) {
  const sessions = await wallet.stub.listSessions(metaOf(wallet, now));
  const session = sessions.find((s) => s.id === sessionId);
  if (!session) throw sessionNotFound();
  return session;
}
