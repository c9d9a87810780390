// Request and response schemas of the sandbox fault rules (/sandbox/faults).
import * as z from 'zod';
import { DateTime } from '../common/time';
import { faultAnswerable } from './faults';

/** Rules a platform may hold at once (live or spent): the list needs no pages. */
export const MAX_FAULTS = 50;
export const MAX_TIMES = 1000;
export const MAX_DELAY_MS = 30_000;
/** Seeds are below this prime (the draw's modulus, faults.ts). */
export const SEED_LIMIT = 2147483647;

const Id = z.string().min(1).max(100);
/** A status the reference closes without a code the API has for it (501) is refused: no code would be honest. */
const answerable = { message: 'No error code of the API answers this status (501 is refused)' };

export const FaultMatch = z
  .object({
    method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    // No `example`: the hostile suites send examples as valid input, and a rule they made would fault their own later calls.
    path: z.string().min(1).max(300).meta({
      description: "The operation's path template below the versioned base, as /openapi.json spells it (`/quotes/{quoteId}/execute`)",
    }),
    customerId: Id.optional().meta({ description: 'Only requests naming this customer (path, query or body)' }),
    accountId: Id.optional().meta({ description: 'Only requests naming this account (path, query or body)' }),
  })
  .meta({ id: 'SandboxFaultMatch' });

export const FaultEffect = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('ERROR'),
      status: z.int().min(400).max(599).refine(faultAnswerable, answerable),
      retryAfterSeconds: z.int().min(0).max(3600).optional().meta({ description: 'Sent as Retry-After' }),
    }),
    z.object({ type: z.literal('LATENCY'), delayMs: z.int().min(0).max(MAX_DELAY_MS) }),
    z.object({ type: z.literal('AFTER_COMMIT'), status: z.int().min(500).max(504).refine(faultAnswerable, answerable) }),
    z.object({ type: z.literal('DISCONNECT') }),
  ])
  .meta({
    id: 'SandboxFaultEffect',
    description:
      'ERROR answers `status` without handling the request; LATENCY waits `delayMs`, then handles it; AFTER_COMMIT handles it fully (committed, Idempotency-Key answer recorded), then answers `status`; DISCONNECT handles it fully, then breaks off the answer',
  });

export const FaultCreate = z
  .object({
    match: FaultMatch,
    effect: FaultEffect,
    times: z.int().min(1).max(MAX_TIMES).default(1).meta({ description: 'How many times the rule fires' }),
    probability: z.number().min(0).max(1).default(1).meta({ description: 'Chance the rule fires on a matching request' }),
    seed: z
      .int()
      .min(0)
      .max(SEED_LIMIT - 1)
      .optional()
      .meta({ description: 'Seed of the draws; default: derived from the rule, so an identical rule fires on the same requests' }),
  })
  .meta({ id: 'SandboxFaultCreateRequest' });
export type FaultCreate = z.infer<typeof FaultCreate>;

export const SandboxFault = z
  .object({
    id: z.string().meta({ example: 'SandboxFault:019472f1-0000-7000-8000-000000000000' }),
    match: FaultMatch,
    effect: FaultEffect,
    times: z.int(),
    remaining: z.int(),
    firedCount: z.int(),
    probability: z.number(),
    seed: z.int(),
    evaluations: z.int().meta({ description: 'Matching requests the rule was evaluated on' }),
    createdAt: DateTime,
  })
  .meta({ id: 'SandboxFault' });
export type SandboxFault = z.infer<typeof SandboxFault>;

export const SandboxFaultFiring = z
  .object({
    at: DateTime,
    method: z.string(),
    path: z.string().meta({ description: 'The request path as log lines show it: a secret parameter (a device code) by its `:name`' }),
    requestId: z.string().meta({ description: 'The X-Request-Id header of the faulted answer' }),
  })
  .meta({ id: 'SandboxFaultFiring' });

export const SandboxFaultDetail = SandboxFault.extend({
  firings: z.array(SandboxFaultFiring).meta({ description: 'The most recent firings, newest first' }),
}).meta({ id: 'SandboxFaultDetail' });

export const SandboxFaultList = z.object({ data: z.array(SandboxFault) }).meta({ id: 'SandboxFaultListResponse' });
