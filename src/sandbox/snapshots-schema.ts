// Request and response schemas of the sandbox snapshots (/sandbox/snapshots).
import * as z from 'zod';
import { DateTime } from '../common/time';
import { pageOf } from '../http/pagination';

export const SnapshotCreate = z
  .object({
    name: z.string().trim().min(1).max(100).meta({ description: 'A name to recognise the snapshot by', example: 'after-setup' }),
  })
  .meta({ id: 'SandboxSnapshotCreateRequest' });
export type SnapshotCreate = z.infer<typeof SnapshotCreate>;

export const SandboxSnapshot = z
  .object({
    id: z.string().meta({ example: 'SandboxSnapshot:019a4e5c-7d1f-7c3e-9a51-3f0e8b2c6d41' }),
    name: z.string(),
    createdAt: DateTime,
    counts: z.record(z.string(), z.int().min(0)).meta({
      description:
        'Rows captured per kind (customers, transactions, ledgerMovements, walletCredentials, walletSessions, documentFiles…); kinds without rows may be absent',
    }),
  })
  .meta({ id: 'SandboxSnapshot' });

export const SandboxSnapshotList = pageOf(SandboxSnapshot, 'SandboxSnapshotListResponse');

export const SnapshotParams = z.object({ snapshotId: z.string().min(1).max(100) });
