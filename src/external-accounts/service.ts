// External accounts: create (with the beneficiary check), view, load, list and delete.
import { and, eq, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { loadTogether, type Db, type Loaded } from '../db/client';
import type { ServiceMode } from '../env';
import { externalAccounts, type ExternalAccountRow, type PlatformRow } from '../db/schema';
import { isUniqueViolation } from '../db/errors';
import { currencyInfo } from '../common/currencies';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { conflict, invalidFields, notFound } from '../http/errors';
import { keysetList } from '../http/pagination';
import { errorText } from '../db/errors';
import { loadActiveCustomer } from '../customers/service';
import { verifyBeneficiary } from './beneficiary';
import { corridorOf, holdsCurrency, identifierOf, shownInfo } from './corridors';
import type { ExternalAccountCreate, ExternalAccountListQuery, ExternalAccountView } from './schema';

export function externalAccountView(row: ExternalAccountRow): ExternalAccountView {
  return {
    id: row.id,
    ...(row.customerId ? { customerId: row.customerId } : {}),
    status: row.status,
    ...(row.platformAccountId ? { platformAccountId: row.platformAccountId } : {}),
    currency: row.currency,
    defaultUmaDepositAccount: row.defaultUmaDepositAccount,
    ...(row.beneficiaryVerificationStatus ? { beneficiaryVerificationStatus: row.beneficiaryVerificationStatus } : {}),
    ...(row.beneficiaryVerifiedData ? { beneficiaryVerifiedData: row.beneficiaryVerifiedData } : {}),
    accountInfo: shownInfo(row) as ExternalAccountView['accountInfo'],
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export const externalAccountNotFound = () => notFound('EXTERNAL_ACCOUNT_NOT_FOUND', 'External account not found');

/**
 * Creates an external account of a customer or (no customerId) of the platform. The beneficiary check runs
 * first: in the sandbox, identifier suffix 105 refuses the account (400) and the others set
 * `beneficiaryVerificationStatus`.
 */
export async function createExternalAccount(db: Db, platform: PlatformRow, input: ExternalAccountCreate, mode: ServiceMode, now: number) {
  if (input.customerId !== undefined) await loadActiveCustomer(db, platform.id, input.customerId);
  const type = input.accountInfo.accountType;
  if (!holdsCurrency(type, input.currency, (code) => currencyInfo(code).kind === 'FIAT')) {
    throw invalidFields('request body', [
      { field: 'currency', message: `${type} accounts hold ${corridorOf(type)!.currency ?? 'a fiat currency'}` },
    ]);
  }
  const check = verifyBeneficiary(input.accountInfo, mode);
  const isDefault = input.customerId !== undefined && input.defaultUmaDepositAccount;
  const row: ExternalAccountRow = {
    id: newId('ExternalAccount', now),
    platformId: platform.id,
    customerId: input.customerId ?? null,
    holderId: input.customerId ?? platform.id,
    status: 'ACTIVE',
    currency: input.currency,
    accountType: input.accountInfo.accountType,
    identifier: identifierOf(input.accountInfo),
    accountInfo: input.accountInfo,
    platformAccountId: input.platformAccountId ?? null,
    defaultUmaDepositAccount: isDefault,
    beneficiaryVerificationStatus: check.status,
    beneficiaryVerifiedData: check.verifiedName ? { fullName: check.verifiedName } : null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const insert = db.insert(externalAccounts).values(row);
  try {
    if (isDefault) {
      // At most one default UMA deposit account per customer: the new one replaces the old.
      const unsetOthers = db
        .update(externalAccounts)
        .set({ defaultUmaDepositAccount: false, updatedAt: now })
        .where(and(eq(externalAccounts.customerId, input.customerId!), eq(externalAccounts.defaultUmaDepositAccount, true)));
      await db.batch([unsetOthers, insert]);
    } else {
      await insert;
    }
  } catch (error) {
    if (isUniqueViolation(errorText(error), 'external_accounts')) throw conflict('This external account already exists for this holder');
    throw error;
  }
  return externalAccountView(row);
}

/** A live external account of this platform (404 when deleted, unknown or another platform's). */
export async function loadExternalAccount(
  db: Db,
  platformId: string,
  id: string,
  scope: 'any' | 'platform' = 'any',
): Promise<ExternalAccountRow> {
  const [row] = await liveExternalAccount(db, sql`${platformId}`, id, scope).limit(1);
  if (!row) throw externalAccountNotFound();
  return row;
}

/** The query of `loadExternalAccount`, as a load (`platformId` SQL: see `RouteSpec.load`). */
export function liveExternalAccount(db: Db, platformId: SQL, id: string, scope: 'any' | 'platform' = 'any') {
  const where = [eq(externalAccounts.id, id), eq(externalAccounts.platformId, platformId), isNull(externalAccounts.deletedAt)];
  if (scope === 'platform') where.push(isNull(externalAccounts.customerId));
  return db
    .select()
    .from(externalAccounts)
    .where(and(...where));
}

/**
 * A list of external accounts (the customers' or the platform's own), by id, with the filters. The total from
 * a maintained count: unfiltered, or of one customer; none under a currency filter.
 */
const externalAccountList = (scope: 'customers' | 'platform') =>
  keysetList((platformId: SQL, q: Partial<ExternalAccountListQuery> & { limit: number }) => {
    const where: SQL[] = [eq(externalAccounts.platformId, platformId), isNull(externalAccounts.deletedAt)];
    where.push(scope === 'platform' ? isNull(externalAccounts.customerId) : isNotNull(externalAccounts.customerId));
    if (q.customerId) where.push(eq(externalAccounts.customerId, q.customerId));
    if (q.currency) where.push(eq(externalAccounts.currency, q.currency));
    return {
      table: externalAccounts,
      idColumn: externalAccounts.id,
      where: and(...where),
      limit: q.limit,
      cursor: q.cursor,
      counted: q.currency
        ? undefined
        : { platformId, list: scope === 'platform' ? 'platform_external_accounts' : customerList(q.customerId) },
    };
  }, externalAccountView);

/** The maintained count of the customers' live external accounts, or of one customer's. */
const customerList = (customerId?: string) => (customerId ? `customer_external_accounts:${customerId}` : 'customer_external_accounts');

export const customerExternalAccountList = externalAccountList('customers');
export const platformExternalAccountList = externalAccountList('platform');

/** The customers' external accounts of a platform known by id (an agent's customer's). */
export async function listCustomerExternalAccounts(db: Db, platformId: string, q: Partial<ExternalAccountListQuery> & { limit: number }) {
  return customerExternalAccountList.from(q, await loadTogether(db, customerExternalAccountList.loads(db, sql`${platformId}`, q)));
}

/** An external account as a load (`platformId` SQL: see `RouteSpec.load`); `externalAccountFrom` reads it. */
export function externalAccountLoads(db: Db, platformId: SQL, id: string, scope: 'any' | 'platform' = 'any') {
  return { account: liveExternalAccount(db, platformId, id, scope).limit(1) };
}

export function externalAccountFrom(loaded: Loaded<ReturnType<typeof externalAccountLoads>>) {
  const row = loaded.account[0];
  if (!row) throw externalAccountNotFound();
  return externalAccountView(row);
}

/** Soft delete: the account disappears from the API while transfers that used it keep their reference. */
export async function deleteExternalAccount(db: Db, platformId: string, id: string, scope: 'any' | 'platform', now: number): Promise<void> {
  const where = [eq(externalAccounts.id, id), eq(externalAccounts.platformId, platformId), isNull(externalAccounts.deletedAt)];
  if (scope === 'platform') where.push(isNull(externalAccounts.customerId));
  const deleted = await db
    .update(externalAccounts)
    .set({ deletedAt: now, defaultUmaDepositAccount: false, updatedAt: now })
    .where(and(...where))
    .returning({ id: externalAccounts.id });
  if (deleted.length === 0) throw externalAccountNotFound();
}
