// The remote MCP endpoint (`/mcp`): an agent's tools and resources, each call an operation of the API run in process as the agent.
import type { Settings } from '../env';
import type { RouteDef } from '../http/route';
import type { CallOperation, OperationAnswer, OperationInput } from '../http/call';
import { accepted, PROTOCOL_VERSIONS, readMessage, rpcError, rpcResult, RPC, TransportError, type Id, type RpcRequest } from './protocol';
import { agentTools, IDEMPOTENCY_ARGUMENT, listed, permits, type AgentTool } from './tools';

export interface McpDeps {
  /** Every API route; the agent ones (`auth: 'agent'`) become tools. */
  routes: readonly RouteDef[];
  /** The API's version base (`/<API_PREFIX>/2025-10-13`). */
  base: string;
  /** Runs one operation in process, exactly as an HTTP client's request of it runs. */
  call: CallOperation;
  /** The browser origins allowed to call (MCP_ALLOWED_ORIGINS). */
  origins: Settings['mcpOrigins'];
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a browser page of `origin` may call: a configured origin, or (sandbox default) a loopback one. Never
 * judged against the request's own Host, which a DNS-rebinding page chooses.
 */
export function originAllowed(origin: string, allowed: Settings['mcpOrigins']): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (allowed.listed.includes(url.origin)) return true;
  return allowed.loopback && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
}

/** Where resource URIs live: a fixed name, never the request's Host (which the client chooses). */
const RESOURCE_ORIGIN = 'agent://service';

/** Where the endpoint is: beside the console's `/`, outside the version base, under API_PREFIX when one is set. */
export const mcpPath = (prefix: string) => `${prefix ? `/${prefix}` : ''}/mcp`;

const SERVER_INFO = { name: 'payments-agent', title: 'Payments agent', version: '0.1.0' };
const INSTRUCTIONS =
  "You act as one customer's agent on a payments platform, under a policy set by the platform: its permissions decide " +
  'which tools you see, and every money movement is checked against its spending limits and approval rules. ' +
  'Amounts are integers in the smallest unit of the currency (cents for USD). A money tool may answer PENDING_APPROVAL: ' +
  'nothing has moved yet; follow it with get_action. Read the policy resource (or call get_agent) for the limits and what is left of them.';

// The tools of a route list, made once per list (the Worker's routes never change while it runs).
const toolsOf = new WeakMap<readonly RouteDef[], AgentTool[]>();
function tools(routes: readonly RouteDef[]): AgentTool[] {
  let out = toolsOf.get(routes);
  if (!out) toolsOf.set(routes, (out = agentTools(routes)));
  return out;
}

/** A 401 the client can act on: its MCP client asks for (or is configured with) a bearer token. */
const unauthorized = (wwwAuthenticate = 'Bearer realm="service-agent"') =>
  new TransportError(401, RPC.invalidRequest, 'Unauthorized: send Authorization: Bearer <agent access token>', {
    'WWW-Authenticate': wwwAuthenticate,
  });

/** Answers one request to `/mcp`. */
export async function mcpResponse(request: Request, deps: McpDeps): Promise<Response> {
  try {
    // Stateless and JSON-only: no session, so no GET stream and no DELETE of a session.
    if (request.method !== 'POST')
      return rpcError(null, RPC.invalidRequest, 'Method Not Allowed: this server takes POST only (stateless, no SSE stream)', 405, {
        Allow: 'POST',
      });
    // DNS rebinding: a page of another origin cannot drive a local or remote server in the user's name.
    const origin = request.headers.get('Origin');
    if (origin !== null && !originAllowed(origin, deps.origins)) throw new TransportError(403, RPC.invalidRequest, 'Forbidden origin');
    // Agent bearer tokens only: platform Basic credentials (or none) are refused before any work.
    if (!/^Bearer\s+\S+/.test(request.headers.get('Authorization') ?? '')) throw unauthorized();
    const message = await readMessage(request);
    const exchange = new Exchange(request, deps);
    if ('notification' in message) {
      // Nothing to answer, but a revoked agent still learns it on its next message.
      await exchange.agent();
      return accepted();
    }
    return await exchange.answer(message);
  } catch (error) {
    if (error instanceof TransportError) return rpcError(error.id, error.code, error.message, error.status, error.headers);
    throw error;
  }
}

/** One MCP request of one agent (nothing outlives it): its calls into the API carry the agent's own credentials. */
class Exchange {
  private me?: Promise<Record<string, unknown>>;
  constructor(
    private readonly request: Request,
    private readonly deps: McpDeps,
  ) {}

