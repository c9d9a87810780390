// /sandbox/faults: create, list, read and delete the platform's fault rules (sandbox only).
import * as z from 'zod';
import { defineRoute, json, noContent, type RouteDef } from '../http/route';
import { errorResponses } from '../http/responses';
import { FaultCreate, SandboxFault, SandboxFaultDetail, SandboxFaultList } from './faults-schema';
import { createFault, deleteFault, deleteFaults, faultDetail, faultListLoads, faultLoads, faultView } from './faults-service';

const tag = 'Sandbox';
const params = z.object({ faultId: z.string().min(1).max(100) });

/** The routes; `routes` is the API's route table, which a rule's operation is checked against. */
export const faultRoutes = (routes: () => readonly RouteDef[]) => [
  defineRoute({
    method: 'POST',
    path: '/sandbox/faults',
    operationId: 'createSandboxFault',
    summary: "Sandbox: a fault rule for this platform's requests to one operation (error, latency, failure after commit, disconnect)",
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    body: FaultCreate,
    responses: { 201: { description: 'The rule', schema: SandboxFault }, ...errorResponses(400, 401, 403, 404, 413, 415) },
    handler: async (c) => json(await createFault(c.db, c.auth.platform.id, c.body, routes(), c.auth.permissions, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/sandbox/faults',
    operationId: 'listSandboxFaults',
    summary: "Sandbox: this platform's fault rules, oldest first",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    responses: { 200: { description: 'The rules', schema: SandboxFaultList }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId }) => faultListLoads(db, platformId),
    handler: (c) => json({ data: c.loaded.faults.map(faultView) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/sandbox/faults/:faultId',
    operationId: 'getSandboxFault',
    summary: 'Sandbox: a fault rule with its recent firings',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params,
    responses: { 200: { description: 'The rule', schema: SandboxFaultDetail }, ...errorResponses(400, 401, 403, 404) },
    load: ({ db, platformId, params }) => faultLoads(db, platformId, params.faultId),
    handler: (c) => json(faultDetail(c.loaded)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/sandbox/faults/:faultId',
    revokes: true,
    operationId: 'deleteSandboxFault',
    summary: 'Sandbox: delete a fault rule',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    params,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404) },
    handler: async (c) => {
      await deleteFault(c.db, c.auth.platform.id, c.params.faultId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/sandbox/faults',
    revokes: true,
    operationId: 'deleteSandboxFaults',
    summary: "Sandbox: delete all of this platform's fault rules",
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await deleteFaults(c.db, c.auth.platform.id);
      return noContent();
    },
  }),
];
