// JSON object columns of the money rows stored without their key names: they repeat in every payment.
import { customType } from 'drizzle-orm/sqlite-core';
import type { TransactionStatus } from './enums';

/**
 * The key lists a packed object may have, in order. Stored rows name theirs by position, so this list only grows:
 * never reorder, change or remove an entry. SQL reads the ends by shape (the generated columns of migration 0041):
 * an accountId or umaAddress is second in every shape holding one, and a new such shape needs a migration.
 */
export const SHAPES: readonly (readonly string[])[] = [
  // Rate details of a quote, and of an incoming payment (its last four).
  [
    'counterpartyMultiplier',
    'counterpartyFixedFee',
    'serviceApiMultiplier',
    'serviceApiFixedFee',
    'serviceApiVariableFeeRate',
    'serviceApiVariableFeeAmount',
  ],
  ['serviceApiMultiplier', 'serviceApiFixedFee', 'serviceApiVariableFeeRate', 'serviceApiVariableFeeAmount'],
  // The ends of a transaction and the source of a quote.
  ['sourceType', 'accountId', 'currency'],
  ['destinationType', 'accountId', 'currency'],
  ['sourceType', 'accountId', 'customerId'],
  ['sourceType', 'accountId'],
  ['sourceType', 'umaAddress', 'currency'],
  ['destinationType', 'umaAddress', 'currency'],
  ['sourceType', 'customerId', 'currency'],
  ['sourceType', 'currency'],
  // The destination of a quote paid to an account (with or without its rail).
  ['destinationType', 'accountId', 'paymentRail'],
  ['destinationType', 'accountId'],
  // Counterparty information, as payments name a person.
  ['FULL_NAME'],
];
const SHAPE_OF = new Map(SHAPES.map((keys, i) => [keys.join(','), i]));

/**
 * Values of a packed key stored as their position in its list (an end's type: `0` for `"ACCOUNT"`); any other value
 * as it is. Only grows, as SHAPES. SQL reads no coded value (the generated columns read the shape and the ids).
 */
export const CODES: Readonly<Record<string, readonly string[]>> = {
  sourceType: ['ACCOUNT', 'UMA_ADDRESS', 'REALTIME_FUNDING'],
  destinationType: ['ACCOUNT', 'UMA_ADDRESS'],
};

/** `[shape, ...values]` when the object's keys are a shape's, in its order; the object itself otherwise. */
export function pack(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const shape = SHAPE_OF.get(keys.join(','));
  const values = Object.values(value);
  // An undefined value is no key in JSON: packed, it would come back as null.
  if (shape === undefined || values.includes(undefined)) return value;
  return [shape, ...values.map((v, i) => coded(keys[i]!, v))];
}

const coded = (key: string, value: unknown) => {
  const code = typeof value === 'string' ? (CODES[key]?.indexOf(value) ?? -1) : -1;
  return code >= 0 ? code : value;
};

/** The object `pack` was given; a value stored unpacked (any row written before, or of no shape) as it is. */
export function unpack(stored: unknown): unknown {
  if (!Array.isArray(stored) || typeof stored[0] !== 'number') return stored;
  const keys = SHAPES[stored[0]];
  if (!keys || keys.length !== stored.length - 1) return stored;
  return Object.fromEntries(
    keys.map((key, i) => {
      const value: unknown = stored[i + 1];
      return [key, typeof value === 'number' && CODES[key] ? (CODES[key][value] ?? value) : value];
    }),
  );
}

/**
 * A TEXT column holding a JSON object, packed (`pack`): the API sees the same object, with its keys in the same
 * order. For object values only (a stored array reads as a packed object), and only where no SQL reads the JSON.
 */
export const packedJson = <T extends object>(name: string) =>
  customType<{ data: T; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => JSON.stringify(pack(value)),
    fromDriver: (text) => unpack(JSON.parse(text)) as T,
  })(name);

/** One status a transaction entered: the one it left (null for its first), the one it entered, when (platform time). */
export type StatusStep = [from: TransactionStatus | null, to: TransactionStatus, at: number];

/** The statuses of packed history steps, by position (a step stores its index): only grows, as SHAPES. */
export const STEP_STATUSES: readonly TransactionStatus[] = [
  'CREATED',
  'PENDING',
  'PROCESSING',
  'COMPLETED',
  'REJECTED',
  'FAILED',
  'REFUNDED',
  'EXPIRED',
];

/**
 * Steps as stored. A history whose every step leaves the status the step before it entered (null before the
 * first), as a transaction's does, is one flat list: `[status index, at, status index, ms after the first, …]`.
 * Otherwise `[[status index, at] | [from, to, at], …]`, as rows of earlier releases hold it (whole steps, or
 * steps packed one by one); SQL appends to either form (`appendedHistory`).
 */
export function packSteps(steps: StatusStep[]): unknown[] {
  const codes = steps.map(([, to]) => STEP_STATUSES.indexOf(to));
  const chained = steps.every(([left], i) => left === (i === 0 ? null : steps[i - 1]![1]) && codes[i]! >= 0);
  if (chained) return steps.flatMap(([, , at], i) => [codes[i], i === 0 ? at : at - steps[0]![2]]);
  return packStepsAfter(steps, null);
}

/** Steps appended to a history of separate steps: `[status index, at]` when the step leaves `from`, whole otherwise. */
export function packStepsAfter(steps: StatusStep[], from: TransactionStatus | null): unknown[] {
  return steps.map(([left, to, at]) => {
    const code = STEP_STATUSES.indexOf(to);
    const packed = left === from && code >= 0 ? [code, at] : [left, to, at];
    from = to;
    return packed;
  });
}

/** The steps `packSteps` stored, earlier releases' forms among them. */
export function unpackSteps(stored: unknown[]): StatusStep[] {
  let from: TransactionStatus | null = null;
  if (typeof stored[0] === 'number') {
    const flat = stored as number[];
    const steps: StatusStep[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const to = STEP_STATUSES[flat[i]!]!;
      steps.push([from, to, i === 0 ? flat[1]! : flat[1]! + flat[i + 1]!]);
      from = to;
    }
    return steps;
  }
  return stored.map((s) => {
    const step = s as [number, number] | StatusStep;
    const full: StatusStep = step.length === 2 ? [from, STEP_STATUSES[step[0]]!, step[1]] : step;
    from = full[1];
    return full;
  });
}

/** A TEXT column holding a status history (`packSteps`); the API sees every step whole. */
export const packedHistory = (name: string) =>
  customType<{ data: StatusStep[]; driverData: string }>({
    dataType: () => 'text',
    toDriver: (steps) => JSON.stringify(packSteps(steps)),
    fromDriver: (text) => unpackSteps(JSON.parse(text) as unknown[]),
  })(name);
