// The console's Agents view in a real browser, and the MCP endpoint it points at on a running `npm start`:
// the agent's page shows its MCP URL and client configurations, issues a device code, and the token that code
// redeems for lists the agent's tools at that URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browser, call, createCustomer, openPage, screenshot, service, signIn, tag, useSuite } from './lib/harness.mjs';

useSuite();

test(
  'agents: a customer’s agent is listed; its page shows the MCP URL and configuration; its device code connects an MCP client',
  { timeout: 120_000 },
  async () => {
    const t = tag();
    const { customer } = await createCustomer(call, { fullName: `Agent Owner ${t}` });
    const created = await call('POST', '/agents', {
      name: `Browser bot ${t}`,
      customerId: customer.id,
      policy: {
        permissions: ['VIEW_TRANSACTIONS'],
        defaultExecutionMode: 'AUTO',
        spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, dailyLimit: 5_000, dailyTransactionLimit: 5, monthlyLimit: 20_000 },
      },
    });

    const opened = await openPage(browser, service.origin);
    const { page } = opened;
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents', exact: true }).click();
    await page.waitForURL((url) => url.hash === '#/agents');
    await page.getByLabel('Customer ID').fill(customer.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/agents?customerId='));
    await screenshot(page, 'agents');
    await page.getByRole('link', { name: `Browser bot ${t}` }).click();
    await page.getByRole('heading', { name: `Browser bot ${t}`, level: 1 }).waitFor();

    const mcpUrl = `${service.origin}/mcp`;
    assert.equal((await page.locator('pre.mcp-url').innerText()).trim(), mcpUrl);
    const remote = JSON.parse(await page.locator('pre[data-config="remote"]').innerText());
    assert.deepEqual(remote.mcpServers['payments-agent'], {
      type: 'http',
      url: mcpUrl,
      headers: { Authorization: 'Bearer <agent access token>' },
    });
    const bridged = JSON.parse(await page.locator('pre[data-config="bridged"]').innerText());
    assert.deepEqual(bridged.mcpServers['payments-agent'].args.slice(0, 2), ['mcp-remote', mcpUrl]);

    await page.getByRole('button', { name: 'Issue a device code' }).click();
    await page.getByText('Device code issued').waitFor();
    const code = (await page.locator('dl.facts').last().locator('code').first().innerText()).trim();
    assert.notEqual(code, created.deviceCode.code);
    await screenshot(page, 'agent');

    // The code, redeemed where the assistant runs, gives the token an MCP client sends to that URL.
    const redeemed = await fetch(`${service.baseUrl}/agents/device-codes/${code}/redeem`, { method: 'POST' }).then((r) => r.json());
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${redeemed.accessToken}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 200);
    const names = (await res.json()).result.tools.map((x) => x.name);
    assert.ok(names.includes('get_agent') && names.includes('list_transactions'), names.join());
    assert.ok(!names.includes('create_transfer_out'), 'a VIEW_TRANSACTIONS agent sees no money tool');
    opened.checkClean();
  },
);
