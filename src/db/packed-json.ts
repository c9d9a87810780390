// JSON object columns of the money rows stored without their key names: they repeat in every payment.
import { customType } from 'drizzle-orm/sqlite-core';

/**
 * The key lists a packed object may have, in order. Stored rows name theirs by position, so this list only grows:
 * never reorder, change or remove an entry.
 */
const SHAPES: readonly (readonly string[])[] = [
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
];
const SHAPE_OF = new Map(SHAPES.map((keys, i) => [keys.join(','), i]));

/** `[shape, ...values]` when the object's keys are a shape's, in its order; the object itself otherwise. */
export function pack(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const shape = SHAPE_OF.get(Object.keys(value).join(','));
  const values = Object.values(value);
  // An undefined value is no key in JSON: packed, it would come back as null.
  return shape === undefined || values.includes(undefined) ? value : [shape, ...values];
}

/** The object `pack` was given; a value stored unpacked (any row written before, or of no shape) as it is. */
export function unpack(stored: unknown): unknown {
  if (!Array.isArray(stored) || typeof stored[0] !== 'number') return stored;
  const keys = SHAPES[stored[0]];
  if (!keys || keys.length !== stored.length - 1) return stored;
  return Object.fromEntries(keys.map((key, i) => [key, stored[i + 1]]));
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
