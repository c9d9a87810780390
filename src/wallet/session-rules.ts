// Sessions: a fresh P-256 key pair per session, its private key sealed to the client's key and dropped;
// a lifetime from the platform's settings; dead sessions and challenges purged after a day.
import { sealToClient } from '../crypto/hpke';
import { generateSessionKeyPair } from '../crypto/p256';
import type { CredentialRow, SessionRow } from './account-store';

/** Expired sessions and challenges are purged at most this often per object (a purge scans its tables). */
export const PURGE_INTERVAL_MS = 60_000;
/** How long a dead session or challenge is kept. */
export const PURGE_AFTER_MS = 86_400_000;

export interface PreparedSession {
  id: string;
  publicKey: string;
  sealed: string;
}

/** Session `id` (already in the id index) with a fresh key pair, its private key sealed to the client and then dropped. */
export async function prepareSession(clientPublicKey: string, id: string): Promise<PreparedSession> {
  const pair = await generateSessionKeyPair();
  const sealed = await sealToClient(clientPublicKey, pair.privateKey);
  pair.privateKey.fill(0);
  return { id, publicKey: pair.publicKey, sealed };
}

export function sessionRow(credential: CredentialRow, prepared: PreparedSession, now: number, ttlMs: number): SessionRow {
  return {
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
}
