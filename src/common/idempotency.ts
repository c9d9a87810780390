/** An Idempotency-Key is remembered this long; afterwards it counts as new (and so does a transfer's request key). */
export const KEY_TTL_MS = 24 * 60 * 60_000;
