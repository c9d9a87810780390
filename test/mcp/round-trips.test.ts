import { describe, expect, it } from 'vitest';
import { measured } from '../perf/counting';
import { newAgent, policy, usdOf } from '../support/agents';
import { externalAccount, fund } from '../support/payments';

/** One JSON-RPC request to /mcp (beside the version base), measured as the route budgets measure a route. */
const mcp = (bearer: string, method: string, params?: unknown) =>
  measured('POST', '/../mcp', {
    auth: bearer,
    headers: { Accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) },
  });

describe('the MCP endpoint costs what the routes it runs cost (D1 round trips)', () => {
  it('tools/list and initialize cost GET /agents/me; tools/call costs its route and nothing more', async () => {
    const a = await newAgent({ policy: policy() });
    const usd = usdOf(a);
    await fund(a.p, usd, 100_000);
    const bank = await externalAccount(a.p, a.customerId, 'USD', '789');
    const me = await measured('GET', '/agents/me', { auth: a.bearer });
    expect(me.cost.d1).toBeLessThanOrEqual(2);
    for (const method of ['initialize', 'tools/list', 'resources/list', 'ping']) {
      const params =
        method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } : undefined;
      const res = await mcp(a.bearer, method, params);
      expect(res.status, method).toBe(200);
      expect(res.cost.d1, method).toBe(me.cost.d1);
    }
    const list = await mcp(a.bearer, 'tools/call', { name: 'list_internal_accounts', arguments: {} });
    const listHttp = await measured('GET', '/agents/me/internal-accounts', { auth: a.bearer });
    expect(list.body.result.isError).toBeUndefined();
    expect(list.cost.d1).toBe(listHttp.cost.d1);
    const body = { source: { accountId: usd }, destination: { accountId: bank }, amount: 1_000 };
    // The first payment of a customer writes its first usage and count rows; the one measured is the next.
    expect(
      (await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, body, headers: { 'Idempotency-Key': 'http-0' } })).status,
    ).toBe(201);
    const http = await measured('POST', '/agents/me/transfer-out', { auth: a.bearer, body, headers: { 'Idempotency-Key': 'http-1' } });
    expect(http.status).toBe(201);
    const call = await mcp(a.bearer, 'tools/call', { name: 'create_transfer_out', arguments: { ...body, idempotencyKey: 'mcp-1' } });
    expect(call.body.result.structuredContent.status).toBe('APPROVED');
    expect(call.cost.d1).toBe(http.cost.d1);
    expect(call.cost.rowsWritten).toBe(http.cost.rowsWritten);
    expect(call.cost.queue).toBe(http.cost.queue);
  });
});
