import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src';
import { describe, expect, it } from 'vitest';
import { api, ORIGIN } from '../support/api';
import { newAgent } from '../support/agents';

const MCP = `${ORIGIN}/mcp`;
const JSON_AND_SSE = 'application/json, text/event-stream';

/** One POST to /mcp as an MCP client sends it; `headers` replace the client's. */
async function post(body: unknown, headers: Record<string, string> = {}, raw?: BodyInit) {
  const res = await SELF.fetch(MCP, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: JSON_AND_SSE, 'MCP-Protocol-Version': '2025-06-18', ...headers },
    body: raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const rpc = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

describe('the MCP endpoint: Streamable HTTP, stateless, JSON-RPC', () => {
  it('initialize answers the asked protocol version (2025-06-18 or later), the newest otherwise; ping answers {}', async () => {
    const a = await newAgent();
    const auth = { Authorization: a.bearer };
    const init = await post(
      rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      auth,
    );
    expect(init.status).toBe(200);
    expect(init.headers.get('Content-Type')).toBe('application/json');
    expect(init.headers.get('Mcp-Session-Id')).toBeNull();
    expect(init.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: {}, resources: {} }, serverInfo: { name: 'payments-agent' } },
    });
    const old = await post(
      rpc('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      auth,
    );
    expect(old.body.result.protocolVersion).toBe('2025-11-25');
    expect((await post(rpc('ping', undefined, 'p-1'), auth)).body).toEqual({ jsonrpc: '2.0', id: 'p-1', result: {} });
  });

  it('a notification (and a client response) is 202 with no body; a batch is refused (removed in 2025-06-18)', async () => {
    const a = await newAgent();
    const auth = { Authorization: a.bearer };
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, auth);
    expect(note.status).toBe(202);
    expect(note.body).toBeUndefined();
    expect((await post({ jsonrpc: '2.0', id: 7, result: {} }, auth)).status).toBe(202);
    const batch = await post([rpc('ping'), rpc('tools/list', {}, 2)], auth);
    expect(batch.status).toBe(400);
    expect(batch.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('batch') } });
  });

  it('an unknown method is -32601 in a 200; malformed JSON is -32700; a message that is not JSON-RPC 2.0 is -32600', async () => {
    const a = await newAgent();
    const auth = { Authorization: a.bearer };
    const unknown = await post(rpc('sampling/createMessage', {}, 3), auth);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } });
    const parse = await post(undefined, auth, '{"jsonrpc":"2.0",');
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({ id: null, error: { code: -32700 } });
    for (const bad of [
      { id: 1, method: 'ping' },
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      'ping',
      null,
      { jsonrpc: '2.0', id: 1, method: 5 },
    ]) {
      const res = await post(bad, auth);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code, JSON.stringify(bad)).toBe(-32600);
    }
    const badId = await post({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }, auth);
    expect(badId.body.error.code).toBe(-32600);
    const badParams = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] }, auth);
    expect(badParams.body.error.code).toBe(-32600);
    // An unknown tool is the protocol's invalid-params error, not a tool result.
    const noTool = await post(rpc('tools/call', { name: 'move_all_money', arguments: {} }), auth);
    expect(noTool.body).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining('move_all_money') } });
  });

  it('content type, Accept, protocol version and size are the transport’s: 415, 406, 400, 413', async () => {
    const a = await newAgent();
    const auth = { Authorization: a.bearer };
    const text = await post(undefined, { ...auth, 'Content-Type': 'text/plain' }, JSON.stringify(rpc('ping')));
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe(-32600);
    expect((await post(rpc('ping'), { ...auth, 'Content-Type': 'application/json-rpc' })).status).toBe(415);
    // Accept: the client lists application/json (with text/event-stream); this server answers JSON only.
    expect((await post(rpc('ping'), { ...auth, Accept: 'text/event-stream' })).status).toBe(406);
    expect((await post(rpc('ping'), { ...auth, Accept: 'text/html' })).status).toBe(406);
    expect((await post(rpc('ping'), { ...auth, Accept: 'application/json' })).status).toBe(200);
    expect((await post(rpc('ping'), { ...auth, Accept: '*/*' })).status).toBe(200);
    const version = await post(rpc('ping'), { ...auth, 'MCP-Protocol-Version': '1999-01-01' });
    expect(version.status).toBe(400);
    expect(version.body.error.message).toContain('MCP-Protocol-Version');
    const big = await post(rpc('tools/call', { name: 'get_agent', arguments: { pad: 'x'.repeat(1024 * 1024) } }), auth);
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(-32600);
  });

  it('GET and DELETE are 405 with Allow: POST (no session, no SSE stream); an origin off the allow-list is 403', async () => {
    const a = await newAgent();
    for (const method of ['GET', 'DELETE']) {
      const res = await SELF.fetch(MCP, { method, headers: { Authorization: a.bearer, Accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('Allow')).toBe('POST');
    }
    const cross = await post(rpc('ping'), { Authorization: a.bearer, Origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect((await post(rpc('ping'), { Authorization: a.bearer, Origin: 'http://localhost:8787' })).status).toBe(200);
  });

  it('authentication: none, a bad token or platform Basic credentials are 401 with WWW-Authenticate: Bearer; a revoked agent’s next call too', async () => {
    const a = await newAgent();
    const tries: Record<string, string>[] = [{}, { Authorization: 'Bearer not-a-real-token-at-all' }, { Authorization: a.p.auth }];
    for (const headers of tries) {
      const res = await post(
        rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
        headers,
      );
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    }
    expect((await post(rpc('tools/list'), { Authorization: a.bearer })).status).toBe(200);
    expect((await api('DELETE', `/agents/${a.agentId}`, { auth: a.p.auth })).status).toBe(204);
    for (const message of [
      rpc('tools/list'),
      rpc('tools/call', { name: 'get_agent' }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]) {
      const res = await post(message, { Authorization: a.bearer });
      expect(res.status, JSON.stringify(message)).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    }
  });

  it('is mounted under API_PREFIX when one is set, beside the version base', async () => {
    const a = await newAgent();
    const call = async (path: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'POST',
          headers: { Authorization: a.bearer, Accept: JSON_AND_SSE, 'Content-Type': 'application/json' },
          body: JSON.stringify(rpc('ping')),
        }),
        { ...env, API_PREFIX: 'payments' },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    expect(await call('/payments/mcp')).toBe(200);
    expect(await call('/mcp')).toBe(404);
  });

  it('spends the platform’s request budget as its HTTP calls do: over it, 429 with Retry-After (a tool call: a tool error naming RATE_LIMITED)', async () => {
    const a = await newAgent();
    const tight = { ...env, RATE_LIMIT: env.TIGHT_RATE_LIMIT, EXPENSIVE_RATE_LIMIT: env.TIGHT_EXPENSIVE_RATE_LIMIT };
    const send = async (message: unknown) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(MCP, {
          method: 'POST',
          headers: {
            Authorization: a.bearer,
            Accept: JSON_AND_SSE,
            'Content-Type': 'application/json',
            'CF-Connecting-IP': '198.51.100.250',
          },
          body: JSON.stringify(message),
        }),
        tight,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    let refused;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await send(rpc('ping'));
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(200);
    }
    expect(refused?.headers.get('Retry-After')).toBe('10');
    expect(refused?.body.error.message).toContain('RATE_LIMITED');
    const call = await send(rpc('tools/call', { name: 'get_agent', arguments: {} }));
    expect(call.status).toBe(200);
    expect(call.body.result).toMatchObject({
      isError: true,
      structuredContent: { status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 10 },
    });
  });
});

describe('the MCP origin allow-list (DNS rebinding)', () => {
  /** One POST to `url` with `headers`, through the Worker with some bindings replaced. */
  async function postTo(url: string, body: unknown, headers: Record<string, string>, overrides: Record<string, string> = {}) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(url, {
        method: 'POST',
        headers: { Accept: JSON_AND_SSE, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
      { ...env, ...overrides },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
  const init = rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });

  it('refuses a page whose Origin matches the Host it rebound (403), and resources/list echoes no request host', async () => {
    const a = await newAgent();
    const evil = 'http://evil.example:8793';
    const rebound = await postTo(`${evil}/mcp`, init, { Authorization: a.bearer, Origin: evil });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.message).toBe('Forbidden origin');
    // A client that sends no Origin (not a browser) still works under any Host, but learns nothing of that Host back.
    const listed = await postTo(`${evil}/mcp`, rpc('resources/list'), { Authorization: a.bearer });
    expect(listed.status).toBe(200);
    expect(listed.body.result.resources.length).toBeGreaterThan(0);
    expect(JSON.stringify(listed.body)).not.toContain('evil.example');
    for (const r of listed.body.result.resources) expect(r.uri).toMatch(/^agent:\/\/service\/2025-10-13\/agents\/me/);
  });

  it('MCP_ALLOWED_ORIGINS replaces the loopback default; production without it allows no browser origin', async () => {
    const a = await newAgent();
    const auth = { Authorization: a.bearer };
    const configured = { MCP_ALLOWED_ORIGINS: 'https://app.example.com, https://ops.example.com/' };
    expect((await postTo(MCP, rpc('ping'), { ...auth, Origin: 'https://ops.example.com' }, configured)).status).toBe(200);
    expect((await postTo(MCP, rpc('ping'), { ...auth, Origin: 'http://localhost:8787' }, configured)).status).toBe(403);
    expect((await postTo(MCP, rpc('ping'), { ...auth, Origin: 'http://127.0.0.1:8811' })).status).toBe(200);
    expect((await postTo(MCP, rpc('ping'), { ...auth, Origin: 'null' })).status).toBe(403);
    const production = { SERVICE_ENV: 'production' };
    expect((await postTo(MCP, rpc('ping'), { ...auth, Origin: 'http://localhost:8787' }, production)).status).toBe(403);
    expect((await postTo(MCP, rpc('ping'), auth, production)).status).toBe(200);
  });
});

describe('MCP tool path arguments', () => {
  it('refuse `.` and `..` as a tool error naming the argument, so get_action {"actionId": ".."} never reads /agents/me', async () => {
    const a = await newAgent();
    for (const actionId of ['..', '.']) {
      const res = await post(rpc('tools/call', { name: 'get_action', arguments: { actionId } }), { Authorization: a.bearer });
      expect(res.status).toBe(200);
      expect(res.body.result.isError, actionId).toBe(true);
      expect(res.body.result.structuredContent).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect(res.body.result.structuredContent.details.fields.map((f: { field: string }) => f.field)).toEqual(['actionId']);
      expect(JSON.stringify(res.body)).not.toContain(a.agentId);
    }
    // Any other value is one encoded segment: a slash stays inside the id, which is simply not found.
    const slashed = await post(rpc('tools/call', { name: 'get_action', arguments: { actionId: '../me' } }), { Authorization: a.bearer });
    expect(slashed.body.result.isError).toBe(true);
    expect(slashed.body.result.structuredContent).toMatchObject({ status: 404 });
  });
});
