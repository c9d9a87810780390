import { createExecutionContext, env } from 'cloudflare:test';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { idempotencyKeys } from '../../src/db/schema';
import { settings } from '../../src/env';
import { ApiError } from '../../src/http/errors';
import { logger } from '../../src/http/log';
import { defineRoute, json } from '../../src/http/route';
import { findAgentByToken, findAgentByTokenAnd } from '../../src/agents/tokens';
import { findTokenWithPlatform, findTokenWithPlatformAnd } from '../../src/platform/tokens-service';
import { newAgent, policy } from '../support/agents';
import { api, BASE } from '../support/api';

const credentials = {
  tokenWithPlatform: findTokenWithPlatform,
  tokenWithPlatformAnd: findTokenWithPlatformAnd,
  agentByToken: findAgentByToken,
  agentByTokenAnd: findAgentByTokenAnd,
};

// No agent route keys its requests in the platform's space today; the runner must still give back exactly the
// key it claimed, in the space it claimed it (the agent's own, or the platform's).
const platformKeyed = defineRoute({
  method: 'POST',
  path: '/test/platform-keyed',
  operationId: 'testPlatformKeyed',
  summary: 'An agent route whose Idempotency-Key is the platform’s',
  tag: 'Test',
  auth: 'agent',
  agentPermission: 'CREATE_TRANSFERS',
  idempotent: { scope: 'platform' },
  responses: {},
  handler: () => json({ done: true }, 201),
});

async function run(bearer: string, key: string) {
  const request = new Request(`${BASE}/test/platform-keyed`, {
    method: 'POST',
    headers: { Authorization: bearer, 'Idempotency-Key': key },
  });
  const deps = { settings: settings(env), log: logger('error'), credentials, hooks: {} };
  return platformKeyed.run(request, env, createExecutionContext(), deps).catch((error: unknown) => {
    if (error instanceof ApiError) return new Response(null, { status: error.status });
    throw error;
  });
}

describe('a key claimed with authentication and refused by the policy', () => {
  it('is given back in the space it was claimed in (the platform’s), so the same key acts once granted', async () => {
    const a = await newAgent({ policy: policy({ permissions: ['VIEW_TRANSACTIONS'] }) });
    expect((await run(a.bearer, 'granted-later')).status).toBe(403);
    const held = await database(env.DB)
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.platformId, a.p.id), eq(idempotencyKeys.key, 'granted-later')));
    expect(held).toEqual([]);
    const granted = await api('PATCH', `/agents/${a.agentId}/policy`, { auth: a.p.auth, body: { permissions: ['CREATE_TRANSFERS'] } });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    const done = await run(a.bearer, 'granted-later');
    expect(done.status).toBe(201);
    expect(done.headers.get('Idempotent-Replayed')).toBeNull();
  });
});
