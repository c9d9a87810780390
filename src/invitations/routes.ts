// The invitation routes: create and list (the platform's own), read, claim and cancel by code.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import {
  InvitationCodeParams,
  UmaInvitation,
  UmaInvitationClaimRequest,
  UmaInvitationCreateRequest,
  UmaInvitationList,
  UmaInvitationListQuery,
} from './schema';
import {
  cancelInvitation,
  claimInvitation,
  claimLoads,
  createInvitation,
  invitationFrom,
  invitationHome,
  invitationListFrom,
  invitationListLoads,
  invitationLoads,
  inviterLoads,
} from './service';

const tag = 'Invitations';

export const invitationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/invitations',
    operationId: 'createInvitation',
    summary: "Create an UMA invitation from one of the platform's customers",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: UmaInvitationCreateRequest,
    responses: { 201: { description: 'The invitation', schema: UmaInvitation }, ...errorResponses(400, 401, 403, 413) },
    load: ({ db, platformId, body }) => inviterLoads(db, platformId, body.inviterUma),
    handler: async (c) => json(await createInvitation(c.db, c.home, c.auth.platform, c.body, c.loaded, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/invitations',
    operationId: 'listInvitations',
    summary: "List the platform's own invitations, newest first",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: UmaInvitationListQuery,
    responses: { 200: { description: 'A page of invitations', schema: UmaInvitationList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => invitationListLoads(db, platformId, query),
    handler: (c) => json(invitationListFrom(c.query, c.loaded, c.auth.platform, c.now)),
  }),
  defineRoute({
    method: 'GET',
    path: '/invitations/:invitationCode',
    operationId: 'getInvitation',
    summary: 'Get an UMA invitation by its code (any platform may: the invitee is often on another)',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: InvitationCodeParams,
    responses: { 200: { description: 'The invitation', schema: UmaInvitation }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => invitationLoads(db, platformId, params.invitationCode),
    handler: async (c) =>
      json(invitationFrom((await invitationHome(c, c.params.invitationCode)).loaded, c.now - c.auth.platform.clockOffsetMs)),
  }),
  defineRoute({
    method: 'POST',
    path: '/invitations/:invitationCode/claim',
    operationId: 'claimInvitation',
    summary: "Claim a pending invitation for one of the calling platform's customers; the inviting platform gets INVITATION.CLAIMED",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: InvitationCodeParams,
    body: UmaInvitationClaimRequest,
    responses: {
      200: { description: 'The claimed invitation', schema: UmaInvitation },
      ...errorResponses(400, 401, 403, 404, 409, 413),
    },
    load: ({ db, platformId, params, body }) => claimLoads(db, platformId, params.invitationCode, body.inviteeUma),
    handler: async (c) => {
      const at = await invitationHome(c, c.params.invitationCode);
      const loaded = { ...c.loaded, ...at.loaded };
      return json(
        await claimInvitation(at.db, at.queue, c.auth.platform.id, c.body.inviteeUma, loaded, c.now - c.auth.platform.clockOffsetMs),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/invitations/:invitationCode/cancel',
    operationId: 'cancelInvitation',
    summary: 'Cancel a pending invitation (only the platform that created it)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: InvitationCodeParams,
    responses: {
      200: { description: 'The cancelled invitation', schema: UmaInvitation },
      ...errorResponses(400, 401, 403, 404, 409),
    },
    load: ({ db, platformId, params }) => invitationLoads(db, platformId, params.invitationCode),
    handler: async (c) => {
      const at = await invitationHome(c, c.params.invitationCode);
      return json(await cancelInvitation(at.db, c.auth.platform.id, at.loaded, c.now - c.auth.platform.clockOffsetMs));
    },
  }),
];
