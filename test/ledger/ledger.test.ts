import { env } from 'cloudflare:test';
import { eq, sum } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { internalAccounts, ledgerEntries } from '../../src/db/schema';
import { moneyBatch, movementStatements } from '../../src/ledger/ledger';

const runMoneyBatch = async (...args: Parameters<typeof moneyBatch>) => (await moneyBatch(...args)).result;
import { newPlatform, type TestPlatform } from '../support/api';
import { accountsOf, createCustomer } from '../support/customers';

/** The USD holding account of a new customer: accounts of two customers may share a currency (platform-owned ones may not). */
async function account(p: TestPlatform) {
  const customer = await createCustomer(p);
  return (await accountsOf(p, customer.id)).find((a) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD').id as string;
}

const balance = async (id: string) =>
  (await database(env.DB).select().from(internalAccounts).where(eq(internalAccounts.id, id)))[0]!.balance;

describe('ledger', () => {
  it('moves money with two entries, refuses overdrafts and second postings, and sums to zero', async () => {
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

    const [total] = await db
      .select({ s: sum(ledgerEntries.amount) })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.platformId, p.id));
    expect(Number(total!.s)).toBe(0);
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
