// Reading D1's errors: drizzle wraps them, and constraint names are only in the message.

/** The message of an error and its causes (drizzle wraps D1's error). */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  let e: unknown = error;
  for (let i = 0; e && i < 5; i++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
  }
  return parts.join(' | ');
}

/** True when `error` is a UNIQUE violation of `table` (optionally naming `column`). */
export function isUniqueViolation(text: string, table: string, column?: string): boolean {
  const m = text.match(/UNIQUE constraint failed: ([^|]*)/i);
  if (!m) return false;
  const cols = m[1]!;
  return cols.includes(`${table}.`) && (column === undefined || cols.includes(`${table}.${column}`));
}

/** True when a batch failed on a `guard` statement (db/client.ts). */
export const isGuardFailure = (text: string): boolean => /malformed JSON/i.test(text);

/** True when a batch failed on the `namedGuard` called `name` (SQLite words it "bad JSON path: '<name>'" or, before 3.45, "JSON path error near '<name>'"). */
export const isNamedGuardFailure = (text: string, name: string): boolean => /JSON path/i.test(text) && text.includes(`'${name}'`);

/** True when a batch failed on the CHECK constraint called `name` (SQLite names a named constraint in its message). */
export const isCheckFailure = (text: string, name: string): boolean => new RegExp(`CHECK constraint failed: ${name}\\b`).test(text);

/**
 * True when a batch failed on the internal accounts' balance CHECK: a debit would overdraw (nothing changed).
 * Only that constraint: another CHECK failing (a transition applied twice, a negative fee) is no shortfall.
 */
export const isBalanceCheckFailure = (text: string): boolean => isCheckFailure(text, 'internal_accounts_balance_non_negative');
