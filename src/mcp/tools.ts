// MCP tools generated from the agent routes' own declarations (operationId, summary, schemas, permission, money, follow-up): one per route.
import * as z from 'zod';
import type { RouteDef } from '../http/route';

type JsonSchema = Record<string, unknown>;

/** An MCP tool (protocol type `Tool`), with the route it runs. */
export interface AgentTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  route: RouteDef;
  /** Which argument goes where in the HTTP request. */
  where: Record<string, 'params' | 'query' | 'body'>;
  /** The agent-policy permissions of which the agent needs one (none: every agent). */
  anyOf: readonly string[];
}

/** The argument money tools take for the route's `Idempotency-Key`. */
export const IDEMPOTENCY_ARGUMENT = 'idempotencyKey';

/** `agentCreateTransferOut` → `create_transfer_out`, `getAgentMe` → `get_agent`: the operation, without the agent's own prefix. */
export function toolName(operationId: string): string {
  const bare = operationId.replace(/^agent(?=[A-Z])/, '').replace(/Me$/, '');
  return bare.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '');
}

/** A route's params, query or body as a JSON Schema object: its properties, required list and shared definitions. */
export function objectSchema(schema: z.ZodType): {
  properties: Record<string, JsonSchema>;
  required: string[];
  defs: Record<string, JsonSchema>;
} {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const defs = { ...((out.$defs ?? {}) as Record<string, JsonSchema>) };
  // A named schema is a reference to its definition; its root object is what the tool takes.
  let root = out;
  const ref = typeof out.$ref === 'string' ? out.$ref.replace('#/$defs/', '') : undefined;
  if (ref && defs[ref]) root = defs[ref];
  if (root.type !== 'object') throw new Error(`not an object schema: ${JSON.stringify(root).slice(0, 80)}`);
  return { properties: (root.properties ?? {}) as Record<string, JsonSchema>, required: (root.required ?? []) as string[], defs };
}

/** What every money tool says: its costs, its limits and approvals, and its key. */
const MONEY =
  "Moves real money of the customer under the agent's policy: it counts against the per-transaction, daily and monthly " +
  'spending limits and may need a person at the platform to approve it. The answer is an agent action: APPROVED (executed), ' +
  'PENDING_APPROVAL (nothing moved yet: follow it with get_action until it is APPROVED, REJECTED or FAILED) or FAILED. ' +
  'Amounts are integers in the smallest unit of the currency (cents for USD); fees, if any, are stated in the answer. ' +
  `Optional ${IDEMPOTENCY_ARGUMENT}: send a unique key and a retry with the same key replays the first answer instead of moving money again; ` +
  'without one the server derives none, so every call is a new payment.';

/** A summary without the permission it names in parentheses (the description says it in a sentence). */
const plain = (summary: string) => summary.replace(/\s*\([A-Z_]+(?: or [A-Z_]+)*\)/g, '');

function describe(route: RouteDef, anyOf: readonly string[], money: boolean): string {
  const parts = [`${plain(route.summary)}.`];
  if (money) parts.push(MONEY);
  else if (route.method === 'GET') parts.push('Read-only: changes nothing and costs nothing.');
  else if (route.method === 'DELETE') parts.push('Deletes the record; this cannot be undone. Moves no money.');
  // A record a money route acts on (a quote and its execute): it costs nothing until that route runs.
  else if (route.followUp)
    parts.push(`Moves no money by itself: the answer states the amounts, fees, rate and expiry; ${toolName(route.followUp)} executes it.`);
  else parts.push('Moves no money.');
  // What the success answer is, as the route documents it.
  const ok = Object.entries(route.responses).find(([status]) => Number(status) < 300);
  if (ok && !money) parts.push(`Answers: ${ok[1].description.replace(/\.$/, '')}.`);
  if (route.query && 'cursor' in (route.query as z.ZodObject).shape)
    parts.push("Lists are paged: pass the answer's nextCursor as cursor for the next page.");
  if (anyOf.length) parts.push(`Needs the agent policy permission ${anyOf.join(' or ')}.`);
  return parts.join(' ');
}

/** One tool per agent route (`auth: 'agent'`), generated from its declaration; arguments are its params, query and body fields. */
export function agentTools(routes: readonly RouteDef[]): AgentTool[] {
  return routes.filter((r) => r.auth === 'agent').map(toolOf);
}

function toolOf(route: RouteDef): AgentTool {
  const name = toolName(route.operationId);
  const money = Boolean(route.movesMoney);
  const anyOf = route.agentPermission ? [route.agentPermission].flat() : [];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const where: AgentTool['where'] = {};
  let $defs: Record<string, JsonSchema> = {};
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = route[part];
    if (!schema || schema === 'multipart') continue;
    const obj = objectSchema(schema);
    for (const [key, value] of Object.entries(obj.properties)) {
      if (where[key]) throw new Error(`${route.operationId}: ${key} is both in ${where[key]} and ${part}`);
      where[key] = part;
      properties[key] = value;
    }
    required.push(...obj.required);
    $defs = { ...$defs, ...obj.defs };
  }
  // The route's Idempotency-Key, as an argument.
  if (route.idempotent) {
    properties[IDEMPOTENCY_ARGUMENT] = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: 'Optional unique key of this payment (sent as Idempotency-Key); a retry with the same key replays the first answer',
    };
  }
  const title = plain(route.summary).replace(/:.*$/, '');
  const inputSchema: AgentTool['inputSchema'] = {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
    ...(Object.keys($defs).length ? { $defs } : {}),
  };
  return {
    name,
    title,
    description: describe(route, anyOf, money),
    inputSchema,
    annotations: {
      title,
      readOnlyHint: route.method === 'GET',
      destructiveHint: money || route.method === 'DELETE',
      // Reads and deletes repeat without a further effect; a payment only with the same idempotencyKey.
      idempotentHint: route.method === 'GET' || route.method === 'DELETE',
      openWorldHint: money,
    },
    route,
    where,
    anyOf,
  };
}

/** The tool as `tools/list` shows it. */
export function listed(tool: AgentTool) {
  const { name, title, description, inputSchema, annotations } = tool;
  return { name, title, description, inputSchema, annotations };
}

/** Whether the agent's policy permits the tool (the route checks again when it runs). */
export function permits(tool: AgentTool, permissions: readonly string[]): boolean {
  return tool.anyOf.length === 0 || tool.anyOf.some((p) => permissions.includes(p));
}
