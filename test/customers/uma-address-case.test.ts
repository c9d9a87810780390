import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { receiverLoads } from '../../src/sandbox/payments-service';
import { api, expectError, newPlatform, type ApiResult } from '../support/api';
import { createCustomer, individualBody } from '../support/customers';
import { accountsOf } from '../support/customers';

// A UMA address names one receiver whatever the case of its letters: unique per platform, case-insensitively.

function expectTaken(res: ApiResult) {
  expectError(res, 409, 'UMA_ADDRESS_EXISTS');
  expect(res.headers.get('x-should-retry')).toBe('false');
}

const receive = (auth: string, receiverUmaAddress: string) =>
  api('POST', '/sandbox/uma/receive', {
    auth,
    body: { senderUmaAddress: '$payer@sender.example', receiverUmaAddress, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 700 },
  });

describe('UMA addresses that differ only in case', () => {
  it('are one address: the second is 409 at create (given or defaulted) and PATCH; a payment to any spelling reaches the holder', async () => {
    const p = await newPlatform();
    const alice = await createCustomer(p, individualBody({ umaAddress: `$Alice.Case@${p.umaDomain}` }));
    expectTaken(await api('POST', '/customers', { auth: p.auth, body: individualBody({ umaAddress: `$alice.case@${p.umaDomain}` }) }));
    expectTaken(
      await api('POST', '/customers', { auth: p.auth, body: individualBody({ umaAddress: `ALICE.CASE@${p.umaDomain.toUpperCase()}` }) }),
    );
    // The default address `$<platformCustomerId>@<domain>`: platformCustomerIds are case-sensitive, addresses are not.
    await createCustomer(p, individualBody({ platformCustomerId: 'Bob' }));
    expectTaken(await api('POST', '/customers', { auth: p.auth, body: individualBody({ platformCustomerId: 'bob' }) }));

    const carol = await createCustomer(p, individualBody({ umaAddress: `$carol@${p.umaDomain}` }));
    const patch = (id: string, umaAddress: string) =>
      api('PATCH', `/customers/${id}`, { auth: p.auth, body: { customerType: 'INDIVIDUAL', umaAddress } });
    expectTaken(await patch(carol.id, `$ALICE.case@${p.umaDomain}`));
    // Its own address in another case is still its own.
    const respelled = await patch(alice.id, `$alice.case@${p.umaDomain}`);
    expect(respelled.status, JSON.stringify(respelled.body)).toBe(200);
    expect(respelled.body.umaAddress).toBe(`$alice.case@${p.umaDomain}`);

    const res = await receive(p.auth, `$ALICE.CASE@${p.umaDomain}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.customerId).toBe(alice.id);
    const usd = (await accountsOf(p, alice.id)).find((a) => a.balance.currency.code === 'USD' && a.type !== 'EMBEDDED_WALLET');
    expect(res.body.destination.accountId).toBe(usd.id);

    const listed = await api('GET', `/customers?umaAddress=${encodeURIComponent(`$ALICE.Case@${p.umaDomain}`)}`, { auth: p.auth });
    expect(listed.body.data.map((c: any) => c.id)).toEqual([alice.id]);
  });

  it('of two concurrent creates in different case, exactly one gets the address', async () => {
    const p = await newPlatform();
    const results = await Promise.all(
      ['$Race@', '$race@', '$RACE@', '$rAcE@'].map((prefix) =>
        api('POST', '/customers', { auth: p.auth, body: individualBody({ umaAddress: `${prefix}${p.umaDomain}` }) }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expectTaken(r);
  });

  it("is free again, in any case, once its customer is deleted; another platform's customers do not collide", async () => {
    const p = await newPlatform();
    const gone = await createCustomer(p, individualBody({ umaAddress: `$dora@${p.umaDomain}` }));
    expect((await api('DELETE', `/customers/${gone.id}`, { auth: p.auth })).status).toBe(200);
    const again = await createCustomer(p, individualBody({ umaAddress: `$DORA@${p.umaDomain}` }));
    expect(again.umaAddress).toBe(`$DORA@${p.umaDomain}`);
    const res = await receive(p.auth, `$dora@${p.umaDomain}`);
    expect(res.body.customerId).toBe(again.id);
  });

  it('the receiver lookup is one probe of the unique index', async () => {
    const p = await newPlatform();
    const input = {
      senderUmaAddress: '$x@s.example',
      receiverUmaAddress: `$Who@${p.umaDomain}`,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1,
    };
    const query = receiverLoads(database(env.DB), sql`${p.id}`, input).customer.toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail).join('\n')).toMatch(/SEARCH customers USING INDEX customers_uma_address_uq/);
  });
});
