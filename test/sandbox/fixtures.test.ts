import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, failingFields, newPlatform, productionApi, tokenWith, type TestPlatform } from '../support/api';
import { businessBody, individualBody } from '../support/customers';
import { bankInfo, balanceOf } from '../support/payments';
import { newAgent, policy } from '../support/agents';
import sample from '../../scripts/fixtures/sample.json';

const T0 = Date.parse('2032-08-01T09:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const load = (p: TestPlatform, doc: unknown) => api('POST', '/sandbox/fixtures', { auth: p.auth, body: doc });

/** Every section and every $ref form: a customer, its accounts by currency and its wallet, an external account, an agent, a payment. */
function fullDocument() {
  return {
    customers: [
      {
        ref: 'alice',
        ...individualBody({ email: 'alice@example.com' }),
        kycStatus: 'APPROVED',
        balances: { USD: 100_000, EUR: 5_000 },
        externalAccounts: [
          { ref: 'alice-bank', currency: 'USD', accountInfo: bankInfo('USD', '000') },
          { ref: 'alice-iban', currency: 'EUR', accountInfo: bankInfo('EUR', '000') },
        ],
        wallet: { type: 'EMAIL_OTP' },
      },
      { ref: 'acme', ...businessBody({}, { registrationNumber: '5523001' }), kycStatus: 'PENDING', currencies: ['USD', 'MXN'] },
      // An individual's hosted KYC link, failed.
      { ref: 'carol', ...individualBody(), kycStatus: 'REJECTED' },
    ],
    agents: [
      { ref: 'bot', name: 'Payroll bot', customerId: { $ref: 'alice' }, policy: policy(), redeem: true },
      { name: 'Waiting bot', customerId: { $ref: 'acme' }, policy: policy() },
    ],
    payments: [
      {
        ref: 'payout',
        transferOut: {
          source: { accountId: { $ref: 'alice.accounts.USD' } },
          destination: { accountId: { $ref: 'alice-bank' } },
          amount: 10_000,
        },
        settle: true,
      },
      {
        ref: 'pull',
        transferIn: {
          source: { accountId: { $ref: 'alice-bank' } },
          destination: { accountId: { $ref: 'alice.accounts.USD' } },
          amount: 2_000,
        },
      },
      {
        ref: 'fx',
        quote: {
          source: { sourceType: 'ACCOUNT', accountId: { $ref: 'alice.accounts.USD' } },
          destination: { destinationType: 'ACCOUNT', accountId: { $ref: 'alice-iban' } },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1_000,
        },
        lookup: { customerId: { $ref: 'alice' } },
        execute: true,
        settle: true,
      },
    ],
    invitations: [
      // A customer's ref where a UMA address goes is its address.
      {
        ref: 'invite',
        invitation: { inviterUma: { $ref: 'alice' }, firstName: 'Alice', amountToSend: 500 },
        claim: { inviteeUma: { $ref: 'carol' } },
      },
      { ref: 'withdrawn', invitation: { inviterUma: { $ref: 'carol' } }, cancel: true },
    ],
  };
}

describe('POST /sandbox/fixtures', () => {
  it('creates every section, resolves every $ref form, and the API reads it all back', async () => {
    const p = await newPlatform();
    const res = await load(p, fullDocument());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { refs, counts, agents } = res.body;
    expect(counts).toEqual({
      customers: 3,
      verifications: 3,
      fundings: 2,
      externalAccounts: 2,
      walletCredentials: 1,
      agents: 2,
      payments: 3,
      settled: 2,
      invitations: 2,
    });
    expect(refs).toMatchObject({
      alice: expect.stringMatching(/^Customer:/),
      'alice.accounts.USD': expect.stringMatching(/^InternalAccount:/),
      'alice.accounts.EUR': expect.stringMatching(/^InternalAccount:/),
      'alice.accounts.wallet': expect.stringMatching(/^InternalAccount:/),
      'alice-bank': expect.stringMatching(/^ExternalAccount:/),
      acme: expect.stringMatching(/^Customer:/),
      'acme.accounts.MXN': expect.stringMatching(/^InternalAccount:/),
      bot: expect.stringMatching(/^Agent:/),
      payout: expect.stringMatching(/^Transaction:/),
      pull: expect.stringMatching(/^Transaction:/),
      fx: expect.stringMatching(/^Transaction:/),
      'fx.quote': expect.stringMatching(/^Quote:/),
      'fx.lookup': expect.stringMatching(/^LookupRequest:/),
    });

    // Customers with the KYC status asked for.
    const alice = await api('GET', `/customers/${refs.alice}`, { auth: p.auth });
    expect(alice.body).toMatchObject({ kycStatus: 'APPROVED', email: 'alice@example.com' });
    expect((await api('GET', `/customers/${refs.acme}`, { auth: p.auth })).body).toMatchObject({ kybStatus: 'PENDING' });
    expect((await api('GET', `/customers/${refs.carol}`, { auth: p.auth })).body).toMatchObject({ kycStatus: 'REJECTED' });

    // Invitations by their codes: one claimed by carol, one cancelled; refs name codes, never UMA addresses.
    const carol = (await api('GET', `/customers/${refs.carol}`, { auth: p.auth })).body;
    expect((await api('GET', `/invitations/${refs.invite}`, { auth: p.auth })).body).toMatchObject({
      status: 'CLAIMED',
      inviterUma: alice.body.umaAddress,
      inviteeUma: carol.umaAddress,
      firstName: 'Alice',
      amountToSend: { amount: 500 },
    });
    expect((await api('GET', `/invitations/${refs.withdrawn}`, { auth: p.auth })).body).toMatchObject({ status: 'CANCELLED' });
    expect(Object.values(refs).filter((v) => String(v).startsWith('$'))).toEqual([]);
    expect((await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(3);

    // Balances: funded, less the payout and the quote, plus the pull (settled too: the quote's settling moved the clock past it).
    expect(await balanceOf(p, refs['alice.accounts.EUR'])).toBe(5_000);
    expect(await balanceOf(p, refs['alice.accounts.USD'])).toBe(100_000 - 10_000 + 2_000 - 1_000);

    // The external account belongs to alice; the wallet has its credential.
    const bank = await api('GET', `/customers/external-accounts/${refs['alice-bank']}`, { auth: p.auth });
    expect(bank.body).toMatchObject({ customerId: refs.alice, currency: 'USD' });
    const creds = await api('GET', `/auth/credentials?accountId=${encodeURIComponent(refs['alice.accounts.wallet'])}`, { auth: p.auth });
    expect(creds.body.data).toEqual([expect.objectContaining({ type: 'EMAIL_OTP', nickname: 'alice@example.com' })]);

    // The redeemed agent's token works; the other agent has its device code.
    expect(agents.bot).toMatchObject({ agentId: refs.bot, accessToken: expect.any(String) });
    const me = await api('GET', '/agents/me', { auth: `Bearer ${agents.bot.accessToken}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: refs.bot, customerId: refs.alice });
    const waiting = Object.entries(agents).find(([k]) => k !== 'bot')!;
    expect(waiting[1]).toMatchObject({ deviceCode: { code: expect.any(String), agentId: waiting[0], redeemed: false } });

    // Settled payments are final.
    expect((await api('GET', `/transactions/${refs.payout}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    expect((await api('GET', `/transactions/${refs.fx}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    expect((await api('GET', `/quotes/${refs['fx.quote']}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    expect((await api('GET', `/transactions/${refs.pull}`, { auth: p.auth })).body.status).toBe('COMPLETED');
  });

  it('answers device codes for agents not redeemed, keyed by ref or, without one, by id', async () => {
    const p = await newPlatform();
    const res = await load(p, {
      customers: [{ ref: 'c', ...individualBody() }],
      agents: [{ ref: 'a', name: 'A', customerId: { $ref: 'c' }, policy: policy() }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const status = await api('GET', `/agents/device-codes/${res.body.agents.a.deviceCode.code}/status`, { auth: p.auth });
    expect(status.body).toMatchObject({ redeemed: false });
  });

  it('loads the sample document of docs/fixtures-and-snapshots.md (scripts/fixtures/sample.json)', async () => {
    const p = await newPlatform();
    const res = await load(p, sample);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.counts).toMatchObject({
      customers: 2,
      externalAccounts: 2,
      walletCredentials: 1,
      agents: 1,
      payments: 3,
      settled: 3,
      invitations: 1,
    });
    expect((await api('GET', `/customers/${res.body.refs.acme}`, { auth: p.auth })).body.kybStatus).toBe('PENDING');
    expect((await api('GET', `/transactions/${res.body.refs['to-mexico']}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    // Its quote to Mexico named a look-up of the account, which asked for the payer's tax id.
    expect(res.body.refs['to-mexico.lookup']).toMatch(/^LookupRequest:/);
  });

  it('is 404 in production', async () => {
    const p = await newPlatform();
    expectError(
      await productionApi('POST', '/sandbox/fixtures', { auth: p.auth, body: {} }),
      404,
      'REFERENCE_NOT_FOUND',
      'ROUTE_NOT_FOUND',
    );
  });
});

/** A document that is valid on its own: one funded customer with a bank account. */
const base = () => ({
  ref: 'alice',
  ...individualBody(),
  balances: { USD: 1_000 },
  externalAccounts: [{ ref: 'alice-bank', currency: 'USD', accountInfo: bankInfo('USD', '000') }],
});
const out = (source: unknown, destination: unknown, amount = 100) => ({
  transferOut: { source: { accountId: source }, destination: { accountId: destination }, amount },
});

/** 400 INVALID_INPUT naming `fields` (and only those), and the platform still without customers. */
async function refused(p: TestPlatform, doc: unknown, fields: string[]) {
  const res = await load(p, doc);
  expectError(res, 400, 'INVALID_INPUT');
  expect(failingFields(res)).toEqual(fields);
  expect((await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(0);
  return res.body;
}

describe('POST /sandbox/fixtures refuses a bad document whole, naming its JSON paths, and creates nothing', () => {
  it('an unknown ref', async () => {
    const p = await newPlatform();
    await refused(p, { customers: [base()], payments: [out({ $ref: 'alice.accounts.USD' }, { $ref: 'bob-bank' })] }, [
      'payments[0].transferOut.destination.accountId.$ref',
    ]);
    // A currency the platform lacks is no account either.
    await refused(p, { customers: [base()], payments: [out({ $ref: 'alice.accounts.GBP' }, { $ref: 'alice-bank' })] }, [
      'payments[0].transferOut.source.accountId.$ref',
    ]);
  });

  it('a duplicate ref', async () => {
    const p = await newPlatform();
    await refused(p, { customers: [base(), { ...individualBody(), ref: 'alice' }] }, ['customers[1].ref']);
  });

  it('a forward ref', async () => {
    const p = await newPlatform();
    const quote = {
      source: { sourceType: 'ACCOUNT', accountId: { $ref: 'alice.accounts.USD' } },
      destination: { destinationType: 'ACCOUNT', accountId: { $ref: 'alice-bank' } },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
      description: { $ref: 'later' },
    };
    await refused(
      p,
      { customers: [base()], payments: [{ quote }, { ref: 'later', ...out({ $ref: 'alice.accounts.USD' }, { $ref: 'alice-bank' }) }] },
      ['payments[0].quote.description.$ref'],
    );
  });

  it('a look-up that cannot be made: of an internal account, beside a lookupId, or with a query its route refuses', async () => {
    const p = await newPlatform();
    const quote = (to: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      source: { sourceType: 'ACCOUNT', accountId: { $ref: 'alice.accounts.USD' } },
      destination: to,
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
      ...extra,
    });
    const toBank = { destinationType: 'ACCOUNT', accountId: { $ref: 'alice-bank' } };
    const lookup = { customerId: { $ref: 'alice' } };
    await refused(
      p,
      {
        customers: [base()],
        payments: [{ quote: quote({ destinationType: 'ACCOUNT', accountId: { $ref: 'alice.accounts.EUR' } }), lookup }],
      },
      ['payments[0].lookup'],
    );
    await refused(p, { customers: [base()], payments: [{ quote: quote(toBank, { lookupId: 'LookupRequest:x' }), lookup }] }, [
      'payments[0].quote.lookupId',
    ]);
    await refused(p, { customers: [base()], payments: [{ quote: quote(toBank), lookup: { customerId: { $ref: 'alice-bank' } } }] }, [
      'payments[0].lookup.customerId.$ref',
    ]);
    await refused(p, { customers: [base()], payments: [{ quote: quote(toBank), lookup: { sender: 'x' } }] }, ['payments[0].lookup.sender']);
  });

  it('a look-up whose receiver asks for payer data the quote does not give: the whole document is rolled back', async () => {
    const p = await newPlatform();
    const quote = {
      source: { sourceType: 'ACCOUNT', accountId: { $ref: 'alice.accounts.USD' } },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.test' },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
    };
    const res = await load(p, { customers: [base()], payments: [{ quote, lookup: { customerId: { $ref: 'alice' } } }] });
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.details).toMatchObject({ entry: 'payments[0]', fields: [{ field: 'senderCustomerInfo.TAX_ID' }] });
    expect((await api('GET', '/customers', { auth: p.auth })).body.data).toEqual([]);
  });

  it('a ref of the wrong kind', async () => {
    const p = await newPlatform();
    await refused(p, { customers: [base()], payments: [out({ $ref: 'alice-bank' }, { $ref: 'alice' })] }, [
      'payments[0].transferOut.source.accountId.$ref',
      'payments[0].transferOut.destination.accountId.$ref',
    ]);
    await refused(p, { customers: [base()], agents: [{ name: 'A', customerId: { $ref: 'alice.accounts.USD' }, policy: policy() }] }, [
      'agents[0].customerId.$ref',
    ]);
  });

  it("a body its route's own schema refuses", async () => {
    const p = await newPlatform();
    const bad = {
      ...base(),
      ref: 'bob',
      externalAccounts: [{ currency: 'EUR', accountInfo: { ...bankInfo('EUR', '000'), iban: 'DE00' } }],
    };
    await refused(p, { customers: [base(), bad] }, ['customers[1].externalAccounts[0].accountInfo.iban']);
    await refused(p, { customers: [{ ...base(), birthDate: 'yesterday' }] }, ['customers[0].birthDate']);
    await refused(p, { customers: [base()], agents: [{ customerId: { $ref: 'alice' }, policy: policy() }] }, ['agents[0].name']);
    await refused(p, { customers: [base()], payments: [{ transferOut: {}, transferIn: {} }] }, ['payments[0]']);
    await refused(p, { customers: [base()], extra: [] }, ['extra']);
  });

  it('a kycStatus the sandbox cannot reach, or not a status at all', async () => {
    const p = await newPlatform();
    // An individual's hosted KYC link is completed (APPROVED) or failed (REJECTED): never left PENDING.
    await refused(p, { customers: [{ ...base(), kycStatus: 'PENDING' }] }, ['customers[0].kycStatus']);
    await refused(p, { customers: [{ ...base(), kycStatus: 'MAYBE' }] }, ['customers[0].kycStatus']);
    // A business reaches the outcome of its registration number's suffix (002: REJECTED), and needs its details on file.
    await refused(p, { customers: [{ ...businessBody({}, { registrationNumber: '5523001' }), kycStatus: 'REJECTED' }] }, [
      'customers[0].kycStatus',
    ]);
    await refused(p, { customers: [{ ...businessBody({}, { taxId: undefined }), kycStatus: 'APPROVED' }] }, [
      'customers[0].businessInfo.taxId',
    ]);
  });

  it('invitations: a ref of the wrong kind for a UMA address, or claimed and cancelled at once', async () => {
    const p = await newPlatform();
    const customers = [{ ...base(), ref: 'alice' }];
    await refused(p, { customers, invitations: [{ invitation: { inviterUma: { $ref: 'alice.accounts.USD' } } }] }, [
      'invitations[0].invitation.inviterUma.$ref',
    ]);
    await refused(p, { customers, invitations: [{ invitation: { inviterUma: { $ref: 'nobody' } } }] }, [
      'invitations[0].invitation.inviterUma.$ref',
    ]);
    await refused(p, { customers, invitations: [{ invitation: { inviterUma: 'not an address' } }] }, [
      'invitations[0].invitation.inviterUma',
    ]);
    await refused(
      p,
      {
        customers,
        invitations: [{ invitation: { inviterUma: { $ref: 'alice' } }, claim: { inviteeUma: { $ref: 'alice' } }, cancel: true }],
      },
      ['invitations[0].cancel'],
    );
    // A claim the API refuses (the inviter itself) rolls the whole document back, naming the entry.
    const res = await load(p, {
      customers,
      invitations: [{ invitation: { inviterUma: { $ref: 'alice' } }, claim: { inviteeUma: { $ref: 'alice' } } }],
    });
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.details.entry).toBe('invitations[0]');
    expect((await api('GET', '/invitations', { auth: p.auth })).body.data).toEqual([]);
    expect((await api('GET', '/customers', { auth: p.auth })).body.data).toEqual([]);
  });

  it('currencies the platform lacks', async () => {
    const p = await newPlatform();
    await refused(p, { customers: [{ ...base(), balances: { USD: 1, GBP: 5 } }] }, ['customers[0].balances.GBP']);
    await refused(p, { customers: [{ ...base(), currencies: ['USD', 'GBP'] }] }, ['customers[0].currencies[1]']);
  });

  it('a wallet the customer cannot have this way', async () => {
    const p = await newPlatform();
    await refused(p, { customers: [{ ...base(), wallet: { type: 'EMAIL_OTP' } }] }, ['customers[0].email']);
    await refused(p, { customers: [{ ...base(), email: 'a@example.com', wallet: { type: 'OAUTH', oidcToken: 'x' } }] }, [
      'customers[0].wallet.type',
    ]);
    const noWallets = await newPlatform({ embeddedWalletConfig: undefined });
    await refused(noWallets, { customers: [{ ...base(), email: 'a@example.com', wallet: { type: 'EMAIL_OTP' } }] }, [
      'customers[0].wallet',
    ]);
  });

  it('over the size limit; a document at the limit is checked whole', async () => {
    const p = await newPlatform();
    const customer = (i: number) => ({ ref: `c${i}`, ...individualBody({ platformCustomerId: `c-${i}` }) });
    const customers = Array.from({ length: 1_000 }, (_, i) => customer(i));
    await refused(p, { customers: [...customers, customer(1_000)] }, ['customers']);
    const payment = (i: number) => ({
      ref: `p${i}`,
      transferIn: {
        source: { accountId: 'ExternalAccount:x' },
        destination: { accountId: { $ref: `c${i % 1_000}.accounts.USD` } },
        amount: 1,
      },
    });
    const payments = Array.from({ length: 10_000 }, (_, i) => payment(i));
    await refused(p, { customers, payments: [...payments, payment(10_000)] }, ['payments']);
    // At the limit, every entry is checked: one bad ref among 11,000 entries is found, and named.
    payments[9_999]!.transferIn.destination.accountId = { $ref: 'c1000.accounts.USD' };
    await refused(p, { customers, payments }, ['payments[9999].transferIn.destination.accountId.$ref']);
  });
});

describe('POST /sandbox/fixtures body size', () => {
  it("reads a document past an ordinary body's 1 MiB, and refuses one past 8 MiB with 413", async () => {
    const p = await newPlatform();
    const padded = (bytes: number) => JSON.stringify({ customers: [base()] }).replace('{', `{${' '.repeat(bytes)}`);
    const big = await api('POST', '/sandbox/fixtures', {
      auth: p.auth,
      raw: padded(2 * 1024 * 1024),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(big.status, JSON.stringify(big.body)).toBe(201);
    const tooBig = await api('POST', '/sandbox/fixtures', {
      auth: p.auth,
      raw: padded(8 * 1024 * 1024),
      headers: { 'Content-Type': 'application/json' },
    });
    expectError(tooBig, 413, 'PAYLOAD_TOO_LARGE');
    expect((await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(1);
  });
});

describe('POST /sandbox/fixtures, all or nothing', () => {
  it("rolls back what the call created when a step fails, answering that step's error with its entry", async () => {
    const p = await newPlatform();
    const before = await api('POST', '/customers', { auth: p.auth, body: individualBody() });
    expect(before.status).toBe(201);
    const res = await load(p, {
      customers: [base(), { ...individualBody(), ref: 'bob', kycStatus: 'APPROVED', balances: { USD: 50 } }],
      payments: [
        { ref: 'ok', ...out({ $ref: 'alice.accounts.USD' }, { $ref: 'alice-bank' }, 500), settle: true },
        out({ $ref: 'alice.accounts.USD' }, { $ref: 'alice-bank' }, 5_000),
      ],
    });
    const error = expectError(res, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    expect(error.message).toContain('payments[1]');
    expect(error.details).toMatchObject({ entry: 'payments[1]' });
    // Only the customer made before the call is left; the clock the settle moved is back too.
    const list = await api('GET', '/customers', { auth: p.auth });
    expect(list.body.totalCount).toBe(1);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([before.body.id]);
    expect((await api('GET', '/transactions', { auth: p.auth })).body.totalCount).toBe(0);
    expect((await api('GET', '/sandbox/clock', { auth: p.auth })).body.clockOffsetSeconds).toBe(0);
    // No snapshot is left behind either.
    expect((await api('GET', '/sandbox/snapshots', { auth: p.auth })).body.data).toEqual([]);
    // The same document, corrected, loads.
    const again = await load(p, { customers: [base()], payments: [out({ $ref: 'alice.accounts.USD' }, { $ref: 'alice-bank' }, 500)] });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });
});

describe('POST /sandbox/fixtures per platform', () => {
  it("never resolves a ref to another platform's data, and refuses another platform's ids", async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    const loaded = await load(a, { customers: [base()] });
    expect(loaded.status).toBe(201);
    // Refs live in one document: b's document cannot name a's entries.
    await refused(b, { payments: [out({ $ref: 'alice.accounts.USD' }, { $ref: 'alice-bank' })] }, [
      'payments[0].transferOut.source.accountId.$ref',
      'payments[0].transferOut.destination.accountId.$ref',
    ]);
    // a's ids, written out, are not b's: 404, and b is left as it was.
    const res = await load(b, { customers: [base()], payments: [out(loaded.body.refs['alice.accounts.USD'], { $ref: 'alice-bank' })] });
    expectError(res, 404);
    expect(res.body.message).toContain('payments[0]');
    expect((await api('GET', '/customers', { auth: b.auth })).body.totalCount).toBe(0);
    expect(await balanceOf(a, loaded.body.refs['alice.accounts.USD'])).toBe(1_000);
  });
});

describe('POST /sandbox/fixtures rollback and revocations', () => {
  it('a rollback never restores an agent a MANAGE token deleted while the fixture ran', async () => {
    const p = await newPlatform();
    const agent = await newAgent({ p });
    expect((await api('GET', '/agents/me', { auth: agent.bearer })).status).toBe(200);
    const world = await load(p, { customers: [base()] });
    expect(world.status, JSON.stringify(world.body)).toBe(201);
    const [usd, bank] = [world.body.refs['alice.accounts.USD'], world.body.refs['alice-bank']];
    const transact = await tokenWith(p, ['TRANSACT']);
    const manage = await tokenWith(p, ['MANAGE']);
    const rule = await api('POST', '/sandbox/faults', {
      auth: transact,
      body: { match: { method: 'POST', path: '/transfer-out' }, effect: { type: 'LATENCY', delayMs: 1_500 } },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    // A TRANSACT token's fixture whose second transfer fails (insufficient funds), each transfer delayed.
    const loading = api('POST', '/sandbox/fixtures', { auth: transact, body: { payments: [out(usd, bank, 500), out(usd, bank, 5_000)] } });
    // Once the rule fired, the rollback point is taken and the first transfer is waiting: revoke then.
    const fired = async () => (await api('GET', `/sandbox/faults/${rule.body.id}`, { auth: p.auth })).body.firedCount;
    while ((await fired()) < 1) await new Promise((r) => setTimeout(r, 25));
    expect((await api('DELETE', `/agents/${agent.agentId}`, { auth: manage })).status).toBe(204);
    const res = await loading;
    expectError(res, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    // The fixture is rolled back (no transaction left), the deletion is not: the agent's token is refused.
    expect((await api('GET', '/transactions', { auth: p.auth })).body.totalCount).toBe(0);
    expectError(await api('GET', '/agents/me', { auth: agent.bearer }), 401);
    expectError(await api('GET', `/agents/${agent.agentId}`, { auth: p.auth }), 404);
  }, 30_000);
});
