// Agents: the list (all of the platform's, or one customer's) and an agent's page: its policy and usage, its MCP
// URL with a ready-to-paste client configuration, and a device code to connect an assistant.
import { api, apiBase } from './api.js';
import { actionForm, badge, facts, field, fill, h, shortId, table, when } from './ui.js';

const link = (a) => h('a', { href: `#/agents/${encodeURIComponent(a.id)}`, title: a.id }, a.name);
const customerLink = (id) => h('a', { href: `#/customers/${encodeURIComponent(id)}`, title: id }, h('code', null, shortId(id)));
const state = (a) => badge(a.isPaused ? 'PAUSED' : a.isConnected ? 'CONNECTED' : 'NOT_CONNECTED');

/** The MCP endpoint: beside the version base (`/<prefix>/mcp` when the API has a prefix). */
export const mcpUrl = () => `${location.origin}${apiBase.replace(/\/[^/]*$/, '')}/mcp`;

/** What a client that supports remote servers with headers takes, and the stdio bridge for the others. */
export function clientConfigs(url, name = 'payments-agent') {
  const remote = { mcpServers: { [name]: { type: 'http', url, headers: { Authorization: 'Bearer <agent access token>' } } } };
  const bridged = {
    mcpServers: {
      [name]: {
        command: 'npx',
        args: ['mcp-remote', url, '--header', 'Authorization:${AGENT_AUTH}'],
        env: { AGENT_AUTH: 'Bearer <agent access token>' },
      },
    },
  };
  return { remote: JSON.stringify(remote, null, 2), bridged: JSON.stringify(bridged, null, 2) };
}

export async function agentList(main, _param, _live, query) {
  const customerId = h('input', {
    name: 'customerId',
    value: query.get('customerId') ?? '',
    placeholder: 'Customer:…',
    spellcheck: 'false',
  });
  const results = h('div');
  const count = h('p', { class: 'muted', role: 'status' });
  const load = async () => {
    const page = await api('/agents', { query: { customerId: customerId.value.trim() || undefined, limit: 100 } });
    const n = page.totalCount ?? page.data.length;
    fill(count, `${n}${page.hasMore ? '+' : ''} agent${n === 1 ? '' : 's'}`);
    fill(
      results,
      table(
        [
          { label: 'Agent', cell: link },
          { label: 'Customer', cell: (a) => customerLink(a.customerId) },
          { label: 'State', cell: state },
          { label: 'Permissions', cell: (a) => a.policy.permissions.join(', ') || '–' },
          { label: 'Created', cell: (a) => when(a.createdAt) },
        ],
        page.data,
        customerId.value ? 'This customer has no agents.' : 'No agents yet. Create one with POST /agents.',
      ),
    );
  };
  fill(
    main,
    h('h1', null, 'Agents'),
    h(
      'form',
      {
        class: 'filters',
        onsubmit: (e) => {
          e.preventDefault();
          history.replaceState(
            null,
            '',
            `#/agents${customerId.value.trim() ? `?customerId=${encodeURIComponent(customerId.value.trim())}` : ''}`,
          );
          load().catch((error) => fill(results, h('p', { class: 'error', role: 'alert' }, error.message)));
        },
      },
      field('Customer ID', customerId),
      h('button', { type: 'submit', class: 'secondary' }, 'Filter'),
    ),
    count,
    results,
  );
  await load();
}

export async function agentPage(main, id) {
  const agent = await api(`/agents/${encodeURIComponent(id)}`);
  const { policy, usage } = agent;
  const limits = policy.spendingLimits;
  const url = mcpUrl();
  const configs = clientConfigs(url);
  const code = h('div');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/agents' }, 'Agents'), ' / ', agent.name),
    h('h1', null, agent.name),
    facts([
      ['Agent', h('code', null, agent.id)],
      ['Customer', customerLink(agent.customerId)],
      ['State', state(agent)],
      ['Permissions', policy.permissions.join(', ') || 'none'],
      ['Execution', policy.defaultExecutionMode],
      [
        'Limits',
        limits
          ? `${limits.currency}: ${limits.perTransactionLimit ?? '∞'} per transaction, ${limits.dailyLimit ?? '∞'} a day, ${limits.monthlyLimit ?? '∞'} a month (smallest unit)`
          : undefined,
      ],
      ['Usage', usage ? JSON.stringify(usage) : undefined],
      ['Created', when(agent.createdAt)],
    ]),
    h('h2', null, 'Connect an AI assistant (MCP)'),
    h(
      'p',
      null,
      'Any client of the Model Context Protocol can act as this agent: it sees only the tools the policy permits, and every ',
      'money action is held to its limits and approvals. Its MCP URL:',
    ),
    h('pre', { class: 'mcp-url' }, h('code', null, url)),
    h('p', null, 'A client that supports remote servers with custom headers:'),
    h('pre', { class: 'mcp-config', data: { config: 'remote' } }, h('code', null, configs.remote)),
    h('p', null, 'A client that only speaks stdio, through ', h('code', null, 'mcp-remote'), ':'),
    h('pre', { class: 'mcp-config', data: { config: 'bridged' } }, h('code', null, configs.bridged)),
    h(
      'p',
      { class: 'muted' },
      'The access token is shown once, when a device code is redeemed. Issue a code, then redeem it where the assistant runs: ',
      h('code', null, `curl -X POST ${location.origin}${apiBase}/agents/device-codes/<code>/redeem`),
      ' answers the accessToken to put in place of <agent access token>.',
    ),
    actionForm('Issue a device code', [], async () => {
      const issued = await api(`/agents/${encodeURIComponent(agent.id)}/device-codes`, { method: 'POST' });
      fill(
        code,
        facts([
          ['Device code', h('code', null, issued.code)],
          ['Expires', when(issued.expiresAt)],
        ]),
      );
      return 'Device code issued: redeem it within its lifetime.';
    }),
    code,
  );
}
