// A new credential's proof (OIDC token, passkey registration), the relying party, and its signed-retry binding.
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Settings } from '../env';
import { ApiError, badRequest } from '../http/errors';
import type { Ctx } from '../http/route';
import { platforms } from '../db/schema';
import { WALLET_DEFAULTS } from '../platform/schema';
import { eq } from 'drizzle-orm';
import { verifyOidcToken, type OidcIdentity } from './oidc';
import { verifyPasskeyRegistration, type RelyingParty } from './webauthn';
import { emailSender, otpEmail } from './email';
import { otpEmailSlot } from './otp-address-cap';
import { failure, metaOf, type Wallet } from './service';
import type { SignedOperation } from './signed-retry';
import type { CredentialCreate } from './schema';
import type { NewCredential } from './account-protocol';

/** Checks a new credential's proof (OIDC token, WebAuthn registration) and returns what the account stores. */
export async function newCredential(c: Ctx, wallet: Wallet, body: CredentialCreate): Promise<NewCredential> {
  switch (body.type) {
    case 'EMAIL_OTP':
      if (!wallet.email) throw badRequest('The customer has no e-mail address for an EMAIL_OTP credential');
      return { type: 'EMAIL_OTP', nickname: wallet.email };
    case 'OAUTH': {
      const { identity, email } = await checkOidc(c.settings, body.oidcToken, c.now);
      return { type: 'OAUTH', nickname: email ?? identity.sub, identity };
    }
    case 'PASSKEY': {
      const registered = await verifyPasskeyRegistration(
        { challenge: body.challenge, attestation: body.attestation },
        relyingParty(c.settings),
      );
      if (!registered.ok)
        throw badRequest(`Passkey registration rejected: ${registered.reason}`, {
          fields: [{ field: 'attestation', message: registered.reason }],
        });
      const { credentialId, publicKey, counter, transports } = registered;
      return {
        type: 'PASSKEY',
        nickname: body.nickname,
        passkey: { credentialId, publicKeyHex: bytesToHex(publicKey), counter, transports },
      };
    }
  }
}

/** The passkey relying party; 503 SERVICE_NOT_CONFIGURED in production until WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS are set. */
export function relyingParty(settings: Settings): RelyingParty {
  if (settings.webauthn) return settings.webauthn;
  throw new ApiError('SERVICE_NOT_CONFIGURED', 'Passkeys are not configured on this service: set WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS', {
    settings: ['WEBAUTHN_RP_ID', 'WEBAUTHN_ORIGINS'],
  });
}

/** Validates an OIDC token: malformed is 400, a failed check 401 with the reason. */
export async function checkOidc(settings: Settings, token: string, now: number, clientPublicKey?: string) {
  const result = await verifyOidcToken(token, { mode: settings.mode, issuers: settings.oidcIssuers, now, clientPublicKey });
  if (result.ok) return result;
  if (result.code === 'OIDC_TOKEN_MALFORMED') throw badRequest(result.reason, { fields: [{ field: 'oidcToken', message: result.reason }] });
  if (result.code === 'OIDC_KEYS_UNAVAILABLE') throw new ApiError('INTERNAL_ERROR', result.reason);
  throw new ApiError('UNAUTHORIZED', result.reason, { reason: result.reason }, undefined, result.reason);
}

/** The step-1 binding of adding `credential` (the challenge's `type` is the type being added). */
export function addCredentialOperation(credential: NewCredential): SignedOperation {
  const parameters: Record<string, Record<string, unknown>> = {
    EMAIL_OTP: { userEmail: credential.nickname },
    OAUTH: credential.type === 'OAUTH' ? { oauthProviders: [{ issuer: credential.identity.iss, subject: credential.identity.sub }] } : {},
    PASSKEY:
      credential.type === 'PASSKEY'
        ? { authenticators: [{ authenticatorName: credential.nickname, credentialId: credential.passkey.credentialId }] }
        : {},
  };
  const activity = {
    EMAIL_OTP: 'ACTIVITY_TYPE_CREATE_EMAIL_AUTH',
    OAUTH: 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS',
    PASSKEY: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
  }[credential.type];
  return { activity, parameters: parameters[credential.type]!, effect: { kind: 'addCredential', credential }, type: credential.type };
}

/**
 * Issues an OTP for an EMAIL_OTP credential under the re-issue limits and e-mails it, with the
 * platform's length, alphabet and validity. A refusal by a limit is 429 with `Retry-After`: the address's cap
 * (across the platform's customers) is taken first, so a refused request changes nothing in the account.
 */
export async function sendOtp(c: Ctx, wallet: Wallet, credential: { id: string; nickname: string }) {
  const slot = otpEmailSlot(c.db, wallet.platformId, credential.nickname, c.now);
  // The platform's settings ride on the slot's round trip.
  const [configRows, , , counted] = await c.db.batch([
    c.db.select({ config: platforms.embeddedWalletConfig }).from(platforms).where(eq(platforms.id, wallet.platformId)),
    ...slot.statements,
  ]);
  const refused = slot.refusal(counted);
  if (refused) throw refused;
  const config = { ...WALLET_DEFAULTS, ...configRows[0]?.config };
  const issued = await wallet.stub.issueOtp(metaOf(wallet, c.now), credential.id, config);
  if (!issued.ok) {
    await slot.release();
    throw failure(issued);
  }
  await emailSender(c.settings, c.db).send(
    otpEmail(wallet.platformId, issued.credential.nickname, issued.otp, config.expirationSeconds, config),
    c.now,
  );
  return issued.credential;
}

export type { OidcIdentity };
