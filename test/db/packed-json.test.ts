import { describe, expect, it } from 'vitest';
import { TransactionStatus } from '../../src/db/enums';
import {
  CODES,
  pack,
  packSteps,
  packStepsAfter,
  SHAPES,
  STEP_STATUSES,
  unpack,
  unpackSteps,
  type StatusStep,
} from '../../src/db/packed-json';

describe('packed ends, as the generated columns of migration 0041 read them', () => {
  it('every packed shape naming an accountId names it second, and is one of the shapes the columns know', () => {
    const withAccount = SHAPES.flatMap((keys, i) => (keys.includes('accountId') ? [i] : []));
    expect(withAccount).toEqual([2, 3, 4, 5, 10, 11]);
    for (const i of withAccount) expect(SHAPES[i]![1], `shape ${i}`).toBe('accountId');
  });

  it('every packed shape naming a umaAddress names it second: shapes 6 and 7', () => {
    const withUma = SHAPES.flatMap((keys, i) => (keys.includes('umaAddress') ? [[i, keys.indexOf('umaAddress')]] : []));
    expect(withUma).toEqual([
      [6, 1],
      [7, 1],
    ]);
  });

  it("a source's customerId is third in shape 4 and second in shape 8, and in no other shape", () => {
    const withCustomer = SHAPES.flatMap((keys, i) => (keys.includes('customerId') ? [[i, keys.indexOf('customerId')]] : []));
    expect(withCustomer).toEqual([
      [4, 2],
      [8, 1],
    ]);
  });

  it('packs an end by position and reads it back with its keys in order', () => {
    const end = { sourceType: 'ACCOUNT', accountId: 'InternalAccount:a', customerId: 'Customer:c' };
    expect(pack(end)).toEqual([4, 0, 'InternalAccount:a', 'Customer:c']);
    expect(Object.entries(unpack(pack(end)) as object)).toEqual(Object.entries(end));
    // Keys of no shape stay an object (the columns read it by key).
    const crypto = { sourceType: 'REALTIME_FUNDING', customerId: 'Customer:c', currency: 'USDC', cryptoNetwork: 'SOLANA' };
    expect(pack(crypto)).toBe(crypto);
  });

  it("stores an end's type as its code, reads both a code and an earlier release's string, and keeps a type of no code", () => {
    const uma = { destinationType: 'UMA_ADDRESS', umaAddress: '$a@b.test', currency: 'USD' };
    expect(pack(uma)).toEqual([7, 1, '$a@b.test', 'USD']);
    expect(unpack([7, 1, '$a@b.test', 'USD'])).toEqual(uma);
    expect(unpack([7, 'UMA_ADDRESS', '$a@b.test', 'USD'])).toEqual(uma);
    const funded = { sourceType: 'REALTIME_FUNDING', currency: 'USD' };
    expect(unpack(pack(funded))).toEqual(funded);
    expect(pack({ sourceType: 'NEW_KIND', currency: 'USD' })).toEqual([9, 'NEW_KIND', 'USD']);
    for (const [key, values] of Object.entries(CODES)) expect(new Set(values).size, key).toBe(values.length);
  });

  it('packs counterparty information that names a person, and keeps any other as it is', () => {
    expect(pack({ FULL_NAME: 'John Doe' })).toEqual([12, 'John Doe']);
    expect(unpack(pack({ FULL_NAME: 'John Doe' }))).toEqual({ FULL_NAME: 'John Doe' });
    const more = { FULL_NAME: 'John Doe', BIRTH_DATE: '1990-01-15' };
    expect(pack(more)).toBe(more);
  });
});

describe('packed status history', () => {
  const steps: StatusStep[] = [
    [null, 'PENDING', 1_000],
    ['PENDING', 'PROCESSING', 1_022],
    ['PROCESSING', 'COMPLETED', 86_401_000],
  ];

  it('stores a history of chained steps as one flat list, each time after the first step, and reads it whole', () => {
    expect(packSteps(steps)).toEqual([1, 1_000, 2, 22, 3, 86_400_000]);
    expect(unpackSteps(packSteps(steps))).toEqual(steps);
    expect(unpackSteps(packSteps(steps.slice(0, 1)))).toEqual(steps.slice(0, 1));
    expect(unpackSteps([])).toEqual([]);
  });

  it('stores steps appended to separate steps as [status index, at] after the status the transaction was in', () => {
    expect(packStepsAfter(steps.slice(1), 'PENDING')).toEqual([
      [2, 1_022],
      [3, 86_401_000],
    ]);
    // Separate steps packed one by one, as the release before the flat list stored them.
    expect(unpackSteps(packStepsAfter(steps, null))).toEqual(steps);
  });

  it("keeps a step whole when it leaves another status, and reads earlier releases' whole steps among packed ones", () => {
    const odd: StatusStep[] = [
      ['CREATED', 'PENDING', 5],
      ['PROCESSING', 'FAILED', 6],
    ];
    expect(packSteps(odd)).toEqual(odd);
    expect(unpackSteps(packSteps(odd))).toEqual(odd);
    // An earlier release's history with this release's steps appended (json_insert of packed steps).
    const stored = [...steps.slice(0, 2), ...packStepsAfter(steps.slice(2), 'PROCESSING')];
    expect(stored[2]).toEqual([3, 86_401_000]);
    expect(unpackSteps(stored)).toEqual(steps);
  });

  it('has an index for every transaction status, each once', () => {
    expect([...STEP_STATUSES].sort()).toEqual([...TransactionStatus.options].sort());
  });
});
