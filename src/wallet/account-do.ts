import type { ErrorCode } from '../http/errors';
import { DurableObject } from 'cloudflare:workers';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { Env } from '../env';
import { newId } from '../crypto/ids';
import { base64url } from '../crypto/secrets';
import { atRestKey, decryptAtRest, encryptAtRest } from '../crypto/at-rest';
import { sealToClient } from '../crypto/hpke';
import { generateOtp, hashOtp, newOtpSalt, otpMatches } from '../crypto/otp';
import { generateSessionKeyPair } from '../crypto/p256';
import { parseStamp, verifyStamp } from '../crypto/stamp';
import { verifyPasskeyAssertion, type PasskeyAssertion, type RelyingParty } from './webauthn';
import type { OidcIdentity } from './oidc';
import { SCHEMA, type CredentialRow, type PendingRow, type SessionRow } from './account-store';
import {
  CHALLENGE_TTL_MS,
  OTP_DAY_MAX_FAILURES,
  OTP_DAY_MS,
  OTP_MAX_ATTEMPTS,
  OTP_RESEND_INTERVAL_MS,
  OTP_WINDOW_MAX_SENDS,
  OTP_WINDOW_MS,
  type AccountMeta,
  type AuthMethodView,
  type ChallengeSpec,
  type Effect,
  type EffectResult,
  type Failure,
  type NewCredential,
  type Outcome,
  type SessionView,
  type SignedChallenge,
} from './account-protocol';

export const SANDBOX_SIGNATURE = 'sandbox-valid-signature';
export const SANDBOX_OTP = '000000';
export const SANDBOX_PASSKEY_SIGNATURE = 'sandbox-valid-passkey-signature';

const fail = (code: ErrorCode, message: string, reason?: string): Failure => ({ ok: false, code, message, reason });

/** A verify body of another credential type than the credential's (400, naming the `type` field). */
const typeMismatch = (actual: string, sent: string): Failure => ({
  ...fail('INVALID_INPUT', `This credential is ${actual}, not ${sent}`),
  fields: [{ field: 'type', message: `Must be ${actual}` }],
});

const isFailure = (x: CredentialRow | Failure): x is Failure => x.ok === false;

/** Expired sessions and challenges are purged at most this often per object (a purge scans its tables). */
const PURGE_INTERVAL_MS = 60_000;
const PURGE_AFTER_MS = 86_400_000;

/**
 * One per embedded-wallet internal account. It owns the account's credentials, sessions, pending
 * signed-retry requests, OTP and passkey challenges and rate-limit state. Every check-and-change runs
 * synchronously inside one storage transaction after all awaited work (signature checks, sealing) is
 * done, so concurrent requests cannot both consume the same `requestId`, OTP or challenge.
 */
