// /sandbox/snapshots: take, list, read, restore and delete snapshots of the platform's sandbox data (sandbox only).
import * as z from 'zod';
import { defineRoute, json, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
import { cursorParam, limitParam } from '../http/pagination';
import { SandboxSnapshot, SandboxSnapshotList, SnapshotCreate, SnapshotParams } from './snapshots-schema';
import {
  deleteSnapshot,
  loadedSnapshot,
  restoreSnapshot,
  snapshotList,
  snapshotLoads,
  snapshotView,
  takeSnapshot,
} from './snapshots-service';

const tag = 'Sandbox';

export const snapshotRoutes = [
  defineRoute({
    method: 'POST',
    path: '/sandbox/snapshots',
    operationId: 'createSandboxSnapshot',
    summary: "Sandbox: capture the platform's sandbox data (customers, accounts, payments, wallets, documents, clock…) as a snapshot",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: SnapshotCreate,
    idempotent: { scope: 'platform' },
    responses: { 201: { description: 'The snapshot', schema: SandboxSnapshot }, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422) },
    handler: async (c) => json(snapshotView(await takeSnapshot(c, c.auth.platform.id, c.body.name)), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/sandbox/snapshots',
    operationId: 'listSandboxSnapshots',
    summary: "Sandbox: the platform's snapshots, newest first",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: z.object({ limit: limitParam, cursor: cursorParam }),
    responses: { 200: { description: 'A page of snapshots', schema: SandboxSnapshotList }, ...errorResponses(400, 401, 403, 404) },
    load: ({ db, platformId, query }) => snapshotList.loads(db, platformId, query),
    handler: (c) => json(snapshotList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/sandbox/snapshots/:snapshotId',
    operationId: 'getSandboxSnapshot',
    summary: 'Sandbox: a snapshot',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: SnapshotParams,
    responses: { 200: { description: 'The snapshot', schema: SandboxSnapshot }, ...errorResponses(400, 401, 403, 404) },
    load: ({ db, platformId, params }) => snapshotLoads(db, platformId, params.snapshotId),
    handler: (c) => json(loadedSnapshot(c.loaded)),
  }),
  defineRoute({
    method: 'POST',
    path: '/sandbox/snapshots/:snapshotId/restore',
    operationId: 'restoreSandboxSnapshot',
    summary:
      "Sandbox: return the platform's sandbox data to the snapshot, atomically (API tokens, configuration and the webhook endpoint stay)",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: SnapshotParams,
    responses: { 200: { description: 'The restored snapshot', schema: SandboxSnapshot }, ...errorResponses(400, 401, 403, 404) },
    handler: async (c) => json(snapshotView(await restoreSnapshot(c, c.auth.platform.id, c.params.snapshotId))),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/sandbox/snapshots/:snapshotId',
    operationId: 'deleteSandboxSnapshot',
    summary: 'Sandbox: delete a snapshot',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: SnapshotParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404) },
    handler: async (c) => {
      await deleteSnapshot(c, c.auth.platform.id, c.params.snapshotId);
      return noContent();
    },
  }),
];