  /** Runs the operation as the agent; a 401 (a revoked agent, a deleted or unknown token) is the endpoint's 401. */
  private async call(operationId: string, input: OperationInput = {}): Promise<OperationAnswer> {
    const credentials = {
      authorization: this.request.headers.get('Authorization')!,
      // The client's address, for the rate-limit budget of credentials not yet seen.
      address: this.request.headers.get('CF-Connecting-IP'),
    };
    const answer = await this.deps.call(operationId, input, credentials);
    if (answer.status === 401) throw unauthorized(answer.headers.get('WWW-Authenticate') ?? undefined);
    return answer;
  }

  /** The agent, its policy and usage (`GET /agents/me`): authenticates the request. */
  agent(): Promise<Record<string, unknown>> {
    return (this.me ??= this.call('getAgentMe').then((r) => {
      if (r.status === 200) return r.body as Record<string, unknown>;
      // Over the platform's request budget (or any other refusal): the transport's answer, with its headers.
      const retry = r.headers.get('Retry-After');
      throw new TransportError(r.status, RPC.internal, errorText(r.body), retry ? { 'Retry-After': retry } : {});
    }));
  }

  private async permissions(): Promise<string[]> {
    const policy = (await this.agent()).policy as { permissions?: string[] } | undefined;
    return policy?.permissions ?? [];
  }

