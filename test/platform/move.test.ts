import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { MOVE_STEPS, movedTables, movePlatform } from '../../src/platform/move';
import { api, basic, expectError, failingFields, newPlatform, OPERATOR, type TestPlatform } from '../support/api';
import { businessBody, createCustomer, individualBody, personalInfo } from '../support/customers';
import { policy } from '../support/agents';
import { productionWorld, signedOutcome } from '../support/providers';
import { createQuote, customerWithAccounts, expectLedgerInvariant, externalAccount, fund, transfer } from '../support/payments';
import { runCron } from '../support/webhooks';
import { emailCredential, newWallet } from '../support/wallets';
import { measured } from '../perf/counting';

// The operator moves a platform between homes (DB → DB_2 and back): its writes wait with a retryable 409, its
// reads go on, and afterwards everything reads back through the API as before, with every credential working.

const move = (platformId: string, home: string) =>
  api('POST', `/operator/platforms/${platformId}/move`, { auth: OPERATOR, body: { home } });
const count = async (home: 'DB' | 'DB_2', table: string, column: string, id: string) =>
  (await env[home]!.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).bind(id).first<{ n: number }>())!.n;
const homeOf = async (id: string) =>
  (await env.DB.prepare('SELECT home, moving_to, moved_from FROM platform_homes WHERE platform_id = ?').bind(id).first())!;

/** A platform with something of everything a client sees: customers, money, a transfer, a token, an agent, an invitation, a KYC link. */
async function populated() {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p, individualBody({ umaAddress: `$ann@${p.umaDomain}` }));
  await fund(p, accounts.USD!, 5_000);
  const ext = await externalAccount(p, customer.id, 'USD', '321');
  const sent = await transfer(p, 'out', accounts.USD!, ext, 1_200, crypto.randomUUID());
  expect(sent.status).toBe(201);
  const token = await api('POST', '/tokens', { auth: p.auth, body: { name: 'second', permissions: ['VIEW', 'TRANSACT'] } });
  expect(token.status).toBe(201);
  const agent = await api('POST', '/agents', { auth: p.auth, body: { name: 'Bot', customerId: customer.id, policy: policy() } });
  expect(agent.status).toBe(201);
  const redeemed = await api('POST', `/agents/device-codes/${agent.body.deviceCode.code}/redeem`);
  expect(redeemed.status).toBe(200);
  const pending = await api('POST', `/agents/${agent.body.agent.id}/device-codes`, { auth: p.auth });
  expect(pending.status, JSON.stringify(pending.body)).toBe(201);
  const invitation = await api('POST', '/invitations', { auth: p.auth, body: { inviterUma: customer.umaAddress } });
  expect(invitation.status).toBe(201);
  const link = await api('POST', `/customers/${customer.id}/kyc-link`, { auth: p.auth });
  expect(link.status).toBe(201);
  return {
    p,
    customer,
    accounts,
    ext,
    tokenAuth: basic(token.body.clientId, token.body.clientSecret),
    agentAuth: `Bearer ${redeemed.body.accessToken}`,
    deviceCode: pending.body.code as string,
    invitationCode: invitation.body.code as string,
    kycSecret: new URL(link.body.kycUrl).hash.slice(1),
  };
}
type Populated = Awaited<ReturnType<typeof populated>>;

/** What a client reads of the platform, through the API. */
async function view(x: Populated) {
  const get = async (path: string, auth = x.p.auth) => {
    const res = await api('GET', path, { auth });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const deliveries = await get('/webhooks/deliveries?limit=100');
  return {
    config: await get('/config'),
    customers: await get('/customers'),
    accounts: await get(`/customers/internal-accounts?customerId=${x.customer.id}`),
    transactions: await get('/transactions'),
    externalAccounts: await get('/customers/external-accounts'),
    tokens: await get('/tokens'),
    agents: await get('/agents'),
    invitations: await get('/invitations'),
    // Delivery attempts go on in the background; what was written is what must survive.
    deliveries: deliveries.data.map((d: { id: string; eventType: string }) => [d.id, d.eventType]),
    deliveriesTotal: deliveries.totalCount,
    agentSees: await get('/agents/me', x.agentAuth),
  };
}

/** The platform's rows of each table in `home`, whole, in the order of its key column. */
async function rowsIn(home: 'DB' | 'DB_2', platformId: string, tables: [table: string, key: string][]) {
  return Promise.all(
    tables.map(
      async ([table, key]) =>
        (await env[home]!.prepare(`SELECT * FROM ${table} WHERE platform_id = ? ORDER BY ${key}`).bind(platformId).all()).results,
    ),
  );
}

/** Waits until the queue consumer has attempted every delivery of the platform (none is PENDING). */
async function deliveriesSettled(platformId: string) {
  const pending = () =>
    env.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE platform_id = ? AND status = 'PENDING'")
      .bind(platformId)
      .first<{ n: number }>();
  for (let i = 0; i < 100 && (await pending())!.n > 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect((await pending())!.n).toBe(0);
}

/** The platform's rows of `tables` in DB, as `rowsIn` reads them, each table holding at least `atLeast` (several pages). */
async function heldRows(x: Populated, tables: [table: string, key: string][], atLeast: number) {
  const before = await rowsIn('DB', x.p.id, tables);
  for (const [i, held] of before.entries()) expect(held.length, tables[i]![0]).toBeGreaterThanOrEqual(atLeast);
  return before;
}

/**
 * Moves the platform to DB_2 two rows a page, over calls of a few round trips each: the rows of `tables` arrive
 * each once and as they were (`before`, read from DB), and the API reads the same.
 */
async function movedTwoAPage(x: Populated, tables: [table: string, key: string][], before: unknown[]) {
  const seen = await view(x);
  let last;
  for (let call = 0; call < 300 && !last?.done; call++)
    last = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips: 12, pageRows: 2 });
  expect(last).toMatchObject({ home: 'DB_2', done: true });
  expect(await rowsIn('DB_2', x.p.id, tables)).toEqual(before);
  expect(await view(x)).toEqual(seen);
}

