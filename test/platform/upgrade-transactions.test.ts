import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { TransactionStatus } from '../../src/db/enums';
import { QUOTE_STATUS_OF } from '../../src/payments/views';
import { platform, upTo } from '../support/migrations';

// Its own file: each test file gets fresh storage, so UPGRADE_DB starts empty here.

const T = Date.parse('2025-10-01T00:00:00Z');
const P1 = '0199c000-0000-7000-8000-0000000000a1';
const P2 = '0199c000-0000-7000-8000-0000000000a2';
const STATUSES = TransactionStatus.options;

interface Tx {
  id: string;
  platform: string;
  customer: string | null;
  type: 'INCOMING' | 'OUTGOING';
  status: string;
  quote?: string;
  sender?: string;
  receiver?: string;
  destination?: Record<string, unknown>;
}

/** A transaction row of the previous release (its columns as of migration 0010). */
const tx = (t: Tx, n: number) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version, destination,
       received_amount, received_currency, fees, reference, quote_id, sender_uma_address, receiver_uma_address, created_at, updated_at)
     VALUES (?, ?, ?, 'pc-1', ?, ?, ?, 0, ?, 100, 'USD', 0, ?, ?, ?, ?, ?, ?)`,
  ).bind(
    `Transaction:${t.id}`,
    `Platform:${t.platform}`,
    t.customer,
    t.type,
    t.quote ? 'QUOTE' : 'TRANSFER_IN',
    t.status,
    JSON.stringify(t.destination ?? { destinationType: 'ACCOUNT', accountId: 'InternalAccount:x' }),
    `REF-${n}`,
    t.quote ? `Quote:${t.quote}` : null,
    t.sender ?? null,
    t.receiver ?? null,
    T + n,
    T + n,
  );

/** The quote of a transaction, as the previous release wrote it (before its transaction, in the same batch). */
const quote = (t: Tx, n: number) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO quotes (id, platform_id, transaction_id, customer_id, source_type, source_account_id, source, destination, locked_side,
       sending_currency, receiving_currency, total_sending_amount, total_receiving_amount, exchange_rate, fees_included, rate_details,
       expires_at, created_at)
     VALUES (?, ?, ?, ?, 'ACCOUNT', 'InternalAccount:src', '{}', ?, 'SENDING', 'USD', 'EUR', 100, 90, 0.9, 1, '{}', ?, ?)`,
  ).bind(
    `Quote:${t.quote}`,
    `Platform:${t.platform}`,
    `Transaction:${t.id}`,
    t.customer,
    JSON.stringify(t.destination ?? { destinationType: 'ACCOUNT', accountId: 'InternalAccount:x' }),
    T + n + 300_000,
    T + n,
  );

const id = (n: number) => `0199c000-0000-7000-8000-${String(n).padStart(12, '0')}`;

async function counts(platformId: string) {
  const { results } = await env.UPGRADE_DB.prepare('SELECT list, n FROM list_counts WHERE platform_id = ? AND n <> 0 ORDER BY list')
    .bind(`Platform:${platformId}`)
    .all<{ list: string; n: number }>();
  return Object.fromEntries(results.map((r) => [r.list, r.n]));
}

async function quoteColumns() {
  const { results } = await env.UPGRADE_DB.prepare(
    'SELECT id, status, sending_uma_lc AS sendingUma, receiving_uma_lc AS receivingUma, receiving_account_id AS receivingAccount FROM quotes ORDER BY id',
  ).all<{ id: string; status: string; sendingUma: string | null; receivingUma: string | null; receivingAccount: string | null }>();
  return Object.fromEntries(results.map(({ id, ...r }) => [id, r]));
}

describe('transactions and quotes of an earlier release after the list migrations', () => {
  it('are counted (all, per status, type and customer; quotes), their quotes take their status and UMA columns, and the triggers keep them after', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0010_'));
    const customer = 'Customer:0199c000-0000-7000-8000-0000000000c1';
    // P1: one quote transaction in every status (the customer's, to a mixed-case UMA address), an incoming
    // transfer of the platform itself (no customer); P2: one transfer.
    const rows: Tx[] = STATUSES.map((status, i) => ({
      id: id(i + 1),
      platform: P1,
      customer,
      type: 'OUTGOING' as const,
      status,
      quote: id(100 + i),
      sender: '$Alice@One.Example',
      receiver: '$Bob@Two.Example',
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$Bob@Two.Example', currency: 'EUR' },
    }));
    rows.push({ id: id(50), platform: P1, customer: null, type: 'INCOMING', status: 'COMPLETED' });
    rows.push({ id: id(60), platform: P2, customer: null, type: 'OUTGOING', status: 'PENDING', quote: id(160) });
    await env.UPGRADE_DB.batch([
      platform(P1, 'one.example', T),
      platform(P2, 'two.example', T),
      ...rows.flatMap((t, n) => (t.quote ? [quote(t, n), tx(t, n)] : [tx(t, n)])),
    ]);

    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const perStatus = Object.fromEntries(STATUSES.map((s) => [`transactions:status=${s}`, s === 'COMPLETED' ? 2 : 1]));
    expect(await counts(P1)).toEqual({
      transactions: STATUSES.length + 1,
      ...perStatus,
      'transactions:type=OUTGOING': STATUSES.length,
      'transactions:type=INCOMING': 1,
      [`transactions:customer=${customer}`]: STATUSES.length,
      [`transactions:customer=Platform:${P1}`]: 1,
      quotes: STATUSES.length,
    });
    expect(await counts(P2)).toEqual({
      transactions: 1,
      'transactions:status=PENDING': 1,
      'transactions:type=OUTGOING': 1,
      [`transactions:customer=Platform:${P2}`]: 1,
      quotes: 1,
    });
    // Each quote shows its transaction's status as the API maps it (QUOTE_STATUS_OF), and its UMA ends lower-cased.
    const quotes = await quoteColumns();
    STATUSES.forEach((status, i) =>
      expect(quotes[`Quote:${id(100 + i)}`], status).toEqual({
        status: QUOTE_STATUS_OF[status],
        sendingUma: '$alice@one.example',
        receivingUma: '$bob@two.example',
        receivingAccount: null,
      }),
    );
    expect(quotes[`Quote:${id(160)}`]).toEqual({
      status: 'PENDING',
      sendingUma: null,
      receivingUma: null,
      receivingAccount: 'InternalAccount:x',
    });
    const { results: ends } = await env.UPGRADE_DB.prepare(
      'SELECT count(*) AS n FROM transactions WHERE sender_uma_lc = ? AND receiver_uma_lc = ?',
    )
      .bind('$alice@one.example', '$bob@two.example')
      .all<{ n: number }>();
    expect(ends[0]!.n).toBe(STATUSES.length);

    // After the upgrade the triggers keep them: a status move (the quote follows, for every status), a delete.
    const pending = `Transaction:${id(60)}`;
    for (const status of STATUSES) {
      await env.UPGRADE_DB.prepare('UPDATE transactions SET status = ? WHERE id = ?').bind(status, pending).run();
      expect((await quoteColumns())[`Quote:${id(160)}`]!.status, status).toBe(QUOTE_STATUS_OF[status]);
      expect((await counts(P2))[`transactions:status=${status}`], status).toBe(1);
    }
    await env.UPGRADE_DB.batch([
      env.UPGRADE_DB.prepare('DELETE FROM transactions WHERE platform_id = ?').bind(`Platform:${P2}`),
      env.UPGRADE_DB.prepare('DELETE FROM quotes WHERE platform_id = ?').bind(`Platform:${P2}`),
    ]);
    expect(await counts(P2)).toEqual({});
  });
});
