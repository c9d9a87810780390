// The AccountDO: one Durable Object per embedded wallet, the RPC surface over its credentials, sessions and signed retries.
import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';
import { newId } from '../crypto/ids';
import { toBase64url } from '../crypto/base64';
import { atRestKey, decryptAtRest, encryptAtRest } from '../crypto/at-rest';
import { sealToClient } from '../crypto/hpke';
import { generateOtp, hashOtp, newOtpSalt } from '../crypto/otp';
import { parseStamp, verifyStamp } from '../crypto/stamp';
import type { PasskeyAssertion, RelyingParty } from './webauthn';
import type { OidcIdentity } from './oidc';
import { AccountStore, type CredentialRow, type StoreState } from './account-store';
import { checkAssertion, conflictOf, credentialOfType, credentialRow, credentialView, isFailure, sessionView } from './credential-rules';
import { checkCode, dayLocked, sendRefused } from './otp-rules';
import { prepareSession, PURGE_AFTER_MS, PURGE_INTERVAL_MS, sessionRow, type PreparedSession } from './session-rules';
import { applyEffect, challengePayload, retryMismatch, signerRefused, type Prepared, type Retry } from './signed-retry-rules';
import { WALLET_SANDBOX_VALUES } from './sandbox-values';
import {
  CHALLENGE_TTL_MS,
  fail,
  firstCredentialId,
  OTP_DAY_MAX_FAILURES,
  OTP_DAY_MS,
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

const { walletSignature: SANDBOX_SIGNATURE, otp: SANDBOX_OTP } = WALLET_SANDBOX_VALUES;

const unknownRequest = () => fail('UNAUTHORIZED', 'Request-Id is unknown, already used or expired');
const unknownChallenge = () => fail('UNAUTHORIZED', 'Request-Id is unknown, already used, expired or not for this credential');

/**
 * One per embedded-wallet internal account: a thin RPC surface over the account's storage. Each method
 * does its awaited work first (signature checks, sealing) and then one synchronous storage transaction
 * that re-checks and changes, so concurrent requests cannot both consume the same `requestId`, OTP or
 * challenge. The rules live in credential-rules, otp-rules, session-rules and signed-retry-rules; the
 * statements in account-store. It writes no D1: ids it creates are reserved in the index by the Worker.
 */
export class AccountDO extends DurableObject<Env> {
  private readonly store: AccountStore;
  private lastPurge = 0;
  private metaRow: { account_id: string; wallet_secret: string } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new AccountStore(ctx.storage.sql);
  }

  // --- reads ---

  async listCredentials(meta: AccountMeta): Promise<AuthMethodView[]> {
    await this.ensure(meta);
    return this.store.credentials().map((r) => this.credentialView(r));
  }

  async getCredential(meta: AccountMeta, credentialId: string): Promise<AuthMethodView | undefined> {
    await this.ensure(meta);
    const row = this.store.credential(credentialId);
    return row && this.credentialView(row);
  }

  async listSessions(meta: AccountMeta): Promise<SessionView[]> {
    await this.ensure(meta);
    return this.store.activeSessions(meta.now).map((s) => sessionView(this.accountId(), s));
  }

  async credentialCount(meta: AccountMeta): Promise<number> {
    await this.ensure(meta);
    return this.store.credentialCount();
  }

  /** The credentials that would conflict with adding `c` (one EMAIL_OTP; each passkey, OAUTH identity once), as an error or none. */
  async checkCanAdd(meta: AccountMeta, c: NewCredential): Promise<Failure | null> {
    await this.ensure(meta);
    return conflictOf(c, this.store);
  }

  // --- credentials ---

  /** Adds the account's first credential without a signature (201 when the account has none), as `id` (reserved by the caller). */
  async addFirstCredential(
    meta: AccountMeta,
    c: NewCredential,
    id: string,
  ): Promise<Outcome<{ credential: AuthMethodView }> | { ok: false; needsSignature: true }> {
    await this.ensure(meta);
    if (this.store.credentialCount() > 0) return { ok: false, needsSignature: true };
    return this.transaction(() => {
      if (this.store.credentialCount() > 0) return { ok: false as const, needsSignature: true as const };
      const conflict = conflictOf(c, this.store);
      if (conflict) return conflict;
      const row = credentialRow(id, c, meta.now);
      this.store.insertCredential(row);
      return { ok: true as const, credential: this.credentialView(row) };
    });
  }

  // --- signed retry ---

  /** Step 1: stores the pending request and returns what the client must sign. Changes nothing else. */
  async issueChallenge(meta: AccountMeta, spec: ChallengeSpec, effect: Effect): Promise<SignedChallenge> {
    await this.ensure(meta);
    const id = newId('Request', meta.now);
    const expiresAt = meta.now + CHALLENGE_TTL_MS;
    const payloadToSign = challengePayload(spec, this.accountId(), meta.now);
    // What the retry will do is fixed now, from the checked first request; the retry proves it is the same request.
    this.store.insertPending({
      id,
      operation: spec.operation,
      method: spec.method,
      path: spec.path,
      body_hash: spec.bodyHash,
      payload: payloadToSign,
      effect: JSON.stringify(effect),
      expires_at: expiresAt,
    });
    return { payloadToSign, requestId: id, expiresAt };
  }

  /**
   * Step 2: checks the retry (stamp, request id, same operation and body, an active session of this
   * account) and, only if every check passes, consumes the request id and applies the effect fixed at
   * step 1, atomically.
   */
  async completeSignedRetry(
    meta: AccountMeta,
    retry: Retry & { requestId: string; signature: string; sandbox: boolean; reservedId?: string },
  ): Promise<Outcome<{ result: EffectResult }>> {
    await this.ensure(meta);
    const magic = retry.sandbox && retry.signature === SANDBOX_SIGNATURE.value;
    const stamp = magic ? undefined : parseStamp(retry.signature);
    if (stamp && !stamp.ok) {
      // In sandbox an unreadable header is a wrong magic value; in production it is malformed.
      return retry.sandbox
        ? fail('UNAUTHORIZED', SANDBOX_SIGNATURE.refusal, SANDBOX_SIGNATURE.refusal)
        : fail('WALLET_SIGNATURE_MALFORMED', `Service-Wallet-Signature is malformed: ${stamp.reason}`);
    }
    const pending = this.store.pending(retry.requestId, meta.now);
    if (!pending) return unknownRequest();
    const mismatch = retryMismatch(pending, retry);
    if (mismatch) return mismatch;
    const effect = JSON.parse(pending.effect) as Effect;
    let signerKey: string | undefined;
    if (stamp?.ok) {
      const verified = await verifyStamp(stamp.stamp, pending.payload);
      if (!verified.ok) return fail(verified.code, 'Service-Wallet-Signature does not verify over payloadToSign');
      const signer = this.store.activeSessionByKey(verified.publicKey, meta.now);
      if (!signer) return fail('WALLET_SIGNATURE_INVALID', 'The signing key is not an active session of this account');
      const refused = signerRefused(signer, effect);
      if (refused) return refused;
      signerKey = signer.public_key;
    }
    const prepared = await this.prepare(effect, meta, retry.reservedId);
    return this.transaction(() => {
      // Re-checked inside the transaction: only one of many concurrent retries gets here with it unused.
      if (!this.store.pending(retry.requestId, meta.now)) return unknownRequest();
      if (signerKey && !this.store.activeSessionByKey(signerKey, meta.now)) {
        return fail('WALLET_SIGNATURE_INVALID', 'The signing session is no longer active');
      }
      const applied = applyEffect(this.store, this.accountId(), effect, prepared, meta.now);
      if (!applied.ok) return applied;
      this.store.usePending(retry.requestId, meta.now);
      this.purge(meta.now);
      return { ok: true as const, result: applied.result };
    });
  }

  /** The awaited work an effect needs (sealing; the id the caller reserved), done before the atomic section. */
  private async prepare(effect: Effect, meta: AccountMeta, reservedId: string | undefined): Promise<Prepared> {
    const reserved = () => {
      if (!reservedId) throw new Error(`${effect.kind} needs an id reserved by the caller`);
      return reservedId;
    };
    if (effect.kind === 'refreshSession') return { session: await prepareSession(effect.clientPublicKey, reserved()) };
    if (effect.kind === 'addCredential') return { credentialId: reserved() };
    if (effect.kind === 'exportWallet') {
      const key = await atRestKey(this.env.WALLET_ENCRYPTION_KEY);
      if (!key.ok) throw new Error(key.reason);
      const secret = await decryptAtRest(key.key, this.meta()!.wallet_secret, meta.accountId);
      if (!secret.ok) throw new Error(secret.reason);
      return { sealed: await sealToClient(effect.clientPublicKey, secret.plaintext) };
    }
    return {};
  }

  // --- EMAIL_OTP ---

  /** Issues a fresh code (replacing any earlier one) under the re-issue rate limit; the caller e-mails it. */
  async issueOtp(
    meta: AccountMeta,
    credentialId: string,
    config: { otpLength: number; alphanumeric: boolean; expirationSeconds: number },
  ): Promise<Outcome<{ otp: string; credential: AuthMethodView }>> {
    await this.ensure(meta);
    return this.transaction(() => {
      const credential = this.store.credential(credentialId);
      if (!credential || credential.type !== 'EMAIL_OTP') return fail('CREDENTIAL_NOT_FOUND', 'Credential not found');
      const refused =
        this.otpLocked(credentialId, meta.now) ?? sendRefused(this.store.otpSendsSince(credentialId, meta.now - OTP_WINDOW_MS), meta.now);
      if (refused) return refused;
      const otp = generateOtp(config.otpLength, config.alphanumeric);
      const salt = newOtpSalt();
      this.store.replaceOtpCode(credentialId, hashOtp(otp, salt), salt, meta.now + config.expirationSeconds * 1000);
      this.store.recordOtpSend(credentialId, meta.now, meta.now - OTP_WINDOW_MS);
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
    const refused = this.transaction(() => this.otpRefused(input, meta.now));
    if (refused) return refused;
    const prepared = await prepareSession(input.clientPublicKey, input.sessionId);
    return this.transaction(() => {
      // Again inside the transaction: a concurrent verify may have used the code meanwhile.
      const late = this.otpRefused(input, meta.now);
      if (late) return late;
      this.store.deleteOtpCode(input.credentialId);
      return { ok: true as const, session: this.startSession(this.store.credential(input.credentialId)!, prepared, meta.now, input.ttlMs) };
    });
  }

  /** Why `input.otp` does not open this EMAIL_OTP credential now (a wrong code counts an attempt), or null. */
  private otpRefused(input: { credentialId: string; otp: string; sandbox: boolean }, now: number): Failure | null {
    const credential = credentialOfType(this.store.credential(input.credentialId), 'EMAIL_OTP');
    if (isFailure(credential)) return credential;
    const locked = this.otpLocked(input.credentialId, now);
    if (locked) return locked;
    if (input.sandbox && input.otp === SANDBOX_OTP.value) return null;
    const answer = checkCode(this.store.otpCode(input.credentialId), input.otp, now);
    if (answer === 'ok') return null;
    if (answer === 'wrong') this.store.recordOtpFailure(input.credentialId, now, now - OTP_DAY_MS);
    return fail('UNAUTHORIZED', SANDBOX_OTP.refusal, SANDBOX_OTP.refusal);
  }

  private otpLocked(credentialId: string, now: number): Failure | null {
    return dayLocked(this.store.nthRecentOtpFailure(credentialId, now - OTP_DAY_MS, OTP_DAY_MAX_FAILURES), now);
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
    const prepared = await prepareSession(input.clientPublicKey, input.sessionId);
    return this.transaction(() => {
      const late = this.oauthRefused(input);
      if (late) return late;
      return { ok: true as const, session: this.startSession(this.store.credential(input.credentialId)!, prepared, meta.now, input.ttlMs) };
    });
  }

  private oauthRefused(input: { credentialId: string; identity: OidcIdentity }): Failure | null {
    const credential = credentialOfType(this.store.credential(input.credentialId), 'OAUTH');
    if (isFailure(credential)) return credential;
    const { iss, aud, sub } = input.identity;
    if (credential.oidc_iss !== iss || credential.oidc_aud !== aud || credential.oidc_sub !== sub) {
      const reason = 'OIDC token identity (iss, aud, sub) does not match the credential';
      return fail('UNAUTHORIZED', reason, reason);
    }
    return null;
  }

  // --- PASSKEY ---

  /** A fresh WebAuthn challenge bound to `clientPublicKey`, answered by verify with `Request-Id`. */
  async passkeyChallenge(
    meta: AccountMeta,
    input: { credentialId: string; clientPublicKey: string },
  ): Promise<Outcome<{ credential: AuthMethodView; challenge: string; requestId: string; expiresAt: number }>> {
    await this.ensure(meta);
    const credential = this.store.credential(input.credentialId);
    if (!credential || credential.type !== 'PASSKEY') return fail('CREDENTIAL_NOT_FOUND', 'Credential not found');
    const challenge = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
    const requestId = newId('Request', meta.now);
    const expiresAt = meta.now + CHALLENGE_TTL_MS;
    this.store.insertPasskeyChallenge(requestId, input.credentialId, challenge, input.clientPublicKey, expiresAt);
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
    const credential = credentialOfType(this.store.credential(input.credentialId), 'PASSKEY');
    if (isFailure(credential)) return credential;
    const challenge = this.store.passkeyChallenge(input.requestId, input.credentialId, meta.now);
    if (!challenge) return unknownChallenge();
    const checked = await checkAssertion(credential, challenge.challenge, input.assertion, input.rp, input.sandbox);
    if (!checked.ok) return checked;
    const prepared = await prepareSession(challenge.client_public_key, input.sessionId);
    return this.transaction(() => {
      if (!this.store.passkeyChallenge(input.requestId, input.credentialId, meta.now)) return unknownChallenge();
      this.store.usePasskeyChallenge(input.requestId, meta.now);
      this.store.setPasskeyCounter(input.credentialId, checked.counter);
      return { ok: true as const, session: this.startSession(credential, prepared, meta.now, input.ttlMs) };
    });
  }

  // --- whole state (sandbox snapshots) ---

  /** Everything the object stores, as rows per table (a sandbox snapshot's copy). */
  async exportState(): Promise<StoreState> {
    return this.store.exportState();
  }

  /** Puts back exactly `state` (from `exportState`), or empties the object (`{}`), atomically. */
  async importState(state: StoreState): Promise<void> {
    this.transaction(() => this.store.importState(state));
    // The cached meta row may be another state's (or gone): read it again on next use.
    this.metaRow = undefined;
    this.lastPurge = 0;
  }

  // --- setup and helpers ---

  /**
   * First use of the account: records who it belongs to, creates its wallet secret (encrypted at rest)
   * and the EMAIL_OTP credential bound to the customer e-mail. Idempotent.
   */
  private async ensure(meta: AccountMeta): Promise<void> {
    if (this.meta()) return;
    const key = await atRestKey(this.env.WALLET_ENCRYPTION_KEY);
    if (!key.ok) throw new Error(key.reason);
    const secret = await encryptAtRest(key.key, crypto.getRandomValues(new Uint8Array(32)), meta.accountId);
    this.transaction(() => {
      if (this.meta()) return;
      this.store.insertMeta(meta.accountId, meta.platformId, secret);
      // Its id was indexed by the Worker when it created the account (newAccountIndexRows in service.ts).
      if (meta.email)
        this.store.insertCredential(
          credentialRow(firstCredentialId(meta.accountId), { type: 'EMAIL_OTP', nickname: meta.email }, meta.now),
        );
    });
  }

  private meta(): { account_id: string; wallet_secret: string } | undefined {
    // Written once (ensure) and never changed: read from storage until it exists, then kept in memory.
    this.metaRow ??= this.store.meta();
    return this.metaRow;
  }

  private accountId(): string {
    return this.meta()!.account_id;
  }

  private transaction<T>(fn: () => T): T {
    return this.ctx.storage.transactionSync(fn);
  }

  private credentialView(row: CredentialRow): AuthMethodView {
    return credentialView(this.accountId(), row);
  }

  private startSession(credential: CredentialRow, prepared: PreparedSession, now: number, ttlMs: number): SessionView {
    const row = sessionRow(credential, prepared, now, ttlMs);
    this.store.insertSession(row);
    this.purge(now);
    return { ...sessionView(this.accountId(), row), encryptedSessionSigningKey: prepared.sealed };
  }

  /** Drops sessions and challenges dead for a day; at most once per interval, since it scans whole tables. */
  private purge(now: number): void {
    if (Math.abs(now - this.lastPurge) < PURGE_INTERVAL_MS) return;
    this.lastPurge = now;
    this.store.purge(now - PURGE_AFTER_MS);
  }
}
