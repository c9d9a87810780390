// The API token routes: create, list, read and delete.
import { defineRoute, json, noContent } from '../http/route';
import { errorSchema } from '../http/errors';
import { errorResponses } from '../http/responses';
import { ApiToken, ApiTokenCreate, TokenIdParams, TokenList, TokenListQuery } from './schema';
import { createToken, deleteToken, tokenFrom, tokenList, tokenLoads } from './tokens-service';

const tag = 'API Tokens';

export const tokenRoutes = [
  defineRoute({
    method: 'POST',
    path: '/tokens',
    operationId: 'createToken',
    summary: "Create an API token holding at most the calling token's permissions (the secret is shown only in this response)",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: ApiTokenCreate,
    responses: {
      201: { description: 'Created, with clientSecret', schema: ApiToken },
      ...errorResponses(400, 401, 413),
      403: {
        description: 'The token lacks MANAGE, or asks for permissions it does not hold (details.missingPermissions)',
        schema: errorSchema(403),
      },
    },
    handler: async (c) => json(await createToken(c.db, c.home, c.auth.platform.id, c.auth.permissions, c.body, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/tokens',
    operationId: 'listTokens',
    summary: 'List API tokens',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: TokenListQuery,
    responses: { 200: { description: 'A page of tokens', schema: TokenList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => tokenList.loads(db, platformId, query),
    handler: (c) => json(tokenList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/tokens/:tokenId',
    operationId: 'getTokenById',
    summary: 'Get an API token',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: TokenIdParams,
    responses: { 200: { description: 'The token', schema: ApiToken }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => tokenLoads(db, platformId, params.tokenId),
    handler: (c) => json(tokenFrom(c.loaded)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/tokens/:tokenId',
    revokes: true,
    operationId: 'deleteTokenById',
    summary: 'Delete an API token; it stops authenticating at once',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: TokenIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await deleteToken(c.db, c.auth.platform.id, c.params.tokenId);
      return noContent();
    },
  }),
];
