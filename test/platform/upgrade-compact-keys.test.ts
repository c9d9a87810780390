import { describe, expect, it } from 'vitest';
import { api, newPlatform } from '../support/api';
import { transferAndQuote } from '../support/payments';
import { pagesAcrossUpgrade } from '../support/upgrade-lists';

describe('upgrading a database of the previous release (ids keyed by their UUID in the list indexes, 0040)', () => {
  it('pages every transaction and quote list, ties of one createdAt included, as this release does', async () => {
    await pagesAcrossUpgrade('0039_', (sql, name) => {
      // Platform first, by its key; the list's order last.
      expect(sql, name).toMatch(/^CREATE INDEX `\w+` ON `\w+` \(coalesce\(unhex\(replace\(substr\(`platform_id`,/);
      expect(sql, name).toMatch(/`created_at`\)( WHERE .*)?$/);
    });
  });
});

describe('a keyed id matches only itself', () => {
  it('another spelling of the same UUID, another UUID of the same end, or an id that is no UUID, finds nothing', async () => {
    const p = await newPlatform();
    const { customer, usd, bank, out, quote } = await transferAndQuote(p);
    const enc = encodeURIComponent;
    const found = async (path: string) => {
      const res = await api('GET', path, { auth: p.auth });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.data.map((item: { id: string }) => item.id);
    };
    // The ids as given find their rows.
    expect(await found(`/transactions?customerId=${enc(customer.id)}`)).toContain(out.body.id);
    expect(await found(`/transactions?senderAccountIdentifier=${enc(usd)}`)).toContain(out.body.id);
    expect(await found(`/transactions?receiverAccountIdentifier=${enc(bank)}`)).toContain(out.body.id);
    expect(await found(`/quotes?customerId=${enc(customer.id)}`)).toEqual([quote.id]);
    expect(await found(`/quotes?sendingAccountId=${enc(usd)}`)).toEqual([quote.id]);
    expect(await found(`/quotes?receivingAccountId=${enc(bank)}`)).toEqual([quote.id]);
    // Ids of the same key (the last 8 bytes of the UUID) are other ids: the UUID in upper case, another type's
    // prefix, another UUID with the same end. Text that is no UUID has a key too.
    const upper = (id: string) => id.replace(/:(.*)$/, (_, uuid: string) => `:${uuid.toUpperCase()}`);
    const retyped = (id: string) => id.replace(/^\w+:/, 'Other:');
    const earlier = (id: string) => id.replace(/:(.)/, (_, c: string) => `:${c === '0' ? '1' : '0'}`);
    for (const id of [upper(customer.id), retyped(customer.id), earlier(customer.id), 'Customer:not-hex', 'Customer:abcd']) {
      expect(await found(`/transactions?customerId=${enc(id)}`), id).toEqual([]);
      expect(await found(`/quotes?customerId=${enc(id)}`), id).toEqual([]);
    }
    for (const id of [upper(usd), retyped(usd), earlier(usd)]) {
      expect(await found(`/transactions?accountIdentifier=${enc(id)}`), id).toEqual([]);
      expect(await found(`/quotes?sendingAccountId=${enc(id)}`), id).toEqual([]);
    }
    for (const id of [upper(bank), retyped(bank), earlier(bank)])
      expect(await found(`/quotes?receivingAccountId=${enc(id)}`), id).toEqual([]);
  });
});
