// The sandbox clock schemas: the advance request, the clock, and what an advance applied.
import * as z from 'zod';
import { DateTime } from '../common/time';

const MAX_ADVANCE_SECONDS = 30 * 24 * 60 * 60;

export const ClockAdvanceRequest = z
  .strictObject({
    seconds: z
      .int()
      .min(1)
      .max(MAX_ADVANCE_SECONDS)
      .meta({
        description: `How far to move this platform's sandbox clock forward (1 to ${MAX_ADVANCE_SECONDS} seconds, i.e. 30 days)`,
        example: 360,
      }),
  })
  .meta({ id: 'SandboxClockAdvanceRequest' });

/** GET /sandbox/clock: where this platform's sandbox clock stands. */
export const SandboxTime = z
  .object({
    sandboxTime: DateTime.meta({ description: "The platform's sandbox time (after the move, for an advance)" }),
    clockOffsetSeconds: z.int().min(0).meta({ description: 'How far the sandbox clock runs ahead of real time' }),
  })
  .meta({ id: 'SandboxTime' });
export type SandboxTime = z.infer<typeof SandboxTime>;

/** POST /sandbox/clock/advance: the clock after the move, and what the move applied. */
export const SandboxClock = SandboxTime.extend({
  appliedTransitions: z.int().min(0).meta({ description: 'Delayed outcomes that became due and were applied by this call' }),
}).meta({ id: 'SandboxClock' });
