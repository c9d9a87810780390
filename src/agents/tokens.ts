// An agent's bearer token looked up with its agent and platform (authentication), alone or with a route's loads.
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { named, type Db, type Loads } from '../db/client';
import type { AgentRow, PlatformRow } from '../db/schema';
import { agents, agentTokens, platforms } from '../db/schema';

/** The agent (not deleted) and platform of an unrevoked token, in one query. */
export async function findAgentByToken(db: Db, tokenHash: string) {
  const [row] = await db
    .select({ agent: agents, platform: platforms })
    .from(agentTokens)
    .innerJoin(agents, eq(agents.id, agentTokens.agentId))
    .innerJoin(platforms, eq(platforms.id, agents.platformId))
    .where(and(eq(agentTokens.tokenHash, tokenHash), isNull(agentTokens.revokedAt), isNull(agents.deletedAt)))
    .limit(1);
  return row;
}

/**
 * `findAgentByToken` batched with a route's loads (one round trip), which get SQL for the agent's and its
 * platform's ids (NULL when the token is unknown, revoked or its agent deleted, so they read nothing).
 */
export async function findAgentByTokenAnd(db: Db, tokenHash: string, more: (platformId: SQL, agentId: SQL) => Loads) {
  const agentId = db
    .select({ id: agents.id })
    .from(agentTokens)
    .innerJoin(agents, eq(agents.id, agentTokens.agentId))
    .where(and(eq(agentTokens.tokenHash, tokenHash), isNull(agentTokens.revokedAt), isNull(agents.deletedAt)));
  const platformId = db.select({ id: agents.platformId }).from(agents).where(eq(agents.id, agentId));
  const loads = more(sql`(${platformId})`, sql`(${agentId})`);
  // Two plain selects, not a join: in a batch D1 merges the same-named columns of joined tables.
  const [agentRows, platformRows, ...results] = (await db.batch([
    db.select().from(agents).where(eq(agents.id, agentId)).limit(1),
    db.select().from(platforms).where(eq(platforms.id, platformId)).limit(1),
    ...Object.values(loads),
  ])) as [AgentRow[], PlatformRow[], ...unknown[]];
  const [agent, platform] = [agentRows[0], platformRows[0]];
  return { found: agent && platform ? { agent, platform } : undefined, results: named(loads, results) };
}
