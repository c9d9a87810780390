// Bulk import CSV rows: the columns, header problems, and a record as a customer create request.
import type { FieldIssue } from '../http/errors';
import { zodIssues } from '../http/errors';
import { CsvCustomerCreate, type CustomerCreate } from './schema';

/** Columns of the reference CSV format. */
export const REQUIRED_COLUMNS = ['umaAddress', 'platformCustomerId', 'customerType'];
export const KNOWN_COLUMNS = new Set([
  ...REQUIRED_COLUMNS,
  'fullName',
  'birthDate',
  'email',
  'addressLine1',
  'addressLine2',
  'city',
  'state',
  'postalCode',
  'country',
  'businessLegalName',
  'businessRegistrationNumber',
  'businessTaxId',
  'platformAccountId',
  'description',
]);
export const REQUIRED_BY_TYPE: Record<string, string[]> = {
  INDIVIDUAL: ['fullName', 'birthDate', 'addressLine1', 'city', 'state', 'postalCode', 'country'],
  BUSINESS: ['businessLegalName', 'addressLine1', 'city', 'state', 'postalCode', 'country'],
};

/** API field paths back to the CSV column that fed them, so row errors name what the uploader wrote. */
const COLUMN_OF: Record<string, string> = {
  'address.line1': 'addressLine1',
  'address.line2': 'addressLine2',
  'address.city': 'city',
  'address.state': 'state',
  'address.postalCode': 'postalCode',
  'address.country': 'country',
  'businessInfo.legalName': 'businessLegalName',
  'businessInfo.registrationNumber': 'businessRegistrationNumber',
  'businessInfo.taxId': 'businessTaxId',
};

/** Problems that make the whole file unusable: missing, unknown or repeated header columns. */
export function headerProblem(columns: string[]): string | null {
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) return `Column ${c} appears twice in the header`;
    seen.add(c);
  }
  const missing = REQUIRED_COLUMNS.filter((c) => !seen.has(c));
  if (missing.length) return `The header lacks the required column(s) ${missing.join(', ')}`;
  const unknown = columns.filter((c) => !KNOWN_COLUMNS.has(c));
  if (unknown.length) return `Unknown column(s) ${unknown.join(', ')}`;
  return null;
}

type RowResult = { ok: true; input: CustomerCreate } | { ok: false; issues: FieldIssue[] };

/** One CSV record as a create request, validated by the same schema as POST /customers (CSV business rules). */
export function rowToCustomer(columns: string[], record: string[]): RowResult {
  if (record.length !== columns.length) {
    return { ok: false, issues: [{ field: '(row)', message: `The row has ${record.length} fields; the header has ${columns.length}` }] };
  }
  const v: Record<string, string | undefined> = {};
  columns.forEach((c, i) => {
    const value = record[i]!.trim();
    v[c] = value === '' ? undefined : value;
  });
  const required = ['umaAddress', 'platformCustomerId', ...(REQUIRED_BY_TYPE[v.customerType ?? ''] ?? [])];
  const missing: FieldIssue[] = required.filter((c) => v[c] === undefined).map((c) => ({ field: c, message: 'Required' }));
  const hasAddress = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'].some((c) => v[c] !== undefined);
  const address = hasAddress
    ? { line1: v.addressLine1, line2: v.addressLine2, city: v.city, state: v.state, postalCode: v.postalCode, country: v.country }
    : undefined;
  const common = { customerType: v.customerType, platformCustomerId: v.platformCustomerId, umaAddress: v.umaAddress, address };
  const candidate =
    v.customerType === 'BUSINESS'
      ? {
          ...common,
          businessInfo: { legalName: v.businessLegalName, registrationNumber: v.businessRegistrationNumber, taxId: v.businessTaxId },
        }
      : { ...common, email: v.email, fullName: v.fullName, birthDate: v.birthDate };
  const parsed = CsvCustomerCreate.safeParse(JSON.parse(JSON.stringify(candidate)));
  const issues = parsed.success
    ? missing
    : [...missing, ...zodIssues(parsed.error).map((i) => ({ ...i, field: COLUMN_OF[i.field] ?? i.field }))].filter(
        (issue, i, all) => all.findIndex((o) => o.field === issue.field) === i,
      );
  if (!parsed.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, input: parsed.data };
}
