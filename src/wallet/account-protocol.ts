// What the Worker and the AccountDO exchange: account meta, credentials, challenges, effects and limits.
import type { AuthMethodType } from '../db/enums';
import type { ErrorName } from '../http/errors';
import type { OidcIdentity } from './oidc';

/** Who the account is, passed on every call so the object initialises itself on first use. */
export interface AccountMeta {
  accountId: string;
  platformId: string;
  /** The customer e-mail: the initial EMAIL_OTP credential's address. */
  email: string | null;
  /** Request time, epoch ms (the platform's sandbox clock). */
  now: number;
}

/** A credential's type: the API's AuthMethodType. */
export type CredentialType = AuthMethodType;

/** Signed-retry challenges are valid for 5 minutes; so are passkey challenges. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** OTP re-issue limits (the specification leaves the numbers open; docs/guides/wallets.md states them). */
export const OTP_RESEND_INTERVAL_MS = 30_000;
export const OTP_WINDOW_MS = 15 * 60_000;
export const OTP_WINDOW_MAX_SENDS = 5;
/** Wrong codes allowed before a code is burnt. */
export const OTP_MAX_ATTEMPTS = 5;
/**
 * Wrong codes a credential may take in any 24 hours. The re-issue limit alone allows 25 tries per 15 minutes
 * (2,400 a day); reaching this cap locks the credential's OTP challenge and verify until the oldest of these
 * failures is a day old. A person mistypes a handful of codes; 100 is four full re-issue windows of guessing.
 */
export const OTP_DAY_MAX_FAILURES = 100;
export const OTP_DAY_MS = 86_400_000;

export type NewCredential =
  | { type: 'EMAIL_OTP'; nickname: string }
  | { type: 'OAUTH'; nickname: string; identity: OidcIdentity }
  /** The passkey as stored: COSE public key in hex (the credential travels as JSON inside a pending request). */
  | { type: 'PASSKEY'; nickname: string; passkey: { credentialId: string; publicKeyHex: string; counter: number; transports?: string[] } };

/** An AuthMethod with times as epoch ms; routes render them. */
export interface AuthMethodView {
  id: string;
  accountId: string;
  type: CredentialType;
  nickname: string;
  createdAt: number;
  updatedAt: number;
  credentialId?: string;
}

/** A Session; the sealed key only on issuing responses. */
export interface SessionView extends AuthMethodView {
  expiresAt: number;
  encryptedSessionSigningKey?: string;
}

export interface ChallengeSpec {
  /** Our operation name; the retry must name the same one. */
  operation: string;
  /** The activity `type` written into payloadToSign. */
  activity: string;
  method: string;
  path: string;
  /** SHA-256 hex of the canonical request body. */
  bodyHash: string;
  /** Operation parameters bound into payloadToSign (e.g. the clientPublicKey to seal to). */
  parameters: Record<string, unknown>;
}

export interface SignedChallenge {
  payloadToSign: string;
  requestId: string;
  expiresAt: number;
}

/** What a successful signed retry does inside the account, atomically with consuming the request id. */
export type Effect =
  | { kind: 'none' }
  | { kind: 'addCredential'; credential: NewCredential }
  | { kind: 'revokeCredential'; credentialId: string }
  | { kind: 'revokeSession'; sessionId: string }
  | { kind: 'refreshSession'; sessionId: string; clientPublicKey: string; ttlMs: number }
  | { kind: 'exportWallet'; clientPublicKey: string }
  | { kind: 'updateEmail'; email: string };

export type EffectResult =
  | { kind: 'none' }
  | { kind: 'credential'; credential: AuthMethodView }
  | { kind: 'session'; session: SessionView }
  | { kind: 'export'; encryptedWalletCredentials: string };

/** An expected refusal, shaped by the route into the spec's error body. */
export interface Failure {
  ok: false;
  code: ErrorName;
  message: string;
  reason?: string;
  /** The fields a 400 names (error details `fields`). */
  fields?: { field: string; message: string }[];
  /** A 429's back-off, sent as `Retry-After`. */
  retryAfterSeconds?: number;
}

export type Outcome<T> = ({ ok: true } & T) | Failure;

/** An expected refusal; its status comes from the code or finer case (src/http/errors.ts). */
export const fail = (code: ErrorName, message: string, reason?: string): Failure => ({ ok: false, code, message, reason });

/**
 * The id of an account's first EMAIL_OTP credential (made on first use for the customer's e-mail): derived
 * from the account id, so the Worker indexes it when it creates the account and the object writes no D1.
 */
export const firstCredentialId = (accountId: string): string => `AuthMethod:${accountId.slice(accountId.indexOf(':') + 1)}`;
