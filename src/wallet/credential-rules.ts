// The rules of an account's credentials: what a new one may not duplicate, which type a verify
// must name, a passkey assertion's check, and the rows and views they are stored and shown as.
import { hexToBytes } from '@noble/hashes/utils.js';
import type { AccountStore, CredentialRow, SessionRow } from './account-store';
import { fail, type AuthMethodView, type Failure, type NewCredential, type Outcome, type SessionView } from './account-protocol';
import { verifyPasskeyAssertion, type PasskeyAssertion, type RelyingParty } from './webauthn';
import { WALLET_SANDBOX_VALUES } from './sandbox-values';

/** The passkey signature the sandbox accepts without a real authenticator. */
const SANDBOX_PASSKEY = WALLET_SANDBOX_VALUES.passkeySignature;

/** A verify body of another credential type than the credential's (400, naming the `type` field). */
const typeMismatch = (actual: string, sent: string): Failure => ({
  ...fail('INVALID_INPUT', `This credential is ${actual}, not ${sent}`),
  fields: [{ field: 'type', message: `Must be ${actual}` }],
});

export const isFailure = (x: CredentialRow | Failure): x is Failure => x.ok === false;

/** Credential `row` if it exists and is of `type`; otherwise the refusal (404, or 400 for another type). */
export function credentialOfType(row: CredentialRow | undefined, type: CredentialRow['type']): CredentialRow | Failure {
  if (!row) return fail('CREDENTIAL_NOT_FOUND', 'Credential not found');
  return row.type === type ? row : typeMismatch(row.type, type);
}

/** The existing credential `c` would duplicate, as a refusal: one EMAIL_OTP, one per passkey, one per OIDC identity. */
export function conflictOf(c: NewCredential, store: AccountStore): Failure | null {
  if (c.type === 'EMAIL_OTP' && store.hasEmailOtpCredential()) {
    return fail('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', 'This account already has an EMAIL_OTP credential');
  }
  if (c.type === 'PASSKEY' && store.hasPasskey(c.passkey.credentialId)) {
    return fail('PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'This passkey is already registered');
  }
  if (c.type === 'OAUTH' && store.hasOidcIdentity(c.identity.iss, c.identity.aud, c.identity.sub)) {
    return fail('CONFLICT', 'An OAUTH credential for this provider identity already exists');
  }
  return null;
}

export function credentialRow(id: string, c: NewCredential, now: number): CredentialRow {
  return {
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
}

export function credentialView(accountId: string, r: CredentialRow): AuthMethodView {
  const view: AuthMethodView = {
    id: r.id,
    accountId,
    type: r.type,
    nickname: r.nickname,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.webauthn_id) view.credentialId = r.webauthn_id;
  return view;
}

export function sessionView(accountId: string, s: SessionRow): SessionView {
  const view: SessionView = {
    id: s.id,
    accountId,
    type: s.type,
    nickname: s.nickname,
    createdAt: s.created_at,
    updatedAt: s.created_at,
    expiresAt: s.expires_at,
  };
  if (s.webauthn_id) view.credentialId = s.webauthn_id;
  return view;
}

/** A passkey assertion over `expectedChallenge` checked against the stored credential: its new signature counter, or the refusal. */
export async function checkAssertion(
  credential: CredentialRow,
  expectedChallenge: string,
  assertion: PasskeyAssertion,
  rp: RelyingParty,
  sandbox: boolean,
): Promise<Outcome<{ counter: number }>> {
  if (sandbox && assertion.signature === SANDBOX_PASSKEY.value) return { ok: true, counter: credential.counter };
  const verified = await verifyPasskeyAssertion(
    {
      assertion,
      expectedChallenge,
      credential: {
        credentialId: credential.webauthn_id!,
        publicKey: hexToBytes(credential.passkey_public_key!),
        counter: credential.counter,
        transports: JSON.parse(credential.transports ?? '[]'),
      },
    },
    rp,
  );
  if (verified.ok) return { ok: true, counter: verified.counter };
  return sandbox
    ? fail('UNAUTHORIZED', SANDBOX_PASSKEY.refusal, SANDBOX_PASSKEY.refusal)
    : fail('UNAUTHORIZED', `Passkey assertion rejected: ${verified.reason}`);
}
