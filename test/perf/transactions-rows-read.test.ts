import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newPlatform, type TestPlatform } from '../support/api';
import { measured } from './counting';

/**
 * Transactions and quotes lists cost about their page, whatever the platform holds: a platform with 3,000
 * transactions and quotes (every one newer than the one a needle filter finds, so a walk in the list's order
 * would pass them all) answers each filter reading at most BUDGET rows (D1's `rows_read` of the statements
 * the request ran, authentication included). Today's counts and unindexed filters read the whole tenant.
 */
const N = 3000;
const BUDGET = 120;
const T = Date.parse('2031-01-01T00:00:00Z');

const needle = {
  customer: 'Customer:0199d000-0000-7000-8000-00000000ee01',
  account: 'ExternalAccount:0199d000-0000-7000-8000-00000000ee02',
  uma: '$Needle@Far.Example',
};

/** `count` transactions of the platform, each with its quote, created one millisecond apart from `from`. */
function seed(platformId: string, count: number, status = 'COMPLETED') {
  const tag = platformId.slice(-12);
  return env.DB.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
     INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version, destination,
       source_account_id, destination_account_id, sent_amount, sent_currency, received_amount, received_currency, fees, reference,
       quote_id, sender_uma_address, receiver_uma_address, created_at, updated_at)
     SELECT printf('Transaction:%s-%08d', ?, i), ?, 'Customer:bulk', 'pc-bulk', CASE i % 2 WHEN 0 THEN 'INCOMING' ELSE 'OUTGOING' END,
       'QUOTE', ?, 0, '{"destinationType":"ACCOUNT","accountId":"ExternalAccount:bulk"}', 'InternalAccount:bulk',
       'ExternalAccount:bulk', 100, 'USD', 100, 'USD', 0, 'BULK-' || i, printf('Quote:%s-%08d', ?, i), '$bulk@near.example', '$other@near.example',
       ? + i, ? + i FROM seq`,
  ).bind(count, tag, platformId, status, tag, T, T);
}

function seedQuotes(platformId: string) {
  return env.DB.prepare(
    `INSERT INTO quotes (id, platform_id, transaction_id, customer_id, source_type, source_account_id, source, destination, locked_side,
       sending_currency, receiving_currency, total_sending_amount, total_receiving_amount, exchange_rate, fees_included, rate_details,
       expires_at, created_at)
     SELECT quote_id, platform_id, id, customer_id, 'ACCOUNT', source_account_id, '{}', destination, 'SENDING', 'USD', 'USD', 100, 100, 1,
       0, '{}', created_at + 300000, created_at FROM transactions WHERE platform_id = ? AND quote_id IS NOT NULL`,
  ).bind(platformId);
}

/** The one transaction (and quote) the needle filters find, older than all the others. */
function seedNeedle(platformId: string) {
  const id = `${platformId.slice(-12)}-needle`;
  return [
    env.DB.prepare(
      `INSERT INTO quotes (id, platform_id, transaction_id, customer_id, source_type, source_account_id, source, destination, locked_side,
         sending_currency, receiving_currency, total_sending_amount, total_receiving_amount, exchange_rate, fees_included, rate_details,
         expires_at, created_at)
       VALUES (?, ?, ?, ?, 'ACCOUNT', ?, '{}', ?, 'SENDING', 'USD', 'USD', 100, 100, 1, 0, '{}', ?, ?)`,
    ).bind(
      `Quote:${id}`,
      platformId,
      `Transaction:${id}`,
      needle.customer,
      needle.account,
      JSON.stringify({ destinationType: 'UMA_ADDRESS', umaAddress: needle.uma }),
      T - 1000 + 300_000,
      T - 1000,
    ),
    env.DB.prepare(
      `INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version, destination,
         source_account_id, destination_account_id, sent_amount, sent_currency, received_amount, received_currency, fees, reference,
         quote_id, sender_uma_address, receiver_uma_address, created_at, updated_at)
       VALUES (?, ?, ?, 'pc-needle', 'OUTGOING', 'QUOTE', 'FAILED', 0, '{}', ?, ?, 100, 'USD', 100, 'USD', 0, 'NEEDLE', ?, ?, ?, ?, ?)`,
    ).bind(
      `Transaction:${id}`,
      platformId,
      needle.customer,
      needle.account,
      needle.account,
      `Quote:${id}`,
      needle.uma,
      needle.uma,
      T - 1000,
      T - 1000,
    ),
  ];
}

/** D1's rows read by every statement a request ran, re-run as it ran them. */
async function rowsRead(path: string, p: TestPlatform) {
  const res = await measured('GET', path, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  let rows = 0;
  for (const s of res.cost.sql.filter((s) => /^\s*select/i.test(s.query))) {
    const { meta } = await env.DB.prepare(s.query)
      .bind(...s.params)
      .all();
    rows += meta.rows_read;
  }
  return { rows, body: res.body };
}

const q = encodeURIComponent;
const NEEDLES = [
  `/transactions?customerId=${q(needle.customer)}`,
  '/transactions?platformCustomerId=pc-needle',
  `/transactions?accountIdentifier=${q(needle.account)}`,
  `/transactions?accountIdentifier=${q(needle.uma.toUpperCase())}`,
  `/transactions?senderAccountIdentifier=${q(needle.uma)}`,
  `/transactions?receiverAccountIdentifier=${q(needle.account)}`,
  '/transactions?status=FAILED',
  '/transactions?reference=NEEDLE',
  `/transactions?endDate=${q(new Date(T - 1).toISOString())}`,
  `/quotes?customerId=${q(needle.customer)}`,
  `/quotes?sendingAccountId=${q(needle.account)}`,
  `/quotes?receivingUmaAddress=${q(needle.uma)}`,
  `/quotes?sendingUmaAddress=${q(needle.uma)}`,
  '/quotes?status=FAILED',
  `/quotes?createdBefore=${q(new Date(T - 1).toISOString())}`,
];
const PAGES = [
  '/transactions',
  '/transactions?sortOrder=asc',
  '/transactions?status=COMPLETED',
  '/transactions?type=INCOMING',
  '/quotes',
  '/quotes?status=COMPLETED',
];

describe(`transactions and quotes lists read about a page on a platform of ${N} rows`, () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await newPlatform();
    const other = await newPlatform();
    await env.DB.batch([seed(p.id, N), seed(other.id, N)]);
    await env.DB.batch([seedQuotes(p.id), seedQuotes(other.id), ...seedNeedle(p.id)]);
  });

  for (const path of NEEDLES) {
    it(`${path} finds the one match, older than every other row, reading ≤ ${BUDGET} rows`, async () => {
      const { rows, body } = await rowsRead(path, p);
      expect(body.data.map((x: { id: string }) => x.id)).toEqual([expect.stringContaining('-needle')]);
      expect(rows).toBeLessThanOrEqual(BUDGET);
    });
  }

  for (const path of PAGES) {
    it(`${path}: a full page (and the next) reading ≤ ${BUDGET} rows each`, async () => {
      const first = await rowsRead(path, p);
      expect(first.body.data).toHaveLength(20);
      expect(first.rows).toBeLessThanOrEqual(BUDGET);
      const sep = path.includes('?') ? '&' : '?';
      const next = await rowsRead(`${path}${sep}cursor=${q(first.body.nextCursor)}`, p);
      expect(next.body.data).toHaveLength(20);
      expect(next.rows).toBeLessThanOrEqual(BUDGET);
    });
  }

  it(`/quotes?status=PENDING among ${N} quotes whose time ran out (still PENDING in storage) reads ≤ ${BUDGET} rows`, async () => {
    const stale = await newPlatform();
    await env.DB.batch([seed(stale.id, N, 'PENDING')]);
    await seedQuotes(stale.id).run();
    // A day old (T is in the future): every one of them expired by time, none by a stored status.
    const back = T - Date.now() + 86_400_000;
    await env.DB.prepare('UPDATE quotes SET created_at = created_at - ?, expires_at = expires_at - ? WHERE platform_id = ?')
      .bind(back, back, stale.id)
      .run();
    const { rows, body } = await rowsRead('/quotes?status=PENDING', stale);
    expect(body.data).toEqual([]);
    expect(rows).toBeLessThanOrEqual(BUDGET);
    const expired = await rowsRead('/quotes?status=EXPIRED&limit=5', stale);
    expect(expired.body.data).toHaveLength(5);
  });
});
