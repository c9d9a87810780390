// The embedded-wallet schemas: credentials, sessions, challenges, export, signature headers, sandbox e-mails.
import * as z from 'zod';
import { AuthMethodType } from '../db/enums';
import { DateTime } from '../common/time';
import { parseClientPublicKey } from '../crypto/p256';

/** Uncompressed P-256 point in hex, and really on the curve. */
const ClientPublicKey = z
  .string()
  .regex(/^04[0-9a-fA-F]{128}$/, 'Must be an uncompressed P-256 public key: 04 followed by 128 hex characters')
  .refine((k) => parseClientPublicKey(k).ok, 'Not a point on P-256')
  .meta({ description: 'Ephemeral client P-256 public key, uncompressed SEC1 hex', example: `04${'ab'.repeat(64)}` });

const Base64Url = z
  .string()
  .min(1)
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'Must be base64url');

export const AuthMethod = z
  .object({
    id: z.string().meta({ example: 'AuthMethod:019542f5-b3e7-1d02-0000-000000000001' }),
    accountId: z.string(),
    type: AuthMethodType,
    nickname: z.string(),
    credentialId: z.string().optional().meta({ description: 'PASSKEY only: base64url WebAuthn credential id' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'AuthMethod' });

export const AuthSession = AuthMethod.extend({
  id: z.string().meta({ example: 'Session:019542f5-b3e7-1d02-0000-000000000003' }),
  expiresAt: DateTime,
  encryptedSessionSigningKey: z
    .string()
    .optional()
    .meta({ description: 'Only on verify and refresh: HPKE bundle sealed to clientPublicKey' }),
}).meta({ id: 'AuthSession' });

export const SignedRequestChallenge = z
  .object({ payloadToSign: z.string(), requestId: z.string(), expiresAt: DateTime })
  .meta({ id: 'SignedRequestChallenge' });

export const AuthSignedRequestChallenge = SignedRequestChallenge.extend({ type: AuthMethodType }).meta({
  id: 'AuthSignedRequestChallenge',
});

export const PasskeyAuthChallenge = AuthMethod.extend({
  credentialId: z.string(),
  challenge: z.string(),
  requestId: z.string(),
  expiresAt: DateTime,
}).meta({ id: 'PasskeyAuthChallenge' });

const AccountId = z.string().min(1).max(128);

export const CredentialCreate = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('EMAIL_OTP'), accountId: AccountId }),
    z.object({ type: z.literal('OAUTH'), accountId: AccountId, oidcToken: z.string().min(1).max(16_384) }),
    z.object({
      type: z.literal('PASSKEY'),
      accountId: AccountId,
      nickname: z.string().trim().min(1).max(255),
      challenge: Base64Url,
      attestation: z.object({
        credentialId: Base64Url,
        clientDataJson: Base64Url,
        attestationObject: Base64Url,
        transports: z.array(z.string().max(32)).max(10).optional(),
      }),
    }),
  ])
  .meta({ id: 'AuthCredentialCreateRequest' });
export type CredentialCreate = z.infer<typeof CredentialCreate>;

export const CredentialVerify = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('EMAIL_OTP'), otp: z.string().min(1).max(64), clientPublicKey: ClientPublicKey }),
    z.object({ type: z.literal('OAUTH'), oidcToken: z.string().min(1).max(16_384), clientPublicKey: ClientPublicKey }),
    z.object({
      type: z.literal('PASSKEY'),
      assertion: z.object({
        credentialId: Base64Url,
        clientDataJson: Base64Url,
        authenticatorData: Base64Url,
        // Base64url in production; the sandbox magic value also passes.
        signature: z.string().min(1).max(16_384),
        userHandle: z.string().max(1024).optional(),
      }),
    }),
  ])
  .meta({ id: 'AuthCredentialVerifyRequest' });
export type CredentialVerify = z.infer<typeof CredentialVerify>;

export const ChallengeRequest = z
  .object({ clientPublicKey: ClientPublicKey.optional() })
  .optional()
  .meta({ id: 'AuthCredentialChallengeRequest' });
export const ClientKeyRequest = z.object({ clientPublicKey: ClientPublicKey });

export const AccountIdQuery = z.object({ accountId: AccountId });
export const IdParams = z.object({ id: z.string() });

export const CredentialList = z.object({ data: z.array(AuthMethod) }).meta({ id: 'AuthCredentialListResponse' });
export const SessionList = z.object({ data: z.array(AuthSession) }).meta({ id: 'SessionListResponse' });

export const ExportResponse = z
  .object({ id: z.string(), encryptedWalletCredentials: z.string() })
  .meta({ id: 'InternalAccountExportResponse' });

export const SIGNATURE_HEADERS = {
  'Service-Wallet-Signature': { description: 'Signed retry: the API-key stamp over payloadToSign' },
  'Request-Id': { description: 'Signed retry: the requestId of the 202 challenge' },
};

/** A message of the sandbox outbox (GET /sandbox/emails). */
export const SandboxEmail = z
  .object({ id: z.string(), to: z.string(), from: z.string(), subject: z.string(), text: z.string(), createdAt: DateTime })
  .meta({ id: 'SandboxEmail' });
