// The sandbox clock routes: read it, advance it.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { jobDeps } from '../jobs/deps';
import { ClockAdvanceRequest, SandboxClock, SandboxTime } from './clock-schema';
import { advanceClock, clockLoads, sandboxTime } from './clock';

export const clockRoutes = [
  defineRoute({
    method: 'GET',
    path: '/sandbox/clock',
    operationId: 'getSandboxClock',
    summary: "This platform's sandbox time and how far its clock runs ahead (sandbox only)",
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'VIEW',
    responses: { 200: { description: 'The sandbox time', schema: SandboxTime }, ...errorResponses(401, 403, 404) },
    // The authenticated platform row carries the offset: nothing more to read.
    handler: (c) => json(sandboxTime(c.now - c.auth.platform.clockOffsetMs, c.auth.platform.clockOffsetMs)),
  }),
  defineRoute({
    method: 'POST',
    path: '/sandbox/clock/advance',
    operationId: 'advanceSandboxClock',
    summary: "Move this platform's sandbox clock forward and apply the delayed outcomes now due (sandbox only)",
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'TRANSACT',
    body: ClockAdvanceRequest,
    responses: { 200: { description: 'The new sandbox time', schema: SandboxClock }, ...errorResponses(400, 401, 403, 404, 413) },
    // The clock moves in the authentication batch (the platform row is read before it there, so c.now is
    // still the time before the move).
    load: ({ db, platformId, body }) => clockLoads(db, platformId, body.seconds),
    handler: async (c) => {
      const p = c.auth.platform;
      const realNow = c.now - p.clockOffsetMs;
      return json(await advanceClock(jobDeps(c.env, c.settings, c.log, c.db), p.id, c.loaded, realNow));
    },
  }),
];
