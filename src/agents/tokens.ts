// An agent's bearer token looked up with its agent and platform (authentication).
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
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
