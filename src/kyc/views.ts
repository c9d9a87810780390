// A verification as the API shows it.
import type { VerificationRow } from '../db/schema';
import { iso } from '../common/time';
import type { VerificationErrorView, VerificationView } from './schema';

export function verificationView(row: VerificationRow): VerificationView {
  return {
    id: row.id,
    customerId: row.customerId,
    verificationStatus: row.verificationStatus,
    errors: row.errors as VerificationErrorView[],
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}
