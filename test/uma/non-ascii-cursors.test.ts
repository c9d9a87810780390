import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, OPERATOR } from '../support/api';

// Ascending by the names' UTF-8 bytes (D1's BINARY collation); the two "Zürich Pay" tie on the name and are
// ordered by id, so a page may end between them.
const NAMES = ['Alpha Pay', 'Zulu Pay', 'Zürich Pay', 'Zürich Pay', 'Ångström Bank', '東京ペイ', '🚀 Rocket Pay'];

/** The domains of every page's providers; a cursor that repeats or loops stops after 10 pages. */
async function domains(query: string, auth: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor = '';
  for (let page = 0; page < 10; page++) {
    const res = await api('GET', `/uma-providers?${query}${cursor && `&cursor=${encodeURIComponent(cursor)}`}`, { auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body.data.map((x: any) => x.domain));
    if (!res.body.hasMore) return seen;
    cursor = res.body.nextCursor;
  }
  return seen;
}

describe('GET /uma-providers with non-ASCII names', () => {
  it('pages through each provider exactly once, in order, at every page size and in both orders', async () => {
    const p = await newPlatform();
    const run = Date.now();
    const providers = NAMES.map((name, i) => ({
      name,
      domain: `utf8-${run}-${i}.example`,
      supportedRegions: ['TV'],
      supportedCurrencies: ['USD'],
    }));
    // One at a time, so the ids (the tiebreaker) follow the list's order.
    for (const provider of providers) {
      expect((await api('POST', '/operator/uma-providers', { auth: OPERATOR, body: { providers: [provider] } })).status).toBe(200);
    }
    const ascending = providers.map((x) => x.domain);
    for (let limit = 1; limit <= 5; limit++) {
      expect(await domains(`countryCode=TV&sortOrder=asc&limit=${limit}`, p.auth), `asc, limit ${limit}`).toEqual(ascending);
      expect(await domains(`countryCode=TV&sortOrder=desc&limit=${limit}`, p.auth), `desc, limit ${limit}`).toEqual(
        [...ascending].reverse(),
      );
    }
  });

  it('takes a cursor of the previous release (ASCII key, unpadded base64url) and refuses a malformed one', async () => {
    const p = await newPlatform();
    const first = (await api('GET', '/uma-providers?sortOrder=asc&limit=3', { auth: p.auth })).body;
    const last = first.data[2].name as string;
    expect(last).toMatch(/^[\x20-\x7e]+$/);
    const { id } = JSON.parse(
      new TextDecoder().decode(Uint8Array.from(atob(first.nextCursor.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))),
    );
    // The previous release's encoding: btoa of the JSON, url-safe alphabet, padding removed.
    const old = btoa(JSON.stringify({ k: last, id }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    expect(old).toBe(first.nextCursor);
    const next = (await api('GET', `/uma-providers?sortOrder=asc&limit=3&cursor=${old}`, { auth: p.auth })).body;
    const both = (await api('GET', '/uma-providers?sortOrder=asc&limit=6', { auth: p.auth })).body;
    expect(next.data).toEqual(both.data.slice(3));
    for (const bad of ['%25%25%25', 'eyJpZCI6', btoa('\xff\xfe{"id":"x"}'), 'e30', 'bnVsbA']) {
      const res = await api('GET', `/uma-providers?cursor=${bad}`, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), bad).toEqual(['cursor']);
    }
  });
});
