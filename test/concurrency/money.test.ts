import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectError, newPlatform } from '../support/api';
import {
  balanceOf,
  customerWithAccounts,
  expectLedgerInvariant,
  externalAccount,
  fund,
  transfer,
  createQuote,
  execute,
} from '../support/payments';

// These platforms live in the second home: money behaves the same in every data database.
describe('money under concurrent requests', () => {
  it('parallel transfers against one balance never overdraw it', async () => {
    const p = await newPlatform({ home: 'DB_2' });
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 1_000);
    const ext = await externalAccount(p, customer.id, 'USD', '789');
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => transfer(p, 'out', accounts.USD!, ext, 100, `par-${i}`)));
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    expect(await balanceOf(p, accounts.USD!)).toBe(0);
    await expectLedgerInvariant(p.id);
  });

  it('parallel executes of different quotes share one balance without overdrawing', async () => {
    const p = await newPlatform({ home: 'DB_2' });
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 10_000);
    const ext = await externalAccount(p, customer.id, 'EUR', '789');
    const quotes = await Promise.all(
      Array.from({ length: 6 }, () =>
        createQuote(p, {
          source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
          destination: { destinationType: 'ACCOUNT', accountId: ext },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 3_000,
        }),
      ),
    );
    const results = await Promise.all(quotes.map((q) => execute(p, q.id)));
    expect(results.filter((r) => r.status === 200 || r.status === 201)).toHaveLength(3);
    expect(await balanceOf(p, accounts.USD!)).toBe(1_000);
    await expectLedgerInvariant(p.id);
  });
});

describe('a worker that dies between committing and answering', () => {
  it('a retry with the same Idempotency-Key returns the committed transfer instead of moving money again', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 1_000);
    const ext = await externalAccount(p, customer.id, 'USD', '789');
    const first = await transfer(p, 'out', accounts.USD!, ext, 300, 'crash-key');
    expect(first.status).toBe(201);
    // The answer committed in the transfer's own batch: however the worker died after it, the key holds it.
    const stored = await env.DB.prepare('SELECT state, response_body FROM idempotency_keys WHERE platform_id = ?').bind(p.id).first();
    expect(stored?.state).toBe('DONE');
    expect(JSON.parse(String(stored?.response_body)).id).toBe(first.body.id);
    const retry = await transfer(p, 'out', accounts.USD!, ext, 300, 'crash-key');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect(await balanceOf(p, accounts.USD!)).toBe(700);
    await expectLedgerInvariant(p.id);
  });
});
