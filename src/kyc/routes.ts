// The KYC routes: beneficial owners, verifications, hosted KYC links and the identity provider's outcomes.
import { homeOfReport } from '../http/home';
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
import { identityProvider } from './identity-provider';
import { PROVIDER_SIGNATURE_HEADER } from '../crypto/provider-signature';
import { providerNotConfiguredResponse, providerSignatureHeader, PROVIDERS_TAG } from '../providers/route-docs';
import { IdentityOutcome, IdentityOutcomeResult } from './identity-schema';
import { receiveIdentityOutcome } from './identity-outcomes';
import { kycLinkRoutes } from './link-routes';

const tag = 'KYC/KYB Verifications';
/** Production without the operator's identity provider refuses to verify (a new owner, a new last name, a verification). */
const identityProviderRequired = {
  503: {
    ...errorResponses(503)[503]!,
    description: 'Production without an identity provider (SERVICE_NOT_CONFIGURED): nothing was written',
  },
};

export const kycRoutes = [
  defineRoute({
    method: 'POST',
    path: '/beneficial-owners',
    operationId: 'createBeneficialOwner',
    summary:
      "Add a beneficial owner to a business customer (its KYC: the sandbox's by last-name suffix at once; production's identity provider later)",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: BeneficialOwnerCreate,
    responses: {
      201: { description: 'Created', schema: BeneficialOwner },
      ...errorResponses(400, 401, 403, 404, 410, 413),
      ...identityProviderRequired,
    },
    handler: async (c) =>
      json(await createBeneficialOwner(c.db, c.env.JOBS, c.auth.platform.id, c.body, identityProvider(c.settings), c.now), 201),
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
      ...identityProviderRequired,
    },
    handler: async (c) =>
      json(
        await updateBeneficialOwner(
          c.db,
          c.env.JOBS,
          c.auth.platform.id,
          c.params.beneficialOwnerId,
          c.body,
          () => identityProvider(c.settings),
          c.now,
        ),
      ),
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
      ...identityProviderRequired,
    },
    handler: async (c) =>
      json(await submitVerification(c.db, c.env.JOBS, c.auth.platform, c.body.customerId, identityProvider(c.settings), c.now)),
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
  defineRoute({
    method: 'POST',
    path: '/providers/identity/outcomes',
    operationId: 'reportIdentityOutcome',
    summary:
      "Production: the operator's identity provider reports a verification's, beneficial owner's or hosted KYC link's outcome, signed with IDENTITY_PROVIDER_SECRET; applied once",
    tag: PROVIDERS_TAG,
    auth: 'none',
    headers: providerSignatureHeader('IDENTITY_PROVIDER_SECRET', 'identity-outcome'),
    body: IdentityOutcome,
    // The report names its platform: the directory knows its home.
    home: ({ body }, env) => homeOfReport(env, body.platformId),
    responses: {
      200: { description: 'The outcome, applied now or already (`applied: false`)', schema: IdentityOutcomeResult },
      ...errorResponses(400, 401, 404, 409, 413, 415, 429),
      ...providerNotConfiguredResponse('IDENTITY_PROVIDER_SECRET'),
    },
    handler: async (c) =>
      json(
        await receiveIdentityOutcome(
          { db: c.db, queue: c.env.JOBS },
          c.settings,
          c.request.headers.get(PROVIDER_SIGNATURE_HEADER),
          c.rawBody,
          c.body,
          c.now,
        ),
      ),
  }),
  ...kycLinkRoutes,
];
