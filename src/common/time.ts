// Timestamps as the API shows and reads them (ISO 8601 UTC).
import * as z from 'zod';

/** ISO 8601 UTC with `Z`, as every timestamp in the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export const DateTime = z.iso.datetime().meta({ example: '2025-10-13T12:00:00.000Z' });

/** A date-time query filter, parsed to epoch milliseconds. */
export const DateTimeParam = z.iso
  .datetime({ offset: true })
  .transform((s) => Date.parse(s))
  .optional();