  async answer(m: RpcRequest): Promise<Response> {
    switch (m.method) {
      case 'initialize': {
        const agent = await this.agent();
        const asked = m.params.protocolVersion;
        const protocolVersion = (PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
        return rpcResult(m.id!, {
          protocolVersion,
          capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions: `${INSTRUCTIONS} You are the agent "${String(agent.name)}".`,
        });
      }
      case 'ping':
        await this.agent();
        return rpcResult(m.id!, {});
      case 'tools/list': {
        const permissions = await this.permissions();
        return rpcResult(m.id!, {
          tools: tools(this.deps.routes)
            .filter((t) => permits(t, permissions))
            .map(listed),
        });
      }
      case 'tools/call':
        return this.callTool(m.id!, m.params);
      case 'resources/list': {
        const permissions = await this.permissions();
        return rpcResult(m.id!, {
          resources: this.resources()
            .filter((r) => permits(r.tool, permissions))
            .map(({ tool: _, ...r }) => r),
        });
      }
      case 'resources/templates/list':
        await this.agent();
        return rpcResult(m.id!, { resourceTemplates: [] });
      case 'resources/read':
        return this.readResource(m.id!, m.params);
      default:
        await this.agent();
        return rpcError(m.id!, RPC.methodNotFound, `Method not found: ${m.method}`);
    }
  }

  /** Runs the tool's route as the agent; the API's error becomes a tool result with isError, for the model to read. */
  private async callTool(id: Id, params: Record<string, unknown>): Promise<Response> {
    const tool = tools(this.deps.routes).find((t) => t.name === params.name);
    if (!tool) {
      await this.agent();
      return rpcError(id, RPC.invalidParams, `Unknown tool: ${String(params.name)}`);
    }
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return rpcError(id, RPC.invalidParams, 'arguments must be an object');
    const split = splitArguments(tool, args as Record<string, unknown>);
    if ('fields' in split) {
      await this.agent();
      return rpcResult(
        id,
        errorResult({ status: 400, code: 'INVALID_INPUT', message: 'Invalid tool arguments', details: { fields: split.fields } }),
      );
    }
    const route = tool.route;
    const answer = await this.call(route.operationId, {
      params: split.params,
      query: split.query,
      body: route.body ? split.body : undefined,
      idempotencyKey: split.key,
    });
    return rpcResult(id, toolResult(tool, answer));
  }

  /** The agent's resources: the same reads as the tools, named by the API's own paths (under RESOURCE_ORIGIN). */
  private resources() {
    const byOp = new Map(tools(this.deps.routes).map((t) => [t.route.operationId, t]));
    const url = (path: string) => new URL(this.deps.base + path, RESOURCE_ORIGIN).toString();
    return RESOURCES.flatMap(({ operationId, name, description }) => {
      const tool = byOp.get(operationId);
      return tool ? [{ uri: url(tool.route.path), name, title: tool.title, description, mimeType: 'application/json', tool }] : [];
    });
  }

  private async readResource(id: Id, params: Record<string, unknown>): Promise<Response> {
    const resource = this.resources().find((r) => r.uri === params.uri);
    if (!resource) {
      await this.agent();
      // The protocol's "resource not found" code.
      return rpcError(id, -32002, `Resource not found: ${String(params.uri)}`);
    }
    const answer = await this.call(resource.tool.route.operationId);
    if (answer.status !== 200) return rpcError(id, RPC.internal, errorText(answer.body));
    return rpcResult(id, { contents: [{ uri: resource.uri, mimeType: 'application/json', text: JSON.stringify(answer.body) }] });
  }
}

/** The resources offered, by the operation that reads them (each must be an agent GET without parameters; test/mcp checks it). */
export const RESOURCES = [
  {
    operationId: 'getAgentMe',
    name: 'policy',
    description: "The agent's policy (permissions, limits, approvals) and its usage of the limits",
  },
  { operationId: 'agentListInternalAccounts', name: 'internal-accounts', description: "The customer's internal accounts and balances" },
  { operationId: 'agentListExternalAccounts', name: 'external-accounts', description: "The customer's external accounts (payees)" },
] as const;

type Split =
  | { params: Record<string, string>; query: Record<string, string[]>; body: Record<string, unknown>; key?: string }
  | { fields: { field: string; message: string }[] };

/** Tool arguments sorted into the route's path parameters, query and body (validation is the route's own). */
function splitArguments(tool: AgentTool, args: Record<string, unknown>): Split {
  const params: Record<string, string> = {};
  const query: Record<string, string[]> = {};
  const body: Record<string, unknown> = {};
  const fields: { field: string; message: string }[] = [];
  let key: string | undefined;
  for (const [name, value] of Object.entries(args)) {
    const where = tool.where[name];
    if (name === IDEMPOTENCY_ARGUMENT && tool.route.idempotent) {
      if (typeof value === 'string') key = value;
      else fields.push({ field: name, message: 'Must be a string' });
    } else if (where === 'params') {
      if (typeof value === 'string' && value !== '') params[name] = value;
      else fields.push({ field: name, message: 'Must be a non-empty string' });
    } else if (where === 'query') {
      query[name] = [value].flat().map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    } else if (where === 'body') body[name] = value;
    else fields.push({ field: name, message: 'Unknown field' });
  }
  for (const name of Object.keys(tool.where))
    if (tool.where[name] === 'params' && !(name in params) && !fields.some((f) => f.field === name))
      fields.push({ field: name, message: 'Required' });
  return fields.length ? { fields } : { params, query, body, key };
}

const errorText = (body: unknown) => {
  const e = (body ?? {}) as { code?: string; message?: string; status?: number; details?: { reason?: unknown } };
  // The finer case (details.reason), e.g. INVALID_AMOUNT's INSUFFICIENT_FUNDS, tells the model what to do next.
  const reason = typeof e.details?.reason === 'string' ? `, ${e.details.reason}` : '';
  return `Error ${e.code ?? 'UNKNOWN'} (HTTP ${e.status ?? '?'}${reason}): ${e.message ?? 'no message'}`;
};

function errorResult(body: Record<string, unknown>) {
  return {
    isError: true,
    content: [
      { type: 'text', text: errorText(body) },
      { type: 'text', text: JSON.stringify(body) },
    ],
    structuredContent: body,
  };
}

/** The API's answer as a tool result: its JSON as structuredContent, and a short summary for the model to read first. */
function toolResult(tool: AgentTool, answer: OperationAnswer) {
  if (answer.status >= 400) {
    const body = { ...(answer.body as Record<string, unknown>) };
    const retry = answer.headers.get('Retry-After');
    return errorResult(retry ? { ...body, retryAfterSeconds: Number(retry) } : body);
  }
  if (answer.body === undefined) return { content: [{ type: 'text', text: `${tool.title}: done.` }] };
  const body = answer.body as Record<string, unknown>;
  return {
    content: [
      { type: 'text', text: summary(tool, body) },
      { type: 'text', text: JSON.stringify(body) },
    ],
    structuredContent: body,
  };
}

function summary(tool: AgentTool, body: Record<string, unknown>): string {
  if (Array.isArray(body.data)) {
    const more = body.hasMore ? ` More: call ${tool.name} again with cursor "${String(body.nextCursor)}".` : '';
    return `${body.data.length} item(s)${typeof body.totalCount === 'number' ? ` of ${body.totalCount}` : ''}.${more}`;
  }
  const id = String(body.id ?? '');
  if (id.startsWith('AgentAction:')) {
    const tx = body.transaction as { id?: string; status?: string } | undefined;
    switch (body.status) {
      case 'PENDING_APPROVAL':
        return `Action ${id} is PENDING_APPROVAL: nothing has moved yet; a person at the platform must approve it. Follow it with get_action (actionId "${id}").`;
      case 'APPROVED':
        return `Action ${id} APPROVED and executed${tx ? `: transaction ${tx.id} is ${tx.status}` : ''}.`;
      default:
        return `Action ${id} is ${String(body.status)}${body.rejectionReason ? `: ${String(body.rejectionReason)}` : ''}.`;
    }
  }
  return `${tool.title}: ${id || 'done'}${typeof body.status === 'string' ? ` (${body.status})` : ''}.`;
}
