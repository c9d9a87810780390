import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { dueTransitions, internalAccounts, ledgerMovements } from '../../src/db/schema';
import { movementStatements } from '../../src/ledger/ledger';
import { commitChange } from '../../src/http/change';
import { ApiError } from '../../src/http/errors';
import type { Db, Statement } from '../../src/db/client';
import { newPlatform, type TestPlatform } from '../support/api';

const SHORTFALL = new ApiError('INSUFFICIENT_FUNDS', 'shortfall');
const POSTED = new ApiError('CONFLICT', 'posted already');

/** Commits a movement as a Change: `applied`, or how it was refused (nothing of it happened). */
async function runMoneyBatch(db: Db, statements: Statement[]): Promise<'applied' | 'insufficient_funds' | 'already_applied'> {
  const change = { statements, messages: [], status: 200, body: null, shortfall: SHORTFALL, conflict: POSTED };
  try {
    await commitChange({ db, queue: env.JOBS }, change);
    return 'applied';
  } catch (error) {
    if (error === SHORTFALL) return 'insufficient_funds';
    if (error === POSTED) return 'already_applied';
    throw error;
  }
}
import { accountsOf, createCustomer } from '../support/customers';

/** The USD holding account of a new customer: accounts of two customers may share a currency (platform-owned ones may not). */
async function account(p: TestPlatform) {
  const customer = await createCustomer(p);
  return (await accountsOf(p, customer.id)).find((a) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD').id as string;
}

const balance = async (id: string) =>
  (await database(env.DB).select().from(internalAccounts).where(eq(internalAccounts.id, id)))[0]!.balance;

describe('ledger', () => {
  it('moves money as one row per movement, refuses overdrafts and second postings', async () => {
    const p = await newPlatform();
    const db = database(env.DB);
    const a = await account(p);
    const b = await account(p);
    const m = (from: string, to: string, amount: number, reference: string) =>
      movementStatements(db, { platformId: p.id, from, to, amount, currency: 'USD', reference, kind: 'TEST', now: 1 });

    expect(await runMoneyBatch(db, m('Sandbox:funding', a, 1000, 'r1'))).toBe('applied');
    expect(await runMoneyBatch(db, m('Sandbox:funding', a, 1000, 'r1'))).toBe('already_applied');
    expect(await runMoneyBatch(db, m(a, b, 1001, 'r2'))).toBe('insufficient_funds');
    expect(await runMoneyBatch(db, m(a, b, 400, 'r3'))).toBe('applied');
    expect([await balance(a), await balance(b)]).toEqual([600, 400]);

    const rows = await db.select().from(ledgerMovements).where(eq(ledgerMovements.platformId, p.id));
    expect(rows.map((r) => [r.reference, r.fromAccountId, r.toAccountId, r.amount]).sort()).toEqual([
      ['r1', 'Sandbox:funding', a, 1000],
      ['r3', a, b, 400],
    ]);
  });

  it('never overdraws under concurrent debits', async () => {
    const p = await newPlatform();
    const db = database(env.DB);
    const a = await account(p);
    await runMoneyBatch(
      db,
      movementStatements(db, {
        platformId: p.id,
        from: 'Sandbox:funding',
        to: a,
        amount: 1000,
        currency: 'USD',
        reference: 'f',
        kind: 'FUND',
        now: 1,
      }),
    );
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runMoneyBatch(
          db,
          movementStatements(db, {
            platformId: p.id,
            from: a,
            to: 'External:x',
            amount: 100,
            currency: 'USD',
            reference: `d${i}`,
            kind: 'PAYOUT',
            now: 1,
          }),
        ),
      ),
    );
    expect(results.filter((r) => r === 'applied')).toHaveLength(10);
    expect(await balance(a)).toBe(0);
  });
});

describe('a shortfall is the balance CHECK only', () => {
  it('another CHECK failing fails the batch as it is: its shortfall is not committed instead', async () => {
    const p = await newPlatform();
    const db = database(env.DB);
    const a = await account(p);
    const row = { platformId: p.id, subjectId: a, kind: 'test', dueAt: 1, createdAt: 1 };
    // A transition applied twice breaks `due_transitions_applied_once`, not the balance's CHECK.
    const twice = db.insert(dueTransitions).values({ ...row, id: 'DueTransition:twice', applications: 2 });
    const credit = (reference: string) =>
      movementStatements(db, {
        platformId: p.id,
        from: 'Sandbox:funding',
        to: a,
        amount: 5,
        currency: 'USD',
        reference,
        kind: 'TEST',
        now: 1,
      });
    const fallback = { statements: credit('fallback'), messages: [], status: 200, body: 'fallback' };
    const change = { statements: [twice], messages: [], status: 200, body: 'first', shortfall: fallback };
    await expect(commitChange({ db, queue: env.JOBS }, change)).rejects.toThrow(/due_transitions_applied_once/);
    expect(await balance(a)).toBe(0);
    // The balance CHECK is a shortfall: the fallback commits instead.
    const overdraw = movementStatements(db, {
      platformId: p.id,
      from: a,
      to: 'External:x',
      amount: 1,
      currency: 'USD',
      reference: 'o',
      kind: 'TEST',
      now: 1,
    });
    expect((await commitChange({ db, queue: env.JOBS }, { ...change, statements: overdraw })).body).toBe('fallback');
    expect(await balance(a)).toBe(5);
  });
});
