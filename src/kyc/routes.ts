// The KYC routes: beneficial owners, verifications and hosted KYC links.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import {
  BeneficialOwnerIdParams,
  BeneficialOwnerList,
  BeneficialOwnerListQuery,
  Verification,
  VerificationIdParams,
  VerificationList,
  VerificationListQuery,
  VerificationRequest,
} from './schema';
import { BeneficialOwner, BeneficialOwnerCreate, BeneficialOwnerUpdate } from '../customers/beneficial-owners';
import { createBeneficialOwner, ownerFrom, ownerListFrom, ownerListLoads, ownerLoads, updateBeneficialOwner } from './owners-service';
import { submitVerification, verificationFrom, verificationList, verificationLoads } from './verifications-service';
import { kycLinkRoutes } from './link-routes';

const tag = 'KYC/KYB Verifications';

export const kycRoutes = [
  defineRoute({
    method: 'POST',
    path: '/beneficial-owners',
    operationId: 'createBeneficialOwner',
    summary: 'Add a beneficial owner to a business customer (KYC runs at once; sandbox: by last-name suffix)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: BeneficialOwnerCreate,
    responses: { 201: { description: 'Created', schema: BeneficialOwner }, ...errorResponses(400, 401, 403, 404, 410, 413) },
    handler: async (c) => json(await createBeneficialOwner(c.db, c.auth.platform.id, c.body, c.settings.mode, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/beneficial-owners',
    operationId: 'listBeneficialOwners',
    summary: 'List the beneficial owners of a business customer',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: BeneficialOwnerListQuery,
    responses: { 200: { description: 'A page of beneficial owners', schema: BeneficialOwnerList }, ...errorResponses(400, 401, 403, 404) },
    load: ({ db, platformId, query }) => ownerListLoads(db, platformId, query),
    handler: (c) => json(ownerListFrom(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/beneficial-owners/:beneficialOwnerId',
    operationId: 'getBeneficialOwner',
    summary: 'Get a beneficial owner',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: BeneficialOwnerIdParams,
    responses: { 200: { description: 'The beneficial owner', schema: BeneficialOwner }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => ownerLoads(db, platformId, params.beneficialOwnerId),
    handler: (c) => json(ownerFrom(c.loaded)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/beneficial-owners/:beneficialOwnerId',
    operationId: 'updateBeneficialOwner',
    summary: 'Update a beneficial owner (only the fields given; a new last name re-runs KYC)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: BeneficialOwnerIdParams,
    body: BeneficialOwnerUpdate,
    responses: {
      200: { description: 'The updated beneficial owner', schema: BeneficialOwner },
      ...errorResponses(400, 401, 403, 404, 409, 413),
    },
    handler: async (c) =>
      json(await updateBeneficialOwner(c.db, c.auth.platform.id, c.params.beneficialOwnerId, c.body, c.settings.mode, c.now)),
  }),
  defineRoute({
    method: 'POST',
    path: '/verifications',
    operationId: 'createVerification',
    summary: 'Submit a customer for KYC/KYB (sandbox KYB outcome by registrationNumber suffix)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: VerificationRequest,
    responses: {
      200: { description: 'The verification and its status', schema: Verification },
      ...errorResponses(400, 401, 403, 404, 410, 413),
    },
    handler: async (c) => json(await submitVerification(c.db, c.env.JOBS, c.auth.platform, c.body.customerId, c.settings.mode, c.now)),
  }),
  defineRoute({
    method: 'GET',
    path: '/verifications',
    operationId: 'listVerifications',
    summary: 'List verifications',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: VerificationListQuery,
    responses: { 200: { description: 'A page of verifications', schema: VerificationList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => verificationList.loads(db, platformId, query),
    handler: (c) => json(verificationList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/verifications/:verificationId',
    operationId: 'getVerification',
    summary: 'Get a verification',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: VerificationIdParams,
    responses: { 200: { description: 'The verification', schema: Verification }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => verificationLoads(db, platformId, params.verificationId),
    handler: (c) => json(verificationFrom(c.loaded)),
  }),
  ...kycLinkRoutes,
];
