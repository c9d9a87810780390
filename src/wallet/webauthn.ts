// WebAuthn passkeys: registration and assertion checked for a relying party.
import { verifyAuthenticationResponse, verifyRegistrationResponse, type WebAuthnCredential } from '@simplewebauthn/server';

/** The `attestation` of a PASSKEY create (WebAuthn `clientDataJSON` is spelled `clientDataJson`). */
interface PasskeyAttestation {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports?: string[];
}

/** The `assertion` of a PASSKEY verify. */
export interface PasskeyAssertion {
  credentialId: string;
  clientDataJson: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
}

/** Where ceremonies may run: `settings().webauthn`. */
export interface RelyingParty {
  rpId: string;
  origins: string[];
}

/** What a PASSKEY credential stores after registration. */
export interface StoredPasskey {
  /** Base64url raw credential id. */
  credentialId: string;
  /** COSE-encoded public key. */
  publicKey: Uint8Array;
  /** Last signature counter seen (0 for authenticators that do not count). */
  counter: number;
  transports?: string[];
}

type PasskeyFailure = { ok: false; code: 'PASSKEY_INVALID'; reason: string };
type RegistrationResult = ({ ok: true } & StoredPasskey) | PasskeyFailure;
type AssertionResult = { ok: true; credentialId: string; counter: number } | PasskeyFailure;

const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

// userVerification defaults to 'preferred' in browsers, so presence is required and verification is not.
const REQUIRE_USER_VERIFICATION = false;

/**
 * Verifies a passkey registration relayed by the platform's backend: the attestation must answer
 * `challenge` (the backend's own registration challenge) on one of the origins for the RP id.
 */
export async function verifyPasskeyRegistration(
  input: { challenge: string; attestation: PasskeyAttestation },
  rp: RelyingParty,
): Promise<RegistrationResult> {
  const { challenge, attestation } = input;
  const transports = (attestation.transports ?? []).filter((t) => TRANSPORTS.has(t));
  try {
    const result = await verifyRegistrationResponse({
      response: {
        id: attestation.credentialId,
        rawId: attestation.credentialId,
        type: 'public-key',
        response: { clientDataJSON: attestation.clientDataJson, attestationObject: attestation.attestationObject, transports },
        clientExtensionResults: {},
      },
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      requireUserVerification: REQUIRE_USER_VERIFICATION,
    });
    if (!result.verified) return fail('passkey attestation does not verify');
    const { credential } = result.registrationInfo;
    if (credential.id !== attestation.credentialId) return fail('attestation.credentialId is not the id in the attestation object');
    return { ok: true, credentialId: credential.id, publicKey: credential.publicKey, counter: credential.counter, transports };
  } catch (e) {
    return fail(reasonOf(e));
  }
}

/**
 * Verifies a passkey assertion against the stored credential: `expectedChallenge` (issued by the challenge
 * call), origin, RP id, signature and the counter rule (a counting authenticator must move forward, which
 * exposes a cloned key). On success store the returned `counter`.
 */
export async function verifyPasskeyAssertion(
  input: { assertion: PasskeyAssertion; expectedChallenge: string; credential: StoredPasskey },
  rp: RelyingParty,
): Promise<AssertionResult> {
  const { assertion, expectedChallenge, credential } = input;
  if (assertion.credentialId !== credential.credentialId) return fail('assertion.credentialId is not this credential');
  const stored: WebAuthnCredential = {
    id: credential.credentialId,
    publicKey: credential.publicKey as WebAuthnCredential['publicKey'],
    counter: credential.counter,
    transports: credential.transports,
  };
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: assertion.credentialId,
        rawId: assertion.credentialId,
        type: 'public-key',
        response: {
          clientDataJSON: assertion.clientDataJson,
          authenticatorData: assertion.authenticatorData,
          signature: assertion.signature,
          ...(assertion.userHandle !== undefined ? { userHandle: assertion.userHandle } : {}),
        },
        clientExtensionResults: {},
      },
      expectedChallenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.rpId,
      credential: stored,
      requireUserVerification: REQUIRE_USER_VERIFICATION,
    });
    // A forged signature comes back as verified: false, not as an exception.
    if (!result.verified) return fail('passkey signature does not verify');
    const counter = result.authenticationInfo.newCounter;
    // The library applies this rule too; it is restated because replay protection must not hinge on a dependency.
    if ((counter > 0 || credential.counter > 0) && counter <= credential.counter) return fail('passkey signature counter did not increase');
    return { ok: true, credentialId: credential.credentialId, counter };
  } catch (e) {
    return fail(reasonOf(e));
  }
}

function fail(reason: string): PasskeyFailure {
  return { ok: false, code: 'PASSKEY_INVALID', reason };
}

function reasonOf(e: unknown): string {
  return e instanceof Error ? e.message : 'passkey response could not be verified';
}
