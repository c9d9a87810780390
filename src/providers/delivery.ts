// Instructions to a provider as due transitions: written with the change that needs them, delivered, retried.
import type { Db } from '../db/client';
import type { Logger } from '../http/log';
import { scheduleTransition, type ScheduledTransition, type TransitionContext, type TransitionHandler } from '../transitions/schedule';
import type { ProviderChannel } from './channel';

/**
 * An instruction is an outbox row: a due transition written in the same batch as the change that needs it
 * (a debit, a submitted verification), so it exists exactly when that change committed. Its queue message
 * delivers it at once; a provider that does not answer 2xx (or cannot be reached, or is not configured yet)
 * gets it again later, backing off from 30 s to an hour, for as long as it takes. Every attempt sends the
 * same instruction under the same id, so a provider that records ids acts on it once.
 */

const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 60 * 60_000;
/** How long one delivery may take. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** What the outbox row carries: the instruction's type and how many deliveries were tried. */
interface InstructionRow {
  type: string;
  attempt: number;
}

/** The delay before delivery attempt `attempt` (0: now). */
export const retryDelay = (attempt: number) => (attempt === 0 ? 0 : Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), MAX_RETRY_MS));

/** The outbox row of an instruction of `type` about `subjectId`, delivered by the handler of `kind`; put it in the change's batch. */
export function scheduleInstruction(
  db: Db,
  i: { platformId: string; subjectId: string; kind: string; type: string; now: number; attempt?: number },
): ScheduledTransition {
  const attempt = i.attempt ?? 0;
  return scheduleTransition(db, {
    platformId: i.platformId,
    subjectId: i.subjectId,
    kind: i.kind,
    data: { type: i.type, attempt } satisfies InstructionRow,
    dueAt: i.now + retryDelay(attempt),
    now: i.now,
  });
}

/** The instruction to send for an outbox row: its id and JSON body, or null when its subject is gone. */
export type InstructionBuilder = (ctx: TransitionContext, type: string) => Promise<{ id: string; body: string } | null>;

/**
 * The transition handler that delivers the instructions of `kind` through `channel` (undefined: not
 * configured here, so it waits). Delivered (2xx): the row is applied. Otherwise the row is applied with
 * its next attempt scheduled in the same batch, so exactly one attempt is ever pending.
 */
export function deliveryHandler(
  kind: string,
  channel: ProviderChannel | undefined,
  build: InstructionBuilder,
  log: Logger,
): TransitionHandler {
  return async (ctx) => {
    const row = ctx.row.data as unknown as InstructionRow;
    const instruction = await build(ctx, row.type);
    if (!instruction) return { statements: [] };
    const failure = channel ? await deliver(channel, instruction) : 'not configured';
    if (failure === null) return { statements: [] };
    const attempt = row.attempt + 1;
    log.warn('provider instruction not delivered; retrying', { kind, type: row.type, subject: ctx.row.subjectId, attempt, failure });
    const retry = scheduleInstruction(ctx.db, {
      platformId: ctx.row.platformId,
      subjectId: ctx.row.subjectId,
      kind,
      type: row.type,
      now: ctx.now,
      attempt,
    });
    return { statements: [], transitions: [retry] };
  };
}

/** null when the provider took the instruction (2xx), else why not. */
async function deliver(channel: ProviderChannel, instruction: { id: string; body: string }): Promise<string | null> {
  try {
    const response = await channel.post(instruction, DELIVERY_TIMEOUT_MS);
    await response.body?.cancel();
    return response.ok ? null : `status ${response.status}`;
  } catch (error) {
    return error instanceof Error ? error.name : 'unreachable';
  }
}
