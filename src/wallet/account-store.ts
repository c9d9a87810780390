// The AccountDO's storage: its tables, row types and every statement it runs, one method per statement.
import type { CredentialType } from './account-protocol';

/** The AccountDO's SQLite tables (created idempotently when the object starts). */
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS meta (account_id TEXT PRIMARY KEY, platform_id TEXT NOT NULL, wallet_secret TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS credentials (
    id TEXT PRIMARY KEY, type TEXT NOT NULL, nickname TEXT NOT NULL,
    webauthn_id TEXT UNIQUE, passkey_public_key TEXT, counter INTEGER NOT NULL DEFAULT 0, transports TEXT,
    oidc_iss TEXT, oidc_aud TEXT, oidc_sub TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, credential_id TEXT NOT NULL, type TEXT NOT NULL, nickname TEXT NOT NULL, webauthn_id TEXT,
    public_key TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, revoked_at INTEGER)`,
  `CREATE INDEX IF NOT EXISTS sessions_public_key ON sessions (public_key)`,
  `CREATE TABLE IF NOT EXISTS pending (
    id TEXT PRIMARY KEY, operation TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL, body_hash TEXT NOT NULL,
    payload TEXT NOT NULL, effect TEXT NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER)`,
  `CREATE TABLE IF NOT EXISTS otp (
    credential_id TEXT PRIMARY KEY, code_hash TEXT NOT NULL, salt TEXT NOT NULL, expires_at INTEGER NOT NULL, attempts INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS otp_sends (credential_id TEXT NOT NULL, sent_at INTEGER NOT NULL)`,
  // Wrong codes of the last day, for the daily cap; an object made before the cap gains the table when it starts.
  `CREATE TABLE IF NOT EXISTS otp_failures (credential_id TEXT NOT NULL, failed_at INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS otp_failures_credential ON otp_failures (credential_id, failed_at)`,
  `CREATE TABLE IF NOT EXISTS passkey_challenges (
    request_id TEXT PRIMARY KEY, credential_id TEXT NOT NULL, challenge TEXT NOT NULL, client_public_key TEXT NOT NULL,
    expires_at INTEGER NOT NULL, used_at INTEGER)`,
];

export interface CredentialRow extends Record<string, SqlStorageValue> {
  id: string;
  type: CredentialType;
  nickname: string;
  webauthn_id: string | null;
  /** COSE public key, hex. */
  passkey_public_key: string | null;
  counter: number;
  transports: string | null;
  oidc_iss: string | null;
  oidc_aud: string | null;
  oidc_sub: string | null;
  created_at: number;
  updated_at: number;
}

export interface SessionRow extends Record<string, SqlStorageValue> {
  id: string;
  credential_id: string;
  type: CredentialType;
  nickname: string;
  webauthn_id: string | null;
  /** Compressed P-256 public key, lower-case hex: the key a stamp names. */
  public_key: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface PendingRow extends Record<string, SqlStorageValue> {
  id: string;
  operation: string;
  method: string;
  path: string;
  body_hash: string;
  payload: string;
  /** JSON of the Effect the retry applies. */
  effect: string;
  expires_at: number;
  used_at: number | null;
}

export interface OtpCodeRow extends Record<string, SqlStorageValue> {
  code_hash: string;
  salt: string;
  expires_at: number;
  attempts: number;
}

/** A whole AccountDO's stored state, every table's rows (a sandbox snapshot's copy of the wallet). */
export type StoreState = Record<string, Record<string, SqlStorageValue>[]>;

interface MetaRow extends Record<string, SqlStorageValue> {
  account_id: string;
  wallet_secret: string;
}

/**
 * Every statement the AccountDO runs on its own SQLite storage, synchronous, so that a caller can run
 * several inside one `transactionSync`. No rules here: which statements run, and when, is decided by the
 * rule modules and the object's RPC methods.
 */
export class AccountStore {
  constructor(private readonly sql: SqlStorage) {
    for (const statement of SCHEMA) sql.exec(statement);
  }

  private first<T extends Record<string, SqlStorageValue>>(query: string, ...args: SqlStorageValue[]): T | undefined {
    return this.sql.exec<T>(query, ...args).toArray()[0];
  }

  // --- meta ---

  meta(): MetaRow | undefined {
    return this.first<MetaRow>('SELECT account_id, wallet_secret FROM meta');
  }

  insertMeta(accountId: string, platformId: string, walletSecret: string): void {
    this.sql.exec('INSERT INTO meta (account_id, platform_id, wallet_secret) VALUES (?, ?, ?)', accountId, platformId, walletSecret);
  }

  // --- credentials ---

  credentials(): CredentialRow[] {
    return this.sql.exec<CredentialRow>('SELECT * FROM credentials ORDER BY id').toArray();
  }

  credentialCount(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM credentials').one().n;
  }

  credential(id: string): CredentialRow | undefined {
    return this.first<CredentialRow>('SELECT * FROM credentials WHERE id = ?', id);
  }

  hasEmailOtpCredential(): boolean {
    return this.sql.exec("SELECT 1 FROM credentials WHERE type = 'EMAIL_OTP'").toArray().length > 0;
  }

  hasPasskey(webauthnId: string): boolean {
    return this.sql.exec('SELECT 1 FROM credentials WHERE webauthn_id = ?', webauthnId).toArray().length > 0;
  }

  hasOidcIdentity(iss: string, aud: string, sub: string): boolean {
    return (
      this.sql.exec('SELECT 1 FROM credentials WHERE oidc_iss = ? AND oidc_aud = ? AND oidc_sub = ?', iss, aud, sub).toArray().length > 0
    );
  }

  insertCredential(row: CredentialRow): void {
    this.sql.exec(
      `INSERT INTO credentials (id, type, nickname, webauthn_id, passkey_public_key, counter, transports, oidc_iss, oidc_aud, oidc_sub, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.id,
      row.type,
      row.nickname,
      row.webauthn_id,
      row.passkey_public_key,
      row.counter,
      row.transports,
      row.oidc_iss,
      row.oidc_aud,
      row.oidc_sub,
      row.created_at,
      row.updated_at,
    );
  }

  setPasskeyCounter(credentialId: string, counter: number): void {
    this.sql.exec('UPDATE credentials SET counter = ? WHERE id = ?', counter, credentialId);
  }

  /** Deletes a credential with everything that hangs on it: its sessions (revoked), its OTP state. */
  deleteCredential(credentialId: string, now: number): void {
    this.sql.exec('DELETE FROM credentials WHERE id = ?', credentialId);
    this.sql.exec('UPDATE sessions SET revoked_at = ? WHERE credential_id = ? AND revoked_at IS NULL', now, credentialId);
    this.sql.exec('DELETE FROM otp WHERE credential_id = ?', credentialId);
    this.sql.exec('DELETE FROM otp_failures WHERE credential_id = ?', credentialId);
  }

  /** The EMAIL_OTP credential's address changes; any code sent to the old one is dropped. */
  setEmail(email: string, now: number): void {
    this.sql.exec("UPDATE credentials SET nickname = ?, updated_at = ? WHERE type = 'EMAIL_OTP'", email, now);
    this.sql.exec("DELETE FROM otp WHERE credential_id IN (SELECT id FROM credentials WHERE type = 'EMAIL_OTP')");
  }

  // --- sessions ---

  activeSessions(now: number): SessionRow[] {
    return this.sql.exec<SessionRow>('SELECT * FROM sessions WHERE revoked_at IS NULL AND expires_at > ? ORDER BY id', now).toArray();
  }

  activeSession(id: string, now: number): SessionRow | undefined {
    return this.first<SessionRow>('SELECT * FROM sessions WHERE id = ? AND revoked_at IS NULL AND expires_at > ?', id, now);
  }

  activeSessionByKey(publicKey: string, now: number): SessionRow | undefined {
    return this.first<SessionRow>(
      'SELECT * FROM sessions WHERE public_key = ? AND revoked_at IS NULL AND expires_at > ?',
      publicKey.toLowerCase(),
      now,
    );
  }

  insertSession(row: SessionRow): void {
    this.sql.exec(
      'INSERT INTO sessions (id, credential_id, type, nickname, webauthn_id, public_key, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      row.id,
      row.credential_id,
      row.type,
      row.nickname,
      row.webauthn_id,
      row.public_key,
      row.created_at,
      row.expires_at,
      row.revoked_at,
    );
  }

  revokeSession(id: string, now: number): void {
    this.sql.exec('UPDATE sessions SET revoked_at = ? WHERE id = ?', now, id);
  }

  // --- signed-retry requests ---

  insertPending(row: Omit<PendingRow, 'used_at'>): void {
    this.sql.exec(
      'INSERT INTO pending (id, operation, method, path, body_hash, payload, effect, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      row.id,
      row.operation,
      row.method,
      row.path,
      row.body_hash,
      row.payload,
      row.effect,
      row.expires_at,
    );
  }

  /** A pending request still usable at `now`: unused and unexpired. */
  pending(id: string, now: number): PendingRow | undefined {
    return this.first<PendingRow>('SELECT * FROM pending WHERE id = ? AND used_at IS NULL AND expires_at > ?', id, now);
  }

  usePending(id: string, now: number): void {
    this.sql.exec('UPDATE pending SET used_at = ? WHERE id = ?', now, id);
  }

  // --- EMAIL_OTP ---

  otpCode(credentialId: string): OtpCodeRow | undefined {
    return this.first<OtpCodeRow>('SELECT * FROM otp WHERE credential_id = ?', credentialId);
  }

  replaceOtpCode(credentialId: string, codeHash: string, salt: string, expiresAt: number): void {
    this.sql.exec(
      'INSERT OR REPLACE INTO otp (credential_id, code_hash, salt, expires_at, attempts) VALUES (?, ?, ?, ?, 0)',
      credentialId,
      codeHash,
      salt,
      expiresAt,
    );
  }

  deleteOtpCode(credentialId: string): void {
    this.sql.exec('DELETE FROM otp WHERE credential_id = ?', credentialId);
  }

  /** Send times of codes after `since`, oldest first. */
  otpSendsSince(credentialId: string, since: number): number[] {
    return this.sql
      .exec<{ sent_at: number }>(
        'SELECT sent_at FROM otp_sends WHERE credential_id = ? AND sent_at > ? ORDER BY sent_at',
        credentialId,
        since,
      )
      .toArray()
      .map((r) => r.sent_at);
  }

  /** Records a send and forgets sends at or before `forgetBefore`. */
  recordOtpSend(credentialId: string, now: number, forgetBefore: number): void {
    this.sql.exec('DELETE FROM otp_sends WHERE credential_id = ? AND sent_at <= ?', credentialId, forgetBefore);
    this.sql.exec('INSERT INTO otp_sends (credential_id, sent_at) VALUES (?, ?)', credentialId, now);
  }

  /** The `n`-th most recent wrong-code time after `since` (1 = the latest), if there are that many. */
  nthRecentOtpFailure(credentialId: string, since: number, n: number): number | undefined {
    return this.first<{ failed_at: number }>(
      'SELECT failed_at FROM otp_failures WHERE credential_id = ? AND failed_at > ? ORDER BY failed_at DESC LIMIT 1 OFFSET ?',
      credentialId,
      since,
      n - 1,
    )?.failed_at;
  }

  /** A wrong code: counts against the code and against the credential's day, forgetting failures at or before `forgetBefore`. */
  recordOtpFailure(credentialId: string, now: number, forgetBefore: number): void {
    this.sql.exec('UPDATE otp SET attempts = attempts + 1 WHERE credential_id = ?', credentialId);
    this.sql.exec('DELETE FROM otp_failures WHERE credential_id = ? AND failed_at <= ?', credentialId, forgetBefore);
    this.sql.exec('INSERT INTO otp_failures (credential_id, failed_at) VALUES (?, ?)', credentialId, now);
  }

  // --- PASSKEY ---

  insertPasskeyChallenge(requestId: string, credentialId: string, challenge: string, clientPublicKey: string, expiresAt: number): void {
    this.sql.exec(
      'INSERT INTO passkey_challenges (request_id, credential_id, challenge, client_public_key, expires_at) VALUES (?, ?, ?, ?, ?)',
      requestId,
      credentialId,
      challenge,
      clientPublicKey,
      expiresAt,
    );
  }

  /** A challenge of `credentialId` still usable at `now`. */
  passkeyChallenge(requestId: string, credentialId: string, now: number) {
    return this.first<{ challenge: string; client_public_key: string }>(
      'SELECT challenge, client_public_key FROM passkey_challenges WHERE request_id = ? AND credential_id = ? AND used_at IS NULL AND expires_at > ?',
      requestId,
      credentialId,
      now,
    );
  }

  usePasskeyChallenge(requestId: string, now: number): void {
    this.sql.exec('UPDATE passkey_challenges SET used_at = ? WHERE request_id = ?', now, requestId);
  }

  // --- whole state (sandbox snapshots) ---

  /** The object's own tables (not SQLite's or the runtime's), with their columns. */
  private tables(): Map<string, Set<string>> {
    const names = this.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray();
    return new Map(
      names.map(({ name }) => [
        name,
        new Set(
          this.sql
            .exec<{ name: string }>('SELECT name FROM pragma_table_info(?)', name)
            .toArray()
            .map((c) => c.name),
        ),
      ]),
    );
  }

  /** Every row of every table; tables without rows are left out. */
  exportState(): StoreState {
    const state: StoreState = {};
    for (const name of this.tables().keys()) {
      const rows = this.sql.exec(`SELECT * FROM "${name}"`).toArray();
      if (rows.length > 0) state[name] = rows;
    }
    return state;
  }

  /** Replaces every table's rows with `state`'s (none: emptied); names not of this store's tables are refused. */
  importState(state: StoreState): void {
    // Already that state (the usual case for a wallet untouched since the snapshot): nothing to write.
    if (JSON.stringify(this.exportState()) === JSON.stringify(state)) return;
    const tables = this.tables();
    for (const [name, rows] of Object.entries(state)) {
      const columns = tables.get(name);
      if (!columns) throw new Error(`unknown wallet table ${name}`);
      for (const row of rows) for (const key of Object.keys(row)) if (!columns.has(key)) throw new Error(`unknown column ${name}.${key}`);
    }
    for (const name of tables.keys()) this.sql.exec(`DELETE FROM "${name}"`);
    for (const [name, rows] of Object.entries(state)) {
      for (const row of rows) {
        const keys = Object.keys(row);
        this.sql.exec(
          `INSERT INTO "${name}" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
          ...keys.map((k) => row[k]!),
        );
      }
    }
  }

  /** Drops sessions and challenges that ended before `before`. */
  purge(before: number): void {
    this.sql.exec('DELETE FROM sessions WHERE expires_at <= ? OR revoked_at IS NOT NULL AND revoked_at < ?', before, before);
    this.sql.exec('DELETE FROM pending WHERE expires_at <= ?', before);
    this.sql.exec('DELETE FROM passkey_challenges WHERE expires_at <= ?', before);
  }
}