/** Every credential and secret of the platform still works (read-only uses, so the view stays the same). */
async function credentialsWork(x: Populated) {
  expect((await api('GET', '/config', { auth: x.p.auth })).status).toBe(200);
  expect((await api('GET', '/customers', { auth: x.tokenAuth })).status).toBe(200);
  expect((await api('GET', '/agents/me', { auth: x.agentAuth })).status).toBe(200);
  expect((await api('GET', `/agents/device-codes/${x.deviceCode}/status`, { auth: x.p.auth })).status).toBe(200);
  const other = await newPlatform({ home: 'DB_2' });
  expect((await api('GET', `/invitations/${x.invitationCode}`, { auth: other.auth })).body.status).toBe('PENDING');
  expect((await api('POST', '/sandbox/kyc-links/open', { body: { secret: x.kycSecret } })).body.state).toBe('OPEN');
}

const aWrite = (p: TestPlatform) => api('POST', '/customers', { auth: p.auth, body: individualBody() });

describe('POST /operator/platforms/{platformId}/move', () => {
  it('moves a platform with all it holds: the API reads the same before and after, every credential works, the old home keeps none of it', async () => {
    const x = await populated();
    const before = await view(x);
    const moved = await move(x.p.id, 'DB_2');
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ platformId: x.p.id, home: 'DB_2', from: 'DB' });
    expect(moved.body.rowsCopied).toBeGreaterThan(20);
    expect(await homeOf(x.p.id)).toEqual({ home: 'DB_2', moving_to: null, moved_from: null });
    expect(await view(x)).toEqual(before);
    await credentialsWork(x);
    await expectLedgerInvariant(x.p.id);
    // Nothing of it is left in the old home but the forwards of its credentials.
    for (const [table, column] of [
      ['platforms', 'id'],
      ['customers', 'platform_id'],
      ['transactions', 'platform_id'],
      ['ledger_movements', 'platform_id'],
      ['api_tokens', 'platform_id'],
      ['webhook_deliveries', 'platform_id'],
      ['list_counts', 'platform_id'],
    ])
      expect(await count('DB', table!, column!, x.p.id), table).toBe(0);
    // Two API tokens, the agent's token, two device codes (one redeemed), the KYC link, the invitation.
    expect(await count('DB', 'home_forwards', 'platform_id', x.p.id)).toBe(7);
    // It writes again, in its new home, and can move back.
    expect((await aWrite(x.p)).status).toBe(201);
    expect((await transfer(x.p, 'out', x.accounts.USD!, x.ext, 100, crypto.randomUUID())).status).toBe(201);
    const after = await view(x);
    expect((await move(x.p.id, 'DB')).body).toMatchObject({ home: 'DB', from: 'DB_2' });
    expect(await view(x)).toEqual(after);
    await credentialsWork(x);
    expect(await count('DB_2', 'platforms', 'id', x.p.id)).toBe(0);
  });

  it('rows as an earlier release stored them (JSON objects this release packs) move byte for byte', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 5_000);
    const ext = await externalAccount(p, customer.id, 'USD', '321');
    const sent = await transfer(p, 'out', accounts.USD!, ext, 1_200, crypto.randomUUID());
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    // The earlier release's form: the objects themselves (the API shows them as stored).
    const tx = (await api('GET', `/transactions/${sent.body.id}`, { auth: p.auth })).body;
    await env.DB.batch([
      env.DB.prepare('UPDATE transactions SET source = ?, destination = ? WHERE id = ?').bind(
        JSON.stringify(tx.source),
        JSON.stringify(tx.destination),
        tx.id,
      ),
      env.DB.prepare('UPDATE quotes SET source = ?, rate_details = ? WHERE id = ?').bind(
        JSON.stringify(quote.source),
        JSON.stringify(quote.rateDetails),
        quote.id,
      ),
    ]);
    const rows = (home: 'DB' | 'DB_2') =>
      Promise.all([
        env[home]!.prepare('SELECT * FROM transactions WHERE platform_id = ? ORDER BY id').bind(p.id).all(),
        env[home]!.prepare('SELECT * FROM quotes WHERE platform_id = ? ORDER BY id').bind(p.id).all(),
      ]).then((all) => all.map((r) => r.results));
    const before = await rows('DB');
    expect(JSON.stringify(before)).toContain(JSON.stringify(JSON.stringify(tx.source)).slice(1, -1));

    const moved = await move(p.id, 'DB_2');
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.done).toBe(true);
    expect(await rows('DB_2')).toEqual(before);
    expect((await api('GET', `/transactions/${tx.id}`, { auth: p.auth })).body).toEqual(tx);
  });

  it.each(MOVE_STEPS.filter((s) => s !== 'released'))(
    'a move stopped after %s: reads go on, writes wait with a retryable 409, and asking again finishes it with nothing lost or doubled',
    async (step) => {
      const x = await populated();
      const before = await view(x);
      const stopped = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, stopAfter: step });
      expect(stopped.platformId).toBe(x.p.id);
      // Meanwhile: the same reads, and writes refused with a retry hint (none of them applied).
      expect(await view(x)).toEqual(before);
      const refused = await aWrite(x.p);
      expectError(refused, 409, 'CONFLICT', 'PLATFORM_MOVING');
      expect(refused.headers.get('Retry-After')).toBe('2');
      expectError(
        await api('POST', '/sandbox/kyc-links/complete', { body: { secret: x.kycSecret, outcome: 'APPROVED' } }),
        409,
        'CONFLICT',
        'PLATFORM_MOVING',
      );
      expectError(await api('POST', `/agents/device-codes/${x.deviceCode}/redeem`), 409, 'CONFLICT', 'PLATFORM_MOVING');
      // Another platform's claim of its invitation writes into its data: it waits too.
      const invitee = await newPlatform({ home: 'DB_2' });
      const inviteeUma = `$ben@${invitee.umaDomain}`;
      await createCustomer(invitee, individualBody({ umaAddress: inviteeUma }));
      const claim = () => api('POST', `/invitations/${x.invitationCode}/claim`, { auth: invitee.auth, body: { inviteeUma } });
      expectError(await claim(), 409, 'CONFLICT', 'PLATFORM_MOVING');
      // Another destination is refused while this move is under way.
      expectError(await move(x.p.id, 'DB'), 409, 'CONFLICT');
      // Asking again finishes it.
      const finished = await move(x.p.id, 'DB_2');
      expect(finished.status, JSON.stringify(finished.body)).toBe(200);
      expect(finished.body).toMatchObject({ home: 'DB_2', from: 'DB' });
      expect(await view(x)).toEqual(before);
      await credentialsWork(x);
      await expectLedgerInvariant(x.p.id);
      expect(await count('DB', 'customers', 'platform_id', x.p.id)).toBe(0);
      expect(await count('DB_2', 'customers', 'platform_id', x.p.id)).toBe(1);
      expect(await count('DB_2', 'platforms', 'id', x.p.id)).toBe(1);
      expect((await aWrite(x.p)).status).toBe(201);
      // The claim and the device code the hold refused act now.
      const claimed = await claim();
      expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
      expect(claimed.body).toMatchObject({ status: 'CLAIMED', inviteeUma });
      const redeemed = await api('POST', `/agents/device-codes/${x.deviceCode}/redeem`);
      expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
      expect((await api('GET', '/agents/me', { auth: `Bearer ${redeemed.body.accessToken}` })).status).toBe(200);
    },
  );

  it('a platform larger than one call moves over several: each answers 202 and goes on where the last stopped, none copying a row twice', async () => {
    const x = await populated();
    const before = await view(x);
    const answers = [];
    for (let call = 0; call < 60; call++) {
      const res = await api('POST', `/operator/platforms/${x.p.id}/move`, { auth: OPERATOR, body: { home: 'DB_2', roundTrips: 10 } });
      answers.push(res);
      if (res.status !== 202) break;
      expect(res.body).toMatchObject({ platformId: x.p.id, from: 'DB', done: false });
      // Between calls: the same reads, writes waiting.
      expectError(await aWrite(x.p), 409, 'CONFLICT', 'PLATFORM_MOVING');
    }
    const last = answers[answers.length - 1]!;
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body).toMatchObject({ home: 'DB_2', from: 'DB', done: true });
    expect(answers.length).toBeGreaterThan(3);
    expect(await view(x)).toEqual(before);
    await credentialsWork(x);
    await expectLedgerInvariant(x.p.id);
    // Every row once: the calls together copied what one call copies of the same platform, back.
    const copied = answers.reduce((n, a) => n + a.body.rowsCopied, 0);
    const back = await move(x.p.id, 'DB');
    expect(back.status).toBe(200);
    expect(back.body.rowsCopied).toBe(copied);
    expect(await view(x)).toEqual(before);
    expect((await aWrite(x.p)).status).toBe(201);
  });

  it.each([
    ['from the start', false],
    ['when a copy must be made again', true],
  ])(
    'two calls going on with one move at once (%s): never a 5xx, one of them at most a retryable 409, and every row once',
    async (_, again) => {
      const x = await populated();
      const before = await view(x);
      const tables = ['customers', 'transactions', 'ledger_movements', 'api_tokens', 'webhook_deliveries'];
      const counts = (home: 'DB' | 'DB_2') => Promise.all(tables.map((t) => count(home, t, 'platform_id', x.p.id)));
      const held = await counts('DB');
      if (again) {
        // A part copied, then found changed: what a check that failed leaves for the next request to clear.
        const first = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips: 14 });
        expect(first).toMatchObject({ done: false });
        expect(first.rowsCopied).toBeGreaterThan(1);
        const marked = await env
          .DB_2!.prepare('UPDATE platforms SET move_progress = ? WHERE id = ?')
          .bind(JSON.stringify({ table: 0, after: null, clearing: true }), x.p.id)
          .run();
        expect(marked.meta.changes).toBe(1);
      }
      let finished = false;
      for (let round = 0; round < 60 && !finished; round++) {
        const both = await Promise.all(
          [0, 1].map(() => api('POST', `/operator/platforms/${x.p.id}/move`, { auth: OPERATOR, body: { home: 'DB_2', roundTrips: 10 } })),
        );
        for (const res of both) {
          expect([200, 202, 409], JSON.stringify(res.body)).toContain(res.status);
          if (res.status === 409) expect(res.body.message).toMatch(/right now|under way/);
          finished ||= res.status === 200;
        }
      }
      expect(finished).toBe(true);
      expect(await counts('DB_2')).toEqual(held);
      expect(await counts('DB')).toEqual(tables.map(() => 0));
      expect(await view(x)).toEqual(before);
      await credentialsWork(x);
      await expectLedgerInvariant(x.p.id);
    },
  );

  it('whatever the round trips a call may use, calls in a row finish a move: each one goes on from where the last stopped', async () => {
    // A call can stop anywhere, the clean-up's last steps included; each saves its place, so no budget repeats a call.
    for (let roundTrips = 10; roundTrips <= 40; roundTrips++) {
      const p = await newPlatform();
      await createCustomer(p);
      let calls = 0;
      // The service's own move, as the route calls it, without its 2 s wait for writes in flight (none here).
      while ((await movePlatform(env, database(env.DB), p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips })).done === false) {
        expect(++calls, `roundTrips ${roundTrips}`).toBeLessThan(100);
      }
      expect(await count('DB', 'platforms', 'id', p.id)).toBe(0);
      expect(await count('DB_2', 'platforms', 'id', p.id)).toBe(1);
      expect((await api('GET', '/customers', { auth: p.auth })).body.data).toHaveLength(1);
    }
  });

  it("copies the list counts page by page: no batch grows with the platform's lists (one per customer)", async () => {
    const p = await newPlatform();
    await createCustomer(p);
    // 250 more lists, as the transactions of 250 customers make them.
    await env.DB.batch(
      Array.from({ length: 250 }, (_, i) =>
        env.DB.prepare('INSERT INTO list_counts (platform_id, list, n) VALUES (?, ?, ?)').bind(
          p.id,
          `transactions:customer=Customer:c${i}`,
          i + 1,
        ),
      ),
    );
    const counts = async (home: 'DB' | 'DB_2') =>
      (await env[home]!.prepare('SELECT list, n FROM list_counts WHERE platform_id = ? ORDER BY list').bind(p.id).all()).results;
    const before = await counts('DB');
    expect(before.length).toBeGreaterThan(250);

    const moved = await measured('POST', `/operator/platforms/${p.id}/move`, { auth: OPERATOR, body: { home: 'DB_2' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    // A page of 100 rows with its guard, its progress and (the counts' first page) the delete of what triggers counted.
    expect(Math.max(...moved.cost.statements)).toBeLessThanOrEqual(103);
    expect(await counts('DB_2')).toEqual(before);
    expect(await counts('DB')).toEqual([]);
  });

  it('a request clearing a copy to make again stops (409) when another took the clearing over, and the move still finishes', async () => {
    const x = await populated();
    const before = await view(x);
    const first = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips: 14 });
    expect(first).toMatchObject({ done: false });
    const clearing = JSON.stringify({ table: 0, after: null, clearing: true });
    const marked = await env.DB_2!.prepare('UPDATE platforms SET move_progress = ? WHERE id = ?').bind(clearing, x.p.id).run();
    expect(marked.meta.changes).toBe(1);
    // Another request claims the clearing while this one is at its end: this one must leave the rest to it.
    const takeOver = async () => {
      const taken = await env
        .DB_2!.prepare('UPDATE platforms SET move_progress = ? WHERE id = ?')
        .bind(JSON.stringify({ table: 0, after: null, clearing: true, by: 'another request' }), x.p.id)
        .run();
      expect(taken.meta.changes).toBe(1);
    };
    const stopped = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, cleared: takeOver }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(stopped).toMatchObject({ status: 409, message: expect.stringMatching(/right now/) });
    expect(await count('DB_2', 'platforms', 'id', x.p.id)).toBe(1);
    const done = await move(x.p.id, 'DB_2');
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await view(x)).toEqual(before);
    await credentialsWork(x);
  });

  it('a copy stopped inside a table goes on from its last page', async () => {
    const x = await populated();
    const before = await view(x);
    const results = [];
    for (let call = 0; call < 200; call++) {
      const r = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips: 12, pageRows: 2 });
      results.push(r);
      if (r.done) break;
    }
    expect(results[results.length - 1]).toMatchObject({ home: 'DB_2', done: true });
    expect(results.filter((r) => !r.done && r.rowsCopied > 0).length).toBeGreaterThan(5);
    expect(await view(x)).toEqual(before);
    await credentialsWork(x);
    const copied = results.reduce((n, r) => n + r.rowsCopied, 0);
    const back = await movePlatform(env, database(env.DB), x.p.id, 'DB', Date.now(), { drainMs: 0 });
    expect(back).toMatchObject({ home: 'DB', done: true, rowsCopied: copied });
  });

  it("transactions, quotes and deliveries go in their platform index's order: rows of one createdAt, two a page, each copied once", async () => {
    const x = await populated();
    for (let i = 0; i < 4; i++) expect((await transfer(x.p, 'out', x.accounts.USD!, x.ext, 100 + i)).status).toBe(201);
    // Rows of one millisecond (concurrent requests): the page key goes on past the row, not past the time.
    const tie = Date.parse('2026-11-01T00:00:00Z');
    for (const table of ['transactions', 'webhook_deliveries'])
      await env.DB.prepare(`UPDATE ${table} SET created_at = ? WHERE platform_id = ?`).bind(tie, x.p.id).run();
    const tables: [string, string][] = [
      ['transactions', 'id'],
      ['webhook_deliveries', 'id'],
    ];
    // The queue consumer settles each delivery in the background; rows compared whole must be read after it.
    await deliveriesSettled(x.p.id);
    const before = await heldRows(x, tables, 5);
    await movedTwoAPage(x, tables, before);
  });

  it("invitations, beneficial owners and fault rules go in their platform index's order: two a page, each copied once", async () => {
    const x = await populated();
    const owner = await createCustomer(x.p, businessBody({}, { registrationNumber: '5523041' }));
    for (let i = 0; i < 3; i++) {
      const invited = await api('POST', '/invitations', { auth: x.p.auth, body: { inviterUma: x.customer.umaAddress } });
      expect(invited.status).toBe(201);
      const body = { customerId: owner.id, roles: ['UBO'], ownershipPercentage: 20, personalInfo: personalInfo() };
      expect((await api('POST', '/beneficial-owners', { auth: x.p.auth, body })).status).toBe(201);
      const fault = { match: { method: 'POST', path: '/customers' }, effect: { type: 'ERROR', status: 503, retryAfterSeconds: i + 1 } };
      const made = await api('POST', '/sandbox/faults', { auth: x.p.auth, body: fault });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    // Rows of one millisecond: the page key goes on past the row, not past the time.
    const tie = Date.parse('2026-11-01T00:00:00Z');
    for (const table of ['invitations', 'sandbox_faults'])
      await env.DB.prepare(`UPDATE ${table} SET created_at = ? WHERE platform_id = ?`).bind(tie, x.p.id).run();
    const tables: [string, string][] = [
      ['invitations', 'code'],
      ['beneficial_owners', 'id'],
      ['sandbox_faults', 'id'],
    ];
    const before = await heldRows(x, tables, 3);
    await movedTwoAPage(x, tables, before);
  });

  it("accounts go in their platform index's order, the platform's own (no customer) first: two a page, each copied once", async () => {
    const x = await populated();
    const other = await customerWithAccounts(x.p);
    for (const suffix of ['401', '402', '403']) await externalAccount(x.p, undefined, 'USD', suffix);
    for (const suffix of ['404', '405']) await externalAccount(x.p, other.customer.id, 'USD', suffix);
    // The platform's own internal accounts are made as it first lists them.
    expect((await api('GET', '/platform/internal-accounts', { auth: x.p.auth })).status).toBe(200);
    const tables: [string, string][] = [
      ['internal_accounts', 'id'],
      ['external_accounts', 'id'],
    ];
    const before = await rowsIn('DB', x.p.id, tables);
    for (const held of before) {
      // An odd number of the platform's own: a page holds both kinds.
      expect(held.filter((r) => r.customer_id === null).length % 2).toBe(1);
      expect(held.filter((r) => r.customer_id !== null).length).toBeGreaterThanOrEqual(3);
    }
    await movedTwoAPage(x, tables, before);
  });

  it("KYC links, receiver look-ups and OTP e-mail sends go in their platform index's order: two a page, each copied once", async () => {
    const x = await populated();
    const wallets = [];
    for (let i = 0; i < 4; i++) wallets.push(await newWallet('sandbox', x.p));
    for (const [i, w] of wallets.entries()) {
      // One code an address at a time (the OTP limit): four addresses.
      const challenge = await api('POST', `/auth/credentials/${(await emailCredential(w)).id}/challenge`, { auth: x.p.auth });
      expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
      if (i % 2) continue;
      for (let n = 0; n < 2; n++) {
        const link = await api('POST', `/customers/${w.customerId}/kyc-link`, { auth: x.p.auth });
        expect(link.status, JSON.stringify(link.body)).toBe(201);
        const receiver = encodeURIComponent('$success.usd@sandbox.uma.test');
        const lookup = await api('GET', `/receiver/uma/${receiver}?customerId=${w.customerId}`, { auth: x.p.auth });
        expect(lookup.status, JSON.stringify(lookup.body)).toBe(200);
      }
    }
    // Rows of one value of the index's columns before the key: the page key goes on past the row.
    const now = Date.now();
    await env.DB.prepare(`UPDATE receiver_lookups SET expires_at = ? WHERE platform_id = ?`)
      .bind(now + 3_600_000, x.p.id)
      .run();
    await env.DB.prepare(`UPDATE otp_email_sends SET address = 'one@example.com', sent_at = ? WHERE platform_id = ?`)
      .bind(now, x.p.id)
      .run();
    const tables: [string, string][] = [
      ['kyc_links', 'id'],
      ['receiver_lookups', 'id'],
      ['otp_email_sends', 'id'],
    ];
    const before = await heldRows(x, tables, 4);
    await movedTwoAPage(x, tables, before);
  });

  it('a place an earlier release saved inside the transactions, in id order, starts their copy over', async () => {
    const x = await populated();
    for (let i = 0; i < 4; i++) expect((await transfer(x.p, 'out', x.accounts.USD!, x.ext, 100 + i)).status).toBe(201);
    const before = await view(x);
    const index = movedTables().findIndex((t) => t.name === 'transactions');
    const progress = async () =>
      JSON.parse((await env.DB_2!.prepare('SELECT move_progress AS p FROM platforms WHERE id = ?').bind(x.p.id).first<{ p: string }>())!.p);
    // Calls of a few round trips until the copy stops inside the transactions.
    for (let call = 0; call < 300; call++) {
      const r = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips: 10, pageRows: 2 });
      expect(r.done).toBe(false);
      const saved = await progress();
      if (saved.table === index && saved.after !== null) break;
    }
    expect(await count('DB_2', 'transactions', 'platform_id', x.p.id)).toBeGreaterThan(0);
    // That release paged the transactions by id: its place is one id.
    const { id } = (await env.DB.prepare('SELECT id FROM transactions WHERE platform_id = ? ORDER BY id LIMIT 1')
      .bind(x.p.id)
      .first<{ id: string }>())!;
    const earlier = JSON.stringify({ table: index, after: [id] });
    await env.DB_2!.prepare('UPDATE platforms SET move_progress = ? WHERE id = ?').bind(earlier, x.p.id).run();
    let last;
    for (let call = 0; call < 300 && !last?.done; call++)
      last = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, roundTrips: 12, pageRows: 2 });
    expect(last).toMatchObject({ home: 'DB_2', done: true });
    expect(await view(x)).toEqual(before);
    expect(await count('DB_2', 'transactions', 'platform_id', x.p.id)).toBe(before.transactions.data.length);
  });

  it('a write that lands in the old home after its table was copied is not lost: the copy is made again', async () => {
    const x = await populated();
    const [txn] = (await api('GET', '/transactions', { auth: x.p.auth })).body.data;
    const version = () => env.DB.prepare('SELECT version FROM transactions WHERE id = ?').bind(txn.id).first<{ version: number }>();
    const before = (await version())!.version;
    let copies = 0;
    const late = async () => {
      // As a change that authenticated before the hold would commit: in the source, after the copy read it.
      if (++copies === 1) await env.DB.prepare('UPDATE transactions SET version = version + 1 WHERE id = ?').bind(txn.id).run();
    };
    const moved = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, copied: late });
    expect(moved.home).toBe('DB_2');
    expect(copies).toBe(2);
    const after = await env.DB_2!.prepare('SELECT version FROM transactions WHERE id = ?').bind(txn.id).first<{ version: number }>();
    expect(after?.version).toBe(before + 1);
  });

  it("a late change of a row's content (its updated_at moves) is not lost either", async () => {
    const x = await populated();
    const email = `late-${crypto.randomUUID()}@example.com`;
    let copies = 0;
    const late = async () => {
      // A customer update that authenticated before the hold, committed in the source after the copy.
      if (++copies === 1)
        await env.DB.prepare('UPDATE customers SET email = ?, updated_at = updated_at + 1 WHERE id = ?').bind(email, x.customer.id).run();
    };
    const moved = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, copied: late });
    expect(moved.home).toBe('DB_2');
    expect(copies).toBe(2);
    const read = await api('GET', `/customers/${x.customer.id}`, { auth: x.p.auth });
    expect(read.status).toBe(200);
    expect(read.body.email).toBe(email);
  });

  // Rows without an updated_at: a value set where there was none, a number moved, a text of another length.
  it.each([
    [
      'an agent token revoked',
      'UPDATE agent_tokens SET revoked_at = 1 WHERE platform_id = ?',
      'SELECT count(*) AS v FROM agent_tokens WHERE platform_id = ? AND revoked_at = 1',
    ],
    [
      'a device code expired',
      'UPDATE agent_device_codes SET expires_at = expires_at - 7 WHERE platform_id = ?',
      'SELECT sum(expires_at % 10) AS v FROM agent_device_codes WHERE platform_id = ?',
    ],
    [
      "a KYC link's outcome",
      "UPDATE kyc_links SET outcome = 'REJECTED' WHERE platform_id = ?",
      "SELECT count(*) AS v FROM kyc_links WHERE platform_id = ? AND outcome = 'REJECTED'",
    ],
  ])('a late change in a row without updated_at (%s) is not lost either', async (_, change, read) => {
    const x = await populated();
    const value = async (home: 'DB' | 'DB_2') => (await env[home]!.prepare(read).bind(x.p.id).first<{ v: number }>())!.v;
    const before = await value('DB');
    let copies = 0;
    let changed: number | undefined;
    const late = async () => {
      if (++copies > 1) return;
      const done = await env.DB.prepare(change).bind(x.p.id).run();
      expect(done.meta.changes).toBeGreaterThan(0);
      changed = await value('DB');
    };
    const moved = await movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, copied: late });
    expect(moved.home).toBe('DB_2');
    expect(changed).not.toBe(before);
    expect(copies).toBe(2);
    expect(await value('DB_2')).toBe(changed);
  });

  it('a platform that keeps changing while it is copied: the move gives up with a retryable 409, still held, and asking again finishes it', async () => {
    const x = await populated();
    const [txn] = (await api('GET', '/transactions', { auth: x.p.auth })).body.data;
    const before = await view(x);
    const first = await env.DB.prepare('SELECT version FROM transactions WHERE id = ?').bind(txn.id).first<{ version: number }>();
    let copies = 0;
    const bump = async () => {
      copies++;
      await env.DB.prepare('UPDATE transactions SET version = version + 1 WHERE id = ?').bind(txn.id).run();
    };
    const attempt = movePlatform(env, database(env.DB), x.p.id, 'DB_2', Date.now(), { drainMs: 0, copied: bump });
    await expect(attempt).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(copies).toBe(3);
    // Nothing switched: the source serves reads, writes wait, the directory still names the move.
    expect(await homeOf(x.p.id)).toEqual({ home: 'DB', moving_to: 'DB_2', moved_from: null });
    expect(await view(x)).toEqual(before);
    expectError(await aWrite(x.p), 409, 'CONFLICT', 'PLATFORM_MOVING');
    const finished = await move(x.p.id, 'DB_2');
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(await view(x)).toEqual(before);
    const version = await env.DB_2!.prepare('SELECT version FROM transactions WHERE id = ?').bind(txn.id).first<{ version: number }>();
    const source = await env.DB.prepare('SELECT count(*) AS n FROM transactions WHERE id = ?').bind(txn.id).first<{ n: number }>();
    expect(source?.n).toBe(0);
    expect(version?.version).toBe(first!.version + 3);
    expect((await aWrite(x.p)).status).toBe(201);
  });

  it('background work waits for the move: a payment due to settle while its platform is held settles in its new home after', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p, individualBody());
    await fund(p, accounts.USD!, 5_000);
    // Suffix 005: returned by the bank, 30 s after it was sent.
    const ext = await externalAccount(p, customer.id, 'USD', '005');
    const sent = await transfer(p, 'out', accounts.USD!, ext, 1_200, crypto.randomUUID());
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const pending = () =>
      env.DB.prepare('SELECT count(*) AS n FROM due_transitions WHERE platform_id = ? AND applied_at IS NULL')
        .bind(p.id)
        .first<{ n: number }>();
    expect((await pending())!.n).toBeGreaterThan(0);
    const status = async () => (await api('GET', `/transactions/${sent.body.id}`, { auth: p.auth })).body.status;
    await movePlatform(env, database(env.DB), p.id, 'DB_2', Date.now(), { drainMs: 0, stopAfter: 'held' });
    // An hour on: every transition is due, and none is applied to the platform being moved.
    await runCron(Date.now() + 3_600_000);
    expect(await status()).toBe(sent.body.status);
    expect((await pending())!.n).toBeGreaterThan(0);
    expect((await move(p.id, 'DB_2')).status).toBe(200);
    await runCron(Date.now() + 3_600_000);
    expect(await status()).toBe('FAILED');
    await expectLedgerInvariant(p.id);
  });

  it("a provider's report about a platform being moved waits with the same 409, and afterwards reaches its new home", async () => {
    const p = await newPlatform();
    await movePlatform(env, database(env.DB), p.id, 'DB_2', Date.now(), { drainMs: 0, stopAfter: 'held' });
    const w = productionWorld();
    const report = async () => {
      const { raw, headers } = await signedOutcome({
        paymentId: `Transaction:${crypto.randomUUID()}`,
        platformId: p.id,
        status: 'COMPLETED',
      });
      return w.call('POST', '/providers/rail/outcomes', { raw, headers });
    };
    const held = await report();
    expectError(held, 409, 'CONFLICT', 'PLATFORM_MOVING');
    expect(held.headers.get('Retry-After')).toBe('2');
    expect((await move(p.id, 'DB_2')).status).toBe(200);
    // Applied where the platform now lives: an unknown payment of it is not found there (no longer held).
    expectError(await report(), 404);
  });

  it('refuses an unknown platform, an unbound database and a malformed body; a move to where it lives changes nothing', async () => {
    const p = await newPlatform();
    expectError(await move('Platform:00000000-0000-7000-8000-000000000000', 'DB_2'), 404, 'REFERENCE_NOT_FOUND', 'PLATFORM_NOT_FOUND');
    expectError(await move(p.id, 'DB_9'), 400, 'INVALID_INPUT');
    expectError(await api('POST', `/operator/platforms/${p.id}/move`, { auth: OPERATOR, body: {} }), 400, 'INVALID_INPUT');
    const tooFew = await api('POST', `/operator/platforms/${p.id}/move`, { auth: OPERATOR, body: { home: 'DB_2', roundTrips: 5 } });
    expectError(tooFew, 400, 'INVALID_INPUT');
    expect(failingFields(tooFew)).toEqual(['roundTrips']);
    const tooMany = await api('POST', `/operator/platforms/${p.id}/move`, { auth: OPERATOR, body: { home: 'DB_2', roundTrips: 901 } });
    expect(failingFields(tooMany)).toEqual(['roundTrips']);
    const same = await move(p.id, 'DB');
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ platformId: p.id, home: 'DB', from: 'DB', rowsCopied: 0, done: true });
    expectError(await api('POST', `/operator/platforms/${p.id}/move`, { auth: p.auth, body: { home: 'DB_2' } }), 401);
  });

  it('under load: a client paying and reading throughout sees no 5xx, only retryable 409s, and every payment it was told of is there once', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 1_000_000);
    const ext = await externalAccount(p, customer.id, 'USD', '321');
    const statuses: number[] = [];
    const paid: string[] = [];
    let moving = true;
    const client = (async () => {
      while (moving) {
        const key = crypto.randomUUID();
        // A client retries a 409 that says so with the same Idempotency-Key, as the SDK does.
        for (;;) {
          const res = await transfer(p, 'out', accounts.USD!, ext, 100, key);
          statuses.push(res.status);
          if (res.status === 201) {
            paid.push(res.body.id);
            break;
          }
          expectError(res, 409, 'CONFLICT', 'PLATFORM_MOVING');
          await new Promise((r) => setTimeout(r, 50));
        }
        const read = await api('GET', `/transactions?limit=5`, { auth: p.auth });
        statuses.push(read.status);
        expect(read.status).toBe(200);
      }
    })();
    // Paid before the move and after it (waited for, not timed: a loaded machine pays slowly).
    const payments = async (n: number) => {
      for (const deadline = Date.now() + 30_000; paid.length < n; await new Promise((r) => setTimeout(r, 20)))
        expect(Date.now(), `${paid.length} payments, waiting for ${n}`).toBeLessThan(deadline);
    };
    await payments(2);
    const moved = await move(p.id, 'DB_2');
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const beforeRelease = paid.length;
    await payments(beforeRelease + 1);
    moving = false;
    await client;
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses).toContain(409);
    // Every payment answered 201 is there, once; the balance is what they took.
    const outgoing: string[] = [];
    for (let cursor: string | undefined, more = true; more;) {
      const page = await api('GET', `/transactions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { auth: p.auth });
      for (const t of page.body.data) if (t.type === 'OUTGOING') outgoing.push(t.id);
      cursor = page.body.nextCursor;
      more = page.body.hasMore;
    }
    expect(outgoing.sort()).toEqual([...paid].sort());
    const balance = (await api('GET', `/customers/internal-accounts?customerId=${customer.id}`, { auth: p.auth })).body.data.find(
      (a: { id: string }) => a.id === accounts.USD,
    ).balance.amount;
    expect(balance).toBe(1_000_000 - 100 * paid.length);
    await expectLedgerInvariant(p.id);
  });
});
