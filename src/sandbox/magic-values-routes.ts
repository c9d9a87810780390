// GET /sandbox/magic-values: every sandbox trigger as data, for tools and agents (instead of reading docs/sandbox.md).
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { SandboxMagicValues } from './magic-values-schema';
import { magicValues } from './magic-values';

export const magicValueRoutes = [
  defineRoute({
    method: 'GET',
    path: '/sandbox/magic-values',
    operationId: 'getSandboxMagicValues',
    summary: 'Sandbox: every magic value (account suffixes, UMA receivers, KYC/KYB, wallet proofs) and what it does, with the timings',
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'VIEW',
    responses: { 200: { description: 'The magic values', schema: SandboxMagicValues }, ...errorResponses(401, 403, 404) },
    handler: (c) => json(magicValues(c.settings)),
  }),
];
