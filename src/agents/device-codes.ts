// Device codes: one made for an agent, its status, and its one redemption for the agent's bearer token.
import { and, eq, gt, isNull, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import { agentDeviceCodes, agents, agentTokens, platforms, type Permission } from '../db/schema';
import { newId } from '../crypto/ids';
import { hashSecret, randomToken } from '../crypto/secrets';
import { iso } from '../common/time';
import { issuedIn } from '../db/homes';
import { badRequest, notFound, platformMoving } from '../http/errors';
import { requireHeld } from '../platform/tokens-service';
import { policyNeeds } from './grants';

const DEVICE_CODE_TTL_MS = 10 * 60_000;
// No 0/O, 1/I/L: codes are read off one screen and typed into another.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function deviceCode() {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const chars = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** A code carries its issuer's permissions: redeeming checks them against the agent's policy of that moment. */
export function newDeviceCode(agentId: string, platformId: string, home: string, issuerPermissions: Permission[], now: number) {
  const code = issuedIn(deviceCode(), home);
  const row = {
    codeHash: hashSecret(code),
    agentId,
    platformId,
    expiresAt: now + DEVICE_CODE_TTL_MS,
    redeemedAt: null,
    issuerPermissions,
    createdAt: now,
  };
  return { row, view: { code, agentId, expiresAt: iso(row.expiresAt), redeemed: false } };
}

const codeNotFound = () => notFound('DEVICE_CODE_NOT_FOUND', 'Device code not found');

/** GET /agents/device-codes/{code}/status as a load (`platformId` SQL: see `RouteSpec.load`); the code is looked up by its hash. */
export function deviceCodeLoads(db: Db, platformId: SQL, code: string) {
  return {
    deviceCode: db
      .select()
      .from(agentDeviceCodes)
      .where(and(eq(agentDeviceCodes.codeHash, hashSecret(code.toUpperCase())), eq(agentDeviceCodes.platformId, platformId)))
      .limit(1),
  };
}

export function deviceCodeStatusFrom(code: string, loaded: Loaded<ReturnType<typeof deviceCodeLoads>>) {
  const row = loaded.deviceCode[0];
  if (!row) throw codeNotFound();
  return { code: code.toUpperCase(), redeemed: row.redeemedAt !== null };
}

/**
 * Redeems a device code once (a conditional update decides the one winner) and returns the agent's bearer
 * token, shown only here. Earlier tokens of the agent are revoked: one installation at a time.
 */
export async function redeemDeviceCode(db: Db, home: string, code: string, realNow: number) {
  const codeHash = hashSecret(code.toUpperCase());
  // No credentials name the platform here: its sandbox clock comes with the code.
  const [found] = await db
    .select({
      offset: platforms.clockOffsetMs,
      held: platforms.heldSince,
      issuerPermissions: agentDeviceCodes.issuerPermissions,
      policy: agents.policy,
    })
    .from(agentDeviceCodes)
    .innerJoin(platforms, eq(platforms.id, agentDeviceCodes.platformId))
    .innerJoin(agents, eq(agents.id, agentDeviceCodes.agentId))
    .where(eq(agentDeviceCodes.codeHash, codeHash));
  if (!found) throw codeNotFound();
  if (found.held !== null) throw platformMoving();
  // The policy may have widened since the code was issued: its issuer must hold what the agent now exercises.
  // Refused before the code is spent, so it works again if the policy narrows.
  requireHeld(
    found.issuerPermissions,
    policyNeeds(found.policy),
    "The device code's issuer lacks permissions the agent's policy now needs",
  );
  const now = realNow + found.offset;
  const [won] = await db
    .update(agentDeviceCodes)
    .set({ redeemedAt: now })
    .where(and(eq(agentDeviceCodes.codeHash, codeHash), isNull(agentDeviceCodes.redeemedAt), gt(agentDeviceCodes.expiresAt, now)))
    .returning();
  if (!won) throw badRequest('This device code has expired or was already redeemed');
  const agent = await db.query.agents.findFirst({ where: and(eq(agents.id, won.agentId), isNull(agents.deletedAt)) });
  if (!agent) throw codeNotFound();
  const accessToken = issuedIn(`agt_${randomToken(32)}`, home);
  await db.batch([
    db
      .update(agentTokens)
      .set({ revokedAt: now })
      .where(and(eq(agentTokens.agentId, agent.id), isNull(agentTokens.revokedAt))),
    db.insert(agentTokens).values({
      id: newId('AgentToken', now),
      agentId: agent.id,
      platformId: agent.platformId,
      tokenHash: hashSecret(accessToken),
      revokedAt: null,
      createdAt: now,
    }),
    db.update(agents).set({ isConnected: true, updatedAt: now }).where(eq(agents.id, agent.id)),
  ]);
  return { agentId: agent.id, agentName: agent.name, accessToken, policy: agent.policy };
}
