// The rules of a signed retry: the payload a client signs, what makes a retry the same request,
// who may sign which effect, and how each effect changes the account once every check has passed.
import { credentialRow, credentialView, conflictOf } from './credential-rules';
import { sessionRow, type PreparedSession } from './session-rules';
import type { AccountStore, PendingRow, SessionRow } from './account-store';
import { fail, type ChallengeSpec, type Effect, type EffectResult, type Failure, type Outcome, type SessionView } from './account-protocol';
import { sessionView } from './credential-rules';

/** The bytes the client signs: built once at the challenge, stored verbatim. */
export function challengePayload(spec: ChallengeSpec, accountId: string, now: number): string {
  return JSON.stringify({
    type: spec.activity,
    organizationId: accountId,
    parameters: { ...spec.parameters, bodyHash: spec.bodyHash },
    timestampMs: String(now),
  });
}

export interface Retry {
  operation: string;
  method: string;
  path: string;
  bodyHash: string;
}

/** A retry must be the request that was challenged: same operation, method, path and body. */
export function retryMismatch(pending: PendingRow, retry: Retry): Failure | null {
  const same =
    pending.operation === retry.operation &&
    pending.method === retry.method &&
    pending.path === retry.path &&
    pending.body_hash === retry.bodyHash;
  return same
    ? null
    : fail(
        'WALLET_SIGNATURE_BODY_MISMATCH',
        'The signed retry is not the same request as the one challenged (method, path or body differ)',
      );
}

/** Who may sign: a different credential for a credential's revocation; the session itself for its refresh. */
export function signerRefused(signer: SessionRow, effect: Effect): Failure | null {
  if (effect.kind === 'revokeCredential' && signer.credential_id === effect.credentialId) {
    return fail('WALLET_SIGNATURE_INVALID', 'A credential cannot authorise its own revocation: sign with a session of another credential');
  }
  if (effect.kind === 'refreshSession' && signer.id !== effect.sessionId) {
    return fail('WALLET_SIGNATURE_INVALID', 'A refresh must be signed with the session being refreshed');
  }
  return null;
}

/** Work done before the atomic section: reserved ids, sealed material. */
export interface Prepared {
  credentialId?: string;
  session?: PreparedSession;
  sealed?: string;
}

/** Applies an effect whose retry passed every check; runs inside the storage transaction. */
export function applyEffect(
  store: AccountStore,
  accountId: string,
  effect: Effect,
  prepared: Prepared,
  now: number,
): Outcome<{ result: EffectResult }> {
  switch (effect.kind) {
    case 'none':
      return { ok: true, result: { kind: 'none' } };
    case 'addCredential': {
      const conflict = conflictOf(effect.credential, store);
      if (conflict) return conflict;
      const row = credentialRow(prepared.credentialId!, effect.credential, now);
      store.insertCredential(row);
      return { ok: true, result: { kind: 'credential', credential: credentialView(accountId, row) } };
    }
    case 'revokeCredential': {
      if (!store.credential(effect.credentialId)) return fail('CREDENTIAL_NOT_FOUND', 'Credential not found');
      if (store.credentialCount() <= 1) return fail('INVALID_INPUT', 'The only credential of an account cannot be revoked');
      // Every active session the credential issued goes with it, in the same transaction.
      store.deleteCredential(effect.credentialId, now);
      return { ok: true, result: { kind: 'none' } };
    }
    case 'revokeSession': {
      if (!store.activeSession(effect.sessionId, now)) return fail('SESSION_NOT_FOUND', 'Session not found');
      store.revokeSession(effect.sessionId, now);
      return { ok: true, result: { kind: 'none' } };
    }
    case 'refreshSession': {
      const old = store.activeSession(effect.sessionId, now);
      const credential = old && store.credential(old.credential_id);
      if (!credential) return fail('SESSION_NOT_FOUND', 'Session not found or no longer active');
      const row = sessionRow(credential, prepared.session!, now, effect.ttlMs);
      store.insertSession(row);
      const session: SessionView = { ...sessionView(accountId, row), encryptedSessionSigningKey: prepared.session!.sealed };
      return { ok: true, result: { kind: 'session', session } };
    }
    case 'exportWallet':
      return { ok: true, result: { kind: 'export', encryptedWalletCredentials: prepared.sealed! } };
    case 'updateEmail':
      // A code sent to the old address must not open the account any more.
      store.setEmail(effect.email, now);
      return { ok: true, result: { kind: 'none' } };
  }
}
