import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { api, ORIGIN } from '../support/api';
import { newAgent, policy, usdOf } from '../support/agents';
import { balanceOf, externalAccount, fund } from '../support/payments';

/** The official MCP client, connected to the Worker's /mcp as the agent (the SDK's transport, fetching through SELF). */
async function connect(bearer: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    fetch: (input, init) => SELF.fetch(input as string, init as RequestInit),
    requestInit: { headers: { Authorization: bearer } },
  });
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const MONEY_TOOLS = ['create_quote', 'execute_quote', 'create_transfer_out', 'create_transfer_in'];

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };

describe('the official MCP TypeScript SDK client against /mcp', () => {
  it('lists only the tools the policy permits: a VIEW-only agent sees no money tools, a full agent sees them all', async () => {
    const full = await newAgent();
    const viewer = await newAgent({ p: full.p, policy: policy({ permissions: ['VIEW_TRANSACTIONS'] }) });
    const all = (await (await connect(full.bearer)).listTools()).tools.map((t) => t.name);
    expect(all.sort()).toEqual(
      [
        'get_agent',
        'list_internal_accounts',
        'list_external_accounts',
        'create_external_account',
        'get_external_account',
        'delete_external_account',
        'create_quote',
        'get_quote',
        'execute_quote',
        'create_transfer_out',
        'create_transfer_in',
        'list_actions',
        'get_action',
        'list_transactions',
        'get_transaction',
      ].sort(),
    );
    const client = await connect(viewer.bearer);
    const seen = (await client.listTools()).tools;
    for (const name of MONEY_TOOLS) expect(seen.map((t) => t.name)).not.toContain(name);
    expect(seen.map((t) => t.name)).toEqual(expect.arrayContaining(['get_agent', 'list_transactions', 'get_action', 'get_quote']));
    // Calling a tool it does not see is the route's own refusal, as a tool error.
    const refused = (await client.callTool({
      name: 'create_transfer_out',
      arguments: { source: { accountId: 'x' }, destination: { accountId: 'y' }, amount: 1 },
    })) as Result;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const resources = (await client.listResources()).resources.map((r) => r.name);
    expect(resources.sort()).toEqual(['external-accounts', 'internal-accounts', 'policy']);
    const read = await client.readResource({ uri: 'agent://service/2025-10-13/agents/me' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      id: viewer.agentId,
      policy: { permissions: ['VIEW_TRANSACTIONS'] },
    });
  });

  it('reads, a quote created and executed, transfers out (completed, over the limit, awaiting approval then approved), then revocation', async () => {
    // Above $100 the platform approves; above $1,000 the policy refuses.
    const a = await newAgent({ policy: policy({ approvalThresholds: { currency: 'USD', amount: 10_000 } }) });
    const usd = usdOf(a);
    await fund(a.p, usd, 100_000);
    const bank = await externalAccount(a.p, a.customerId, 'USD', '789');
    const client = await connect(a.bearer);
    const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;

    const me = await call('get_agent');
    expect(me.isError).toBeFalsy();
    expect(me.structuredContent).toMatchObject({ id: a.agentId, customerId: a.customerId });
    const accounts = await call('list_internal_accounts', { currency: 'USD' });
    expect(accounts.structuredContent.data.map((x: any) => x.id)).toContain(usd);
    expect(accounts.content[0]!.text).toMatch(/item/);
    expect((await call('list_external_accounts')).structuredContent.data.map((x: any) => x.id)).toEqual([bank]);
    expect((await call('get_external_account', { externalAccountId: bank })).structuredContent.id).toBe(bank);

    const quote = await call('create_quote', {
      source: { sourceType: 'ACCOUNT', accountId: usd },
      destination: { destinationType: 'ACCOUNT', accountId: bank },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 2_000,
    });
    expect(quote.isError, JSON.stringify(quote)).toBeFalsy();
    expect((await call('get_quote', { quoteId: quote.structuredContent.id })).structuredContent.id).toBe(quote.structuredContent.id);
    const executed = await call('execute_quote', { quoteId: quote.structuredContent.id, idempotencyKey: 'mcp-quote-1' });
    expect(executed.structuredContent).toMatchObject({ status: 'APPROVED', type: 'EXECUTE_QUOTE' });

    const out = (amount: number, idempotencyKey?: string) =>
      call('create_transfer_out', {
        source: { accountId: usd },
        destination: { accountId: bank },
        amount,
        ...(idempotencyKey ? { idempotencyKey } : {}),
      });
    const done = await out(2_500, 'mcp-out-1');
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ status: 'APPROVED', transaction: { agentId: a.agentId, status: 'COMPLETED' } });
    expect(done.content[0]!.text).toContain('APPROVED');
    // The same key replays the first answer: one payment.
    expect((await out(2_500, 'mcp-out-1')).structuredContent.id).toBe(done.structuredContent.id);
    const afterDone = await balanceOf(a.p, usd);

    const over = await out(150_000);
    expect(over.isError).toBe(true);
    expect(over.structuredContent).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
      message: expect.stringContaining('per-transaction limit'),
    });
    expect(over.content[0]!.text).toMatch(/FORBIDDEN/);
    expect(await balanceOf(a.p, usd)).toBe(afterDone);

    const waiting = await out(20_000);
    expect(waiting.structuredContent).toMatchObject({ status: 'PENDING_APPROVAL', type: 'TRANSFER_OUT' });
    expect(waiting.content[0]!.text).toContain('get_action');
    const actionId = waiting.structuredContent.id as string;
    const approved = await api('POST', `/agents/${a.agentId}/actions/${actionId}/approve`, { auth: a.p.auth });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const followed = await call('get_action', { actionId });
    expect(followed.structuredContent).toMatchObject({ id: actionId, status: 'APPROVED', transaction: { status: 'COMPLETED' } });

    // MCP and HTTP are one: the agent's HTTP view lists the MCP calls' actions, with the same usage.
    const http = await api('GET', '/agents/me/actions', { auth: a.bearer });
    expect(http.body.data.map((x: any) => x.id)).toEqual(
      expect.arrayContaining([executed.structuredContent.id, done.structuredContent.id, actionId]),
    );
    const listed = await call('list_actions');
    expect(listed.structuredContent).toEqual(http.body);
    const tx = await call('get_transaction', { transactionId: done.structuredContent.transaction.id });
    expect(tx.structuredContent).toEqual((await api('GET', `/agents/me/transactions/${tx.structuredContent.id}`, { auth: a.bearer })).body);

    // An API error is a tool result the model can read, not a protocol error.
    const missing = await call('get_action', { actionId: 'AgentAction:nope' });
    expect(missing).toMatchObject({
      isError: true,
      structuredContent: { status: 404, code: 'REFERENCE_NOT_FOUND', details: { reason: 'AGENT_ACTION_NOT_FOUND' } },
    });
    expect(missing.content[0]!.text).toContain('Error REFERENCE_NOT_FOUND (HTTP 404, AGENT_ACTION_NOT_FOUND)');
    const invalid = await call('create_transfer_out', { source: { accountId: usd }, destination: { accountId: bank }, amount: -5 });
    expect(invalid).toMatchObject({ isError: true, structuredContent: { status: 400, code: 'INVALID_INPUT' } });

    expect((await api('DELETE', `/agents/${a.agentId}`, { auth: a.p.auth })).status).toBe(204);
    await expect(client.listTools()).rejects.toThrow(/401|Unauthorized/);
  });
});
