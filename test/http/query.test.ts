import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform } from '../support/api';

type Param = { name: string; in: string; required: boolean };
type Op = { parameters?: Param[]; security: Record<string, string[]>[] };

describe('query parameters', () => {
  it('every operation with query parameters answers 400 INVALID_INPUT naming a parameter it does not declare', async () => {
    const p = await newPlatform();
    const doc = (await api('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Op>> };
    const withQuery = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => (op.parameters ?? []).some((x) => x.in === 'query'))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    // The lists the issue names are among them.
    for (const list of ['/transactions', '/agents/me/transactions', '/quotes', '/customers', '/tokens', '/webhooks/deliveries']) {
      expect(withQuery.map((x) => x.path)).toContain(list);
    }
    let checked = 0;
    for (const { method, path, op } of withQuery) {
      if (path.includes('{') || !op.security.some((s) => 'BasicAuth' in s)) continue;
      const declared = op.parameters!.filter((x) => x.in === 'query');
      // Declared parameters with plausible values pass the unknown-parameter check; an undeclared one is named.
      const res = await api(method, `${path}?limit=5&notAParameter=1&customerid=x`, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      const fields = res.body.details.fields.map((f: { field: string }) => f.field);
      expect(fields, `${method} ${path}`).toContain('notAParameter');
      expect(fields, `${method} ${path}`).toContain('customerid'); // names are case-sensitive
      if (declared.some((x) => x.name === 'limit')) expect(fields, `${method} ${path}`).not.toContain('limit');
      expect(res.body.message).toContain('notAParameter');
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });

  it('declared parameters still work beside the rule, and a repeated one is refused as before', async () => {
    const p = await newPlatform();
    expect((await api('GET', '/transactions?limit=5&sortOrder=asc&status=PENDING', { auth: p.auth })).status).toBe(200);
    expect((await api('GET', '/quotes?limit=5&status=EXPIRED', { auth: p.auth })).status).toBe(200);
    expectError(await api('GET', '/quotes?limit=5&limit=6', { auth: p.auth }), 400, 'INVALID_INPUT');
    const proto = await api('GET', '/transactions?__proto__=1', { auth: p.auth });
    expectError(proto, 400, 'INVALID_INPUT');
    expect(proto.body.details.fields).toEqual([{ field: '__proto__', message: 'Unknown field' }]);
    // The path's own operation decides: an id lookup without a query schema is unaffected.
    expect((await api('GET', '/config?x=1', { auth: p.auth })).status).toBe(200);
  });

  it('/openapi.json documents the reference’s transaction-list parameters and the SDK’s quote-list parameters', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const names = (path: string) =>
      doc.paths[path].get.parameters
        .filter((x: Param) => x.in === 'query')
        .map((x: Param) => x.name)
        .sort();
    const reference = [
      'accountIdentifier',
      'senderAccountIdentifier',
      'receiverAccountIdentifier',
      'status',
      'type',
      'reference',
      'startDate',
      'endDate',
      'limit',
      'cursor',
      'sortOrder',
    ];
    expect(names('/transactions')).toEqual([...reference, 'customerId', 'platformCustomerId'].sort());
    expect(names('/agents/me/transactions')).toEqual(reference.sort());
    expect(names('/quotes')).toEqual(
      [
        'customerId',
        'sendingAccountId',
        'receivingAccountId',
        'sendingUmaAddress',
        'receivingUmaAddress',
        'status',
        'createdAfter',
        'createdBefore',
        'limit',
        'cursor',
      ].sort(),
    );
    const list = doc.paths['/quotes'].get;
    expect(list).toMatchObject({ operationId: 'listQuotes', 'x-required-permission': 'VIEW' });
    expect(list.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/QuoteListResponse');
    expect(doc.components.schemas.QuoteListResponse.properties.data.items.$ref).toBe('#/components/schemas/Quote');
    expect(doc.paths['/agents/me/quotes'].get).toBeUndefined(); // neither the reference nor the SDK has it
  });
});