export class AccountDO extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private lastPurge = 0;
  private metaRow: { account_id: string; wallet_secret: string } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of SCHEMA) this.sql.exec(statement);
  }

  // --- setup ---

  /**
   * First use of the account: records who it belongs to, creates its wallet secret (encrypted at rest)
   * and the EMAIL_OTP credential bound to the customer e-mail (spec 4.2). Idempotent.
   */
  private async ensure(meta: AccountMeta): Promise<void> {
    if (this.meta()) return;
    const key = await atRestKey(this.env.WALLET_ENCRYPTION_KEY);
    if (!key.ok) throw new Error(key.reason);
    const secret = await encryptAtRest(key.key, crypto.getRandomValues(new Uint8Array(32)), meta.accountId);
    const credentialId = meta.email ? await this.reserve('AuthMethod', meta) : undefined;
    this.ctx.storage.transactionSync(() => {
      if (this.meta()) return;
      this.sql.exec('INSERT INTO meta (account_id, platform_id, wallet_secret) VALUES (?, ?, ?)', meta.accountId, meta.platformId, secret);
      if (meta.email && credentialId) {
        this.insertCredential(credentialId, { type: 'EMAIL_OTP', nickname: meta.email }, meta.now);
      }
    });
  }

  /**
   * A new credential or session id, registered in D1's id -> account index first, so that calls naming
   * only that id find this account. Done before the atomic section; an id whose insert is then refused
   * stays an unused index row pointing here, which answers 404 like any unknown id.
   */
  private async reserve(type: 'AuthMethod' | 'Session', meta: AccountMeta): Promise<string> {
    const id = newId(type, meta.now);
    await this.env.DB.prepare('INSERT INTO wallet_auth_index (id, account_id, platform_id, created_at) VALUES (?, ?, ?, ?)')
      .bind(id, meta.accountId, meta.platformId, meta.now)
      .run();
    return id;
  }

  private meta(): { account_id: string; wallet_secret: string } | undefined {
    // Written once (ensure) and never changed: read from storage until it exists, then kept in memory.
    this.metaRow ??= this.sql
      .exec<{ account_id: string; wallet_secret: string }>('SELECT account_id, wallet_secret FROM meta')
      .toArray()[0];
    return this.metaRow;
  }

  private accountId(): string {
    return this.meta()!.account_id;
  }

  // --- reads ---

  async listCredentials(meta: AccountMeta): Promise<AuthMethodView[]> {
    await this.ensure(meta);
    return this.sql
      .exec<CredentialRow>('SELECT * FROM credentials ORDER BY id')
      .toArray()
      .map((r) => this.credentialView(r));
  }

  async getCredential(meta: AccountMeta, credentialId: string): Promise<AuthMethodView | undefined> {
    await this.ensure(meta);
    const row = this.credential(credentialId);
    return row && this.credentialView(row);
  }

  async listSessions(meta: AccountMeta): Promise<SessionView[]> {
    await this.ensure(meta);
    return this.sql
      .exec<SessionRow>('SELECT * FROM sessions WHERE revoked_at IS NULL AND expires_at > ? ORDER BY id', meta.now)
      .toArray()
      .map((s) => this.sessionView(s));
  }

  async credentialCount(meta: AccountMeta): Promise<number> {
    await this.ensure(meta);
    return this.count();
  }

  /** The credentials that would conflict with adding `c` (spec 4.2 uniqueness rules), as an error or none. */
  async checkCanAdd(meta: AccountMeta, c: NewCredential): Promise<Failure | null> {
    await this.ensure(meta);
    return this.conflict(c);
  }

  // --- credentials ---

  /** Adds the account's first credential without a signature (spec 4.2: 201 when none exists). */
  async addFirstCredential(
    meta: AccountMeta,
    c: NewCredential,
  ): Promise<Outcome<{ credential: AuthMethodView }> | { ok: false; needsSignature: true }> {
    await this.ensure(meta);
    if (this.count() > 0) return { ok: false, needsSignature: true };
    const id = await this.reserve('AuthMethod', meta);
    return this.ctx.storage.transactionSync(() => {
      if (this.count() > 0) return { ok: false as const, needsSignature: true as const };
      const conflict = this.conflict(c);
      if (conflict) return conflict;
      return { ok: true as const, credential: this.credentialView(this.insertCredential(id, c, meta.now)) };
    });
  }

  // --- signed retry (spec 4.1) ---

  /** Step 1: stores the pending request and returns what the client must sign. Changes nothing else. */
  async issueChallenge(meta: AccountMeta, spec: ChallengeSpec, effect: Effect): Promise<SignedChallenge> {
    await this.ensure(meta);
    const id = newId('Request', meta.now);
    const expiresAt = meta.now + CHALLENGE_TTL_MS;
    // Built here, stored verbatim: the client signs exactly these bytes.
    const payloadToSign = JSON.stringify({
      type: spec.activity,
      organizationId: this.accountId(),
      parameters: { ...spec.parameters, bodyHash: spec.bodyHash },
      timestampMs: String(meta.now),
    });
    this.sql.exec(
      'INSERT INTO pending (id, operation, method, path, body_hash, payload, effect, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      id,
      spec.operation,
      spec.method,
      spec.path,
      spec.bodyHash,
      payloadToSign,
      // What the retry will do is fixed now, from the checked first request; the retry proves it is the same request.
      JSON.stringify(effect),
      expiresAt,
    );
    return { payloadToSign, requestId: id, expiresAt };
  }

  /**
   * Step 2: checks the retry (stamp, request id, same operation and body, an active session of this
   * account) and, only if every check passes, consumes the request id and applies the effect fixed at
   * step 1, atomically.
   */
  async completeSignedRetry(
    meta: AccountMeta,
    retry: { requestId: string; signature: string; operation: string; method: string; path: string; bodyHash: string; sandbox: boolean },
  ): Promise<Outcome<{ result: EffectResult }>> {
    await this.ensure(meta);
    const magic = retry.sandbox && retry.signature === SANDBOX_SIGNATURE;
    let stamp: ReturnType<typeof parseStamp> | undefined;
    if (!magic) {
      stamp = parseStamp(retry.signature);
      if (!stamp.ok) {
        // In sandbox an unreadable header is a wrong magic value (spec 4.9); in production it is malformed.
        return retry.sandbox
          ? fail('UNAUTHORIZED', 'Invalid Service-Wallet-Signature', 'Invalid Service-Wallet-Signature')
          : fail('WALLET_SIGNATURE_MALFORMED', `Service-Wallet-Signature is malformed: ${stamp.reason}`);
      }
    }
    const pending = this.pending(retry.requestId, meta.now);
    if (!pending) return fail('UNAUTHORIZED', 'Request-Id is unknown, already used or expired');
    if (
      pending.operation !== retry.operation ||
      pending.method !== retry.method ||
      pending.path !== retry.path ||
      pending.body_hash !== retry.bodyHash
    ) {
      return fail(
        'WALLET_SIGNATURE_BODY_MISMATCH',
        'The signed retry is not the same request as the one challenged (method, path or body differ)',
      );
    }
    const effect = JSON.parse(pending.effect) as Effect;
    let signer: SessionRow | undefined;
    if (stamp?.ok) {
      const verified = await verifyStamp(stamp.stamp, pending.payload);
      if (!verified.ok) return fail(verified.code, 'Service-Wallet-Signature does not verify over payloadToSign');
      signer = this.activeSessionByKey(verified.publicKey, meta.now);
      if (!signer) return fail('WALLET_SIGNATURE_INVALID', 'The signing key is not an active session of this account');
      const refused = this.signerRefused(signer, effect);
      if (refused) return refused;
    }
    // Awaited work that the effect needs (sealing) happens before the atomic section.
    const prepared = await this.prepare(effect, meta);
    return this.ctx.storage.transactionSync(() => {
      // Re-checked inside the transaction: only one of many concurrent retries gets here with it unused.
      if (!this.pending(retry.requestId, meta.now)) return fail('UNAUTHORIZED', 'Request-Id is unknown, already used or expired');
      if (signer && !this.activeSessionByKey(signer.public_key, meta.now)) {
        return fail('WALLET_SIGNATURE_INVALID', 'The signing session is no longer active');
      }
      const applied = this.apply(effect, prepared, meta.now);
      if (!applied.ok) return applied;
      this.sql.exec('UPDATE pending SET used_at = ? WHERE id = ?', meta.now, retry.requestId);
      return { ok: true as const, result: applied.result };
    });
  }

  /** Revocation rules on who may sign (spec 3.1: a different credential for credential revoke; the session itself for refresh). */
  private signerRefused(signer: SessionRow, effect: Effect): Failure | null {
    if (effect.kind === 'revokeCredential' && signer.credential_id === effect.credentialId) {
      return fail(
        'WALLET_SIGNATURE_INVALID',
        'A credential cannot authorise its own revocation: sign with a session of another credential',
      );
    }
    if (effect.kind === 'refreshSession' && signer.id !== effect.sessionId) {
      return fail('WALLET_SIGNATURE_INVALID', 'A refresh must be signed with the session being refreshed');
    }
    return null;
  }

  private async prepare(effect: Effect, meta: AccountMeta): Promise<Prepared> {
    if (effect.kind === 'refreshSession')
      return { session: await this.prepareSession(effect.clientPublicKey, await this.reserve('Session', meta)) };
    if (effect.kind === 'addCredential') return { credentialId: await this.reserve('AuthMethod', meta) };
    if (effect.kind === 'exportWallet') {
      const key = await atRestKey(this.env.WALLET_ENCRYPTION_KEY);
      if (!key.ok) throw new Error(key.reason);
      const secret = await decryptAtRest(key.key, this.meta()!.wallet_secret, meta.accountId);
      if (!secret.ok) throw new Error(secret.reason);
      return { sealed: await sealToClient(effect.clientPublicKey, secret.plaintext) };
    }
    return {};
  }

  private apply(effect: Effect, prepared: Prepared, now: number): Outcome<{ result: EffectResult }> {
    switch (effect.kind) {
      case 'none':
        return { ok: true, result: { kind: 'none' } };
      case 'addCredential': {
        const conflict = this.conflict(effect.credential);
        if (conflict) return conflict;
        return {
          ok: true,
          result: {
            kind: 'credential',
            credential: this.credentialView(this.insertCredential(prepared.credentialId!, effect.credential, now)),
          },
        };
      }
      case 'revokeCredential': {
        const target = this.credential(effect.credentialId);
        if (!target) return fail('NOT_FOUND', 'Credential not found');
        if (this.count() <= 1) return fail('INVALID_INPUT', 'The only credential of an account cannot be revoked');
        this.sql.exec('DELETE FROM credentials WHERE id = ?', effect.credentialId);
        // Spec 3.1: every active session the credential issued goes with it, in the same transaction.
        this.sql.exec('UPDATE sessions SET revoked_at = ? WHERE credential_id = ? AND revoked_at IS NULL', now, effect.credentialId);
        this.sql.exec('DELETE FROM otp WHERE credential_id = ?', effect.credentialId);
        this.sql.exec('DELETE FROM otp_failures WHERE credential_id = ?', effect.credentialId);
        return { ok: true, result: { kind: 'none' } };
      }
      case 'revokeSession': {
        if (!this.activeSession(effect.sessionId, now)) return fail('NOT_FOUND', 'Session not found');
        this.sql.exec('UPDATE sessions SET revoked_at = ? WHERE id = ?', now, effect.sessionId);
        return { ok: true, result: { kind: 'none' } };
      }
      case 'refreshSession': {
        const old = this.activeSession(effect.sessionId, now);
        if (!old) return fail('NOT_FOUND', 'Session not found or no longer active');
        const credential = this.credential(old.credential_id);
        if (!credential) return fail('NOT_FOUND', 'Session not found or no longer active');
        return { ok: true, result: { kind: 'session', session: this.insertSession(credential, prepared.session!, now, effect.ttlMs) } };
      }
      case 'exportWallet':
        return { ok: true, result: { kind: 'export', encryptedWalletCredentials: prepared.sealed! } };
      case 'updateEmail': {
        this.sql.exec("UPDATE credentials SET nickname = ?, updated_at = ? WHERE type = 'EMAIL_OTP'", effect.email, now);
        // A code sent to the old address must not open the account any more.
        this.sql.exec("DELETE FROM otp WHERE credential_id IN (SELECT id FROM credentials WHERE type = 'EMAIL_OTP')");
        return { ok: true, result: { kind: 'none' } };
      }
    }
  }

  // --- EMAIL_OTP ---

  /** Issues a fresh code (replacing any earlier one) under the re-issue rate limit; the caller e-mails it. */
  async issueOtp(
    meta: AccountMeta,
    credentialId: string,
    config: { otpLength: number; alphanumeric: boolean; expirationSeconds: number },
  ): Promise<Outcome<{ otp: string; credential: AuthMethodView }>> {
    await this.ensure(meta);
    return this.ctx.storage.transactionSync(() => {
      const credential = this.credential(credentialId);
      if (!credential || credential.type !== 'EMAIL_OTP') return fail('NOT_FOUND', 'Credential not found');
      const locked = this.otpLocked(credentialId, meta.now);
      if (locked) return locked;
      const tooSoon = (retryAfterSeconds: number): Failure => ({
        ...fail('RATE_LIMITED', `Too many codes requested; retry in ${retryAfterSeconds} s`),
        retryAfterSeconds,
      });
      const sends = this.sql
        .exec<{ sent_at: number }>(
          'SELECT sent_at FROM otp_sends WHERE credential_id = ? AND sent_at > ? ORDER BY sent_at',
          credentialId,
          meta.now - OTP_WINDOW_MS,
        )
        .toArray()
        .map((r) => r.sent_at);
      const last = sends[sends.length - 1];
      if (last !== undefined && meta.now - last < OTP_RESEND_INTERVAL_MS) {
        return tooSoon(Math.ceil((last + OTP_RESEND_INTERVAL_MS - meta.now) / 1000));
      }
      if (sends.length >= OTP_WINDOW_MAX_SENDS) {
        return tooSoon(Math.ceil((sends[0]! + OTP_WINDOW_MS - meta.now) / 1000));
      }
      const otp = generateOtp(config.otpLength, config.alphanumeric);
      const salt = newOtpSalt();
      this.sql.exec(
        'INSERT OR REPLACE INTO otp (credential_id, code_hash, salt, expires_at, attempts) VALUES (?, ?, ?, ?, 0)',
        credentialId,
        hashOtp(otp, salt),
        salt,
        meta.now + config.expirationSeconds * 1000,
      );
      this.sql.exec('DELETE FROM otp_sends WHERE credential_id = ? AND sent_at <= ?', credentialId, meta.now - OTP_WINDOW_MS);
      this.sql.exec('INSERT INTO otp_sends (credential_id, sent_at) VALUES (?, ?)', credentialId, meta.now);
      return { ok: true as const, otp, credential: this.credentialView(credential) };
    });
  }

  /**
   * Checks a code (single use, expiring, a few wrong tries burn it) and issues session `sessionId` (reserved
   * in the id index by the caller) sealed to `clientPublicKey`. One call does the whole verify: the
   * credential's existence and type are checked here too.
   */
  async verifyOtp(
    meta: AccountMeta,
    input: { credentialId: string; otp: string; clientPublicKey: string; sandbox: boolean; ttlMs: number; sessionId: string },
  ): Promise<Outcome<{ session: SessionView }>> {
    await this.ensure(meta);
    // Checked before any sealing, so a wrong code costs no crypto.
    const refused = this.ctx.storage.transactionSync(() => this.otpRefused(input, meta.now));
    if (refused) return refused;
    const prepared = await this.prepareSession(input.clientPublicKey, input.sessionId);
    return this.ctx.storage.transactionSync(() => {
      // Again inside the transaction: a concurrent verify may have used the code meanwhile.
      const late = this.otpRefused(input, meta.now);
      if (late) return late;
      this.sql.exec('DELETE FROM otp WHERE credential_id = ?', input.credentialId);
      return { ok: true as const, session: this.insertSession(this.credential(input.credentialId)!, prepared, meta.now, input.ttlMs) };
    });
  }

  /** Why `input.otp` does not open this EMAIL_OTP credential now (a wrong code counts an attempt), or null. */
  private otpRefused(input: { credentialId: string; otp: string; sandbox: boolean }, now: number): Failure | null {
    const credential = this.credentialOfType(input.credentialId, 'EMAIL_OTP');
    if (isFailure(credential)) return credential;
    const locked = this.otpLocked(input.credentialId, now);
    if (locked) return locked;
    if (input.sandbox && input.otp === SANDBOX_OTP) return null;
    const code = this.sql
      .exec<{ code_hash: string; salt: string; expires_at: number; attempts: number }>(
        'SELECT * FROM otp WHERE credential_id = ?',
        input.credentialId,
      )
      .toArray()[0];
    const invalid = fail('UNAUTHORIZED', 'Invalid OTP code', 'Invalid OTP code');
    if (!code || code.expires_at <= now || code.attempts >= OTP_MAX_ATTEMPTS) return invalid;
    if (!otpMatches(input.otp, code.salt, code.code_hash)) {
      this.sql.exec('UPDATE otp SET attempts = attempts + 1 WHERE credential_id = ?', input.credentialId);
      this.sql.exec('DELETE FROM otp_failures WHERE credential_id = ? AND failed_at <= ?', input.credentialId, now - OTP_DAY_MS);
      this.sql.exec('INSERT INTO otp_failures (credential_id, failed_at) VALUES (?, ?)', input.credentialId, now);
      return invalid;
    }
    return null;
  }

  /** 429 while the credential has had OTP_DAY_MAX_FAILURES wrong codes in the last day, until the oldest of them is a day old. */
  private otpLocked(credentialId: string, now: number): Failure | null {
    const oldest = this.sql
      .exec<{ failed_at: number }>(
        'SELECT failed_at FROM otp_failures WHERE credential_id = ? AND failed_at > ? ORDER BY failed_at DESC LIMIT 1 OFFSET ?',
        credentialId,
        now - OTP_DAY_MS,
        OTP_DAY_MAX_FAILURES - 1,
      )
      .toArray()[0];
    if (!oldest) return null;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest.failed_at + OTP_DAY_MS - now) / 1000));
    return {
      ...fail('RATE_LIMITED', `Too many wrong codes for this credential in 24 hours; retry in ${retryAfterSeconds} s`),
      retryAfterSeconds,
    };
  }

  // --- OAUTH ---

  /** Issues a session for an OIDC identity the Worker has verified; it must be this credential's identity. */
  async verifyOauth(
    meta: AccountMeta,
    input: { credentialId: string; identity: OidcIdentity; clientPublicKey: string; ttlMs: number; sessionId: string },
  ): Promise<Outcome<{ session: SessionView }>> {
    await this.ensure(meta);
    const refused = this.oauthRefused(input);
    if (refused) return refused;
    const prepared = await this.prepareSession(input.clientPublicKey, input.sessionId);
    return this.ctx.storage.transactionSync(() => {
      const late = this.oauthRefused(input);
      if (late) return late;
      return { ok: true as const, session: this.insertSession(this.credential(input.credentialId)!, prepared, meta.now, input.ttlMs) };
    });
  }

  private oauthRefused(input: { credentialId: string; identity: OidcIdentity }): Failure | null {
    const credential = this.credentialOfType(input.credentialId, 'OAUTH');
    if (isFailure(credential)) return credential;
    const { iss, aud, sub } = input.identity;
    if (credential.oidc_iss !== iss || credential.oidc_aud !== aud || credential.oidc_sub !== sub) {
      const reason = 'OIDC token identity (iss, aud, sub) does not match the credential';
      return fail('UNAUTHORIZED', reason, reason);
    }
    return null;
  }

  // --- PASSKEY ---

  /** A fresh WebAuthn challenge bound to `clientPublicKey` (spec 4.2), answered by verify with `Request-Id`. */
  async passkeyChallenge(
    meta: AccountMeta,
    input: { credentialId: string; clientPublicKey: string },
  ): Promise<Outcome<{ credential: AuthMethodView; challenge: string; requestId: string; expiresAt: number }>> {
    await this.ensure(meta);
    const credential = this.credential(input.credentialId);
    if (!credential || credential.type !== 'PASSKEY') return fail('NOT_FOUND', 'Credential not found');
    const challenge = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const requestId = newId('Request', meta.now);
    const expiresAt = meta.now + CHALLENGE_TTL_MS;
    this.sql.exec(
      'INSERT INTO passkey_challenges (request_id, credential_id, challenge, client_public_key, expires_at) VALUES (?, ?, ?, ?, ?)',
      requestId,
      input.credentialId,
      challenge,
      input.clientPublicKey,
      expiresAt,
    );
    return { ok: true, credential: this.credentialView(credential), challenge, requestId, expiresAt };
  }

  /** Checks the assertion against the challenge of `requestId` and issues a session sealed to the key bound there. */
  async verifyPasskey(
    meta: AccountMeta,
    input: {
      credentialId: string;
      requestId: string;
      assertion: PasskeyAssertion;
      sandbox: boolean;
      rp: RelyingParty;
      ttlMs: number;
      sessionId: string;
    },
  ): Promise<Outcome<{ session: SessionView }>> {
    await this.ensure(meta);
    const credential = this.credentialOfType(input.credentialId, 'PASSKEY');
    if (isFailure(credential)) return credential;
    const challenge = this.passkeyChallengeRow(input.requestId, input.credentialId, meta.now);
    if (!challenge) return fail('UNAUTHORIZED', 'Request-Id is unknown, already used, expired or not for this credential');
    const invalid = fail('UNAUTHORIZED', 'Invalid passkey signature', 'Invalid passkey signature');
    let counter = credential.counter;
    if (!(input.sandbox && input.assertion.signature === SANDBOX_PASSKEY_SIGNATURE)) {
      const verified = await verifyPasskeyAssertion(
        {
          assertion: input.assertion,
          expectedChallenge: challenge.challenge,
          credential: {
            credentialId: credential.webauthn_id!,
            publicKey: hexToBytes(credential.passkey_public_key!),
            counter: credential.counter,
            transports: JSON.parse(credential.transports ?? '[]'),
          },
        },
        input.rp,
      );
      if (!verified.ok) return input.sandbox ? invalid : fail('UNAUTHORIZED', `Passkey assertion rejected: ${verified.reason}`);
      counter = verified.counter;
    }
    const prepared = await this.prepareSession(challenge.client_public_key, input.sessionId);
    return this.ctx.storage.transactionSync(() => {
      if (!this.passkeyChallengeRow(input.requestId, input.credentialId, meta.now)) {
        return fail('UNAUTHORIZED', 'Request-Id is unknown, already used, expired or not for this credential');
      }
      this.sql.exec('UPDATE passkey_challenges SET used_at = ? WHERE request_id = ?', meta.now, input.requestId);
      this.sql.exec('UPDATE credentials SET counter = ? WHERE id = ?', counter, input.credentialId);
      return { ok: true as const, session: this.insertSession(credential, prepared, meta.now, input.ttlMs) };
    });
  }

  /** Session `id` (already in the id index) with a fresh key pair, its private key sealed to the client and then dropped. */
  private async prepareSession(clientPublicKey: string, id: string): Promise<PreparedSession> {
    const pair = await generateSessionKeyPair();
    const sealed = await sealToClient(clientPublicKey, pair.privateKey);
    pair.privateKey.fill(0);
    return { id, publicKey: pair.publicKey, sealed };
  }

  // --- storage helpers (synchronous) ---

  private count(): number {
    return this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM credentials').one().n;
  }

  private credential(id: string): CredentialRow | undefined {
    return this.sql.exec<CredentialRow>('SELECT * FROM credentials WHERE id = ?', id).toArray()[0];
  }

  /** Credential `id` if it exists and is of `type`; otherwise the refusal (404, or 400 for another type). */
  private credentialOfType(id: string, type: CredentialRow['type']): CredentialRow | Failure {
    const credential = this.credential(id);
    if (!credential) return fail('NOT_FOUND', 'Credential not found');
    return credential.type === type ? credential : typeMismatch(credential.type, type);
  }

  private conflict(c: NewCredential): Failure | null {
    if (c.type === 'EMAIL_OTP' && this.sql.exec("SELECT 1 FROM credentials WHERE type = 'EMAIL_OTP'").toArray().length) {
      return fail('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', 'This account already has an EMAIL_OTP credential');
    }
    if (c.type === 'PASSKEY' && this.sql.exec('SELECT 1 FROM credentials WHERE webauthn_id = ?', c.passkey.credentialId).toArray().length) {
      return fail('PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'This passkey is already registered');
    }
    if (
      c.type === 'OAUTH' &&
      this.sql
        .exec(
          'SELECT 1 FROM credentials WHERE oidc_iss = ? AND oidc_aud = ? AND oidc_sub = ?',
          c.identity.iss,
          c.identity.aud,
          c.identity.sub,
        )
        .toArray().length
    ) {
      return fail('CONFLICT', 'An OAUTH credential for this provider identity already exists');
    }
    return null;
  }

  private insertCredential(id: string, c: NewCredential, now: number): CredentialRow {
    const row: CredentialRow = {
      id,
      type: c.type,
      nickname: c.nickname,
      webauthn_id: c.type === 'PASSKEY' ? c.passkey.credentialId : null,
      passkey_public_key: c.type === 'PASSKEY' ? c.passkey.publicKeyHex : null,
      counter: c.type === 'PASSKEY' ? c.passkey.counter : 0,
      transports: c.type === 'PASSKEY' ? JSON.stringify(c.passkey.transports ?? []) : null,
      oidc_iss: c.type === 'OAUTH' ? c.identity.iss : null,
      oidc_aud: c.type === 'OAUTH' ? c.identity.aud : null,
      oidc_sub: c.type === 'OAUTH' ? c.identity.sub : null,
      created_at: now,
      updated_at: now,
    };
    this.sql.exec(
      `INSERT INTO credentials (id, type, nickname, webauthn_id, passkey_public_key, counter, transports, oidc_iss, oidc_aud, oidc_sub, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ...Object.values(row),
    );
    return row;
  }

  private pending(id: string, now: number): PendingRow | undefined {
    return this.sql.exec<PendingRow>('SELECT * FROM pending WHERE id = ? AND used_at IS NULL AND expires_at > ?', id, now).toArray()[0];
  }

  private passkeyChallengeRow(requestId: string, credentialId: string, now: number) {
    return this.sql
      .exec<{ challenge: string; client_public_key: string }>(
        'SELECT challenge, client_public_key FROM passkey_challenges WHERE request_id = ? AND credential_id = ? AND used_at IS NULL AND expires_at > ?',
        requestId,
        credentialId,
        now,
      )
      .toArray()[0];
  }

  private activeSession(id: string, now: number): SessionRow | undefined {
    return this.sql.exec<SessionRow>('SELECT * FROM sessions WHERE id = ? AND revoked_at IS NULL AND expires_at > ?', id, now).toArray()[0];
  }

  private activeSessionByKey(publicKey: string, now: number): SessionRow | undefined {
    return this.sql
      .exec<SessionRow>(
        'SELECT * FROM sessions WHERE public_key = ? AND revoked_at IS NULL AND expires_at > ?',
        publicKey.toLowerCase(),
        now,
      )
      .toArray()[0];
  }

  private insertSession(credential: CredentialRow, prepared: PreparedSession, now: number, ttlMs: number): SessionView {
    const row: SessionRow = {
      id: prepared.id,
      credential_id: credential.id,
      type: credential.type,
      nickname: credential.nickname,
      webauthn_id: credential.webauthn_id,
      public_key: prepared.publicKey,
      created_at: now,
      expires_at: now + ttlMs,
      revoked_at: null,
    };
    this.sql.exec(
      'INSERT INTO sessions (id, credential_id, type, nickname, webauthn_id, public_key, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ...Object.values(row),
    );
    this.purge(now);
    return { ...this.sessionView(row), encryptedSessionSigningKey: prepared.sealed };
  }

  /** Drops sessions and challenges dead for a day; at most once per interval, since it scans whole tables. */
  private purge(now: number): void {
    if (Math.abs(now - this.lastPurge) < PURGE_INTERVAL_MS) return;
    this.lastPurge = now;
    const before = now - PURGE_AFTER_MS;
    this.sql.exec('DELETE FROM sessions WHERE expires_at <= ? OR revoked_at IS NOT NULL AND revoked_at < ?', before, before);
    this.sql.exec('DELETE FROM pending WHERE expires_at <= ?', before);
    this.sql.exec('DELETE FROM passkey_challenges WHERE expires_at <= ?', before);
  }

  private credentialView(r: CredentialRow): AuthMethodView {
    const view: AuthMethodView = {
      id: r.id,
      accountId: this.accountId(),
      type: r.type,
      nickname: r.nickname,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    };
    if (r.webauthn_id) view.credentialId = r.webauthn_id;
    return view;
  }

  private sessionView(s: SessionRow): SessionView {
    const view: SessionView = {
      id: s.id,
      accountId: this.accountId(),
      type: s.type,
      nickname: s.nickname,
      createdAt: s.created_at,
      updatedAt: s.created_at,
      expiresAt: s.expires_at,
    };
    if (s.webauthn_id) view.credentialId = s.webauthn_id;
    return view;
  }
}

interface PreparedSession {
  id: string;
  publicKey: string;
  sealed: string;
}

/** Work done before an atomic section: reserved ids, sealed material. */
interface Prepared {
  credentialId?: string;
  session?: PreparedSession;
  sealed?: string;
}
