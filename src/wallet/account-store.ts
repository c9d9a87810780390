import type { CredentialType } from './account-protocol';

/** The AccountDO's SQLite tables (created idempotently when the object starts). */
export const SCHEMA = [
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
