// Fault rules narrowed to a customer or an account match the request's own customer and accounts, also when the
// request names only a record of theirs (an execute names only the quote).
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, BASE, expectError, newPlatform, type TestPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import { createQuote, customerWithAccounts, execute, externalAccount, fund, idemKey } from '../support/payments';
import { measured } from '../perf/counting';

const createFault = async (p: TestPlatform, body: Record<string, unknown>) => {
  const res = await api('POST', '/sandbox/faults', { auth: p.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

/** A funded customer with a USD bank account to pay out to. */
async function payer(p: TestPlatform) {
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  const ext = await externalAccount(p, customer.id, 'USD', '321');
  return { customerId: customer.id as string, usd: accounts.USD!, ext };
}
const quoteOf = (p: TestPlatform, who: { usd: string; ext: string }) =>
  createQuote(p, {
    source: { sourceType: 'ACCOUNT', accountId: who.usd },
    destination: { destinationType: 'ACCOUNT', accountId: who.ext },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1_000,
  });
const EXECUTE = '/quotes/{quoteId}/execute';

describe("a rule narrowed to a customer or account matches the request's resolved customer and accounts", () => {
  it("fires on POST /quotes/{quoteId}/execute of that customer's quote (the DISCONNECT example of docs/sandbox-faults.md), not another's", async () => {
    const p = await newPlatform();
    const [alice, bob] = [await payer(p), await payer(p)];
    const rule = await createFault(p, {
      match: { method: 'POST', path: EXECUTE, customerId: alice.customerId },
      effect: { type: 'DISCONNECT' },
    });
    const theirs = await execute(p, (await quoteOf(p, bob)).id);
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    expect(theirs.headers.get('X-Sandbox-Fault')).toBeNull();
    const quote = await quoteOf(p, alice);
    const res = await SELF.fetch(`${BASE}/quotes/${quote.id}/execute`, {
      method: 'POST',
      headers: { Authorization: p.auth, 'Idempotency-Key': idemKey() },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Sandbox-Fault')).toBe(rule.id);
    await expect(res.text()).rejects.toThrow();
  });

  it('an account rule fires on an execute paying from that account', async () => {
    const p = await newPlatform();
    const [alice, bob] = [await payer(p), await payer(p)];
    const rule = await createFault(p, {
      match: { method: 'POST', path: EXECUTE, accountId: bob.usd },
      effect: { type: 'ERROR', status: 503 },
    });
    expect((await execute(p, (await quoteOf(p, alice)).id)).status).toBe(200);
    const refused = await execute(p, (await quoteOf(p, bob)).id);
    expectError(refused, 503, 'INTERNAL_ERROR');
    expect(refused.headers.get('X-Sandbox-Fault')).toBe(rule.id);
  });

  it("matches an agent's requests to its customer, whatever they name", async () => {
    const a = await newAgent();
    const other = await customerWithAccounts(a.p);
    const rule = await createFault(a.p, {
      match: { method: 'GET', path: '/agents/me', customerId: a.customerId },
      effect: { type: 'ERROR', status: 500 },
    });
    const res = await api('GET', '/agents/me', { auth: a.bearer });
    expectError(res, 500, 'INTERNAL_ERROR');
    expect(res.headers.get('X-Sandbox-Fault')).toBe(rule.id);
    // A rule for another customer leaves the agent alone.
    await createFault(a.p, {
      match: { method: 'GET', path: '/agents/me', customerId: other.customer.id },
      effect: { type: 'ERROR', status: 500 },
    });
    expect((await api('GET', '/agents/me', { auth: a.bearer })).status).toBe(200);
  });

  it('costs one round trip only when a rule of the operation is narrowed to a customer the request does not name', async () => {
    const p = await newPlatform();
    const alice = await payer(p);
    const quote = await quoteOf(p, alice);
    const plain = await measured('GET', `/quotes/${quote.id}`, { auth: p.auth });
    await createFault(p, {
      match: { method: 'GET', path: '/quotes/{quoteId}', customerId: 'Customer:nobody' },
      effect: { type: 'DISCONNECT' },
    });
    const narrowed = await measured('GET', `/quotes/${quote.id}`, { auth: p.auth });
    expect(narrowed.status).toBe(200);
    expect(narrowed.cost.d1).toBe(plain.cost.d1 + 1);
    // A request naming a customer decides without it.
    const { customer } = await customerWithAccounts(p);
    await createFault(p, {
      match: { method: 'GET', path: '/customers/{customerId}', customerId: 'Customer:nobody' },
      effect: { type: 'DISCONNECT' },
    });
    expect((await measured('GET', `/customers/${customer.id}`, { auth: p.auth })).cost.d1).toBe(1);
  });
});
