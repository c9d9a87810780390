import { SELF } from 'cloudflare:test';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/router';
import { agentTools, toolName } from '../../src/mcp/tools';
import { RESOURCES } from '../../src/mcp/server';
import { api, ORIGIN } from '../support/api';
import { newAgent } from '../support/agents';

/** tools/list as a full agent sees it, through the endpoint. */
async function listedTools(bearer: string): Promise<any[]> {
  const res = await SELF.fetch(`${ORIGIN}/mcp`, {
    method: 'POST',
    headers: { Authorization: bearer, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).result.tools;
}

const jsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as any;

describe('the MCP tools are generated from the agent routes (no second list)', () => {
  it('every agent operation of /openapi.json is a tool of a full agent, and every tool is one', async () => {
    const a = await newAgent();
    const doc = (await api('GET', '/openapi.json')).body;
    const agentOps: { operationId: string; op: any }[] = [];
    for (const item of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(item))
        if (op.security?.some((s: Record<string, unknown>) => 'AgentAuth' in s)) agentOps.push({ operationId: op.operationId, op });
    expect(agentOps.length).toBeGreaterThanOrEqual(15);
    const tools = await listedTools(a.bearer);
    expect(tools.map((t) => t.name).sort()).toEqual(agentOps.map((o) => toolName(o.operationId)).sort());
    // Each tool's arguments are its operation's path and query parameters and body fields, with the same required ones.
    for (const { operationId, op } of agentOps) {
      const tool = tools.find((t) => t.name === toolName(operationId))!;
      const params = (op.parameters ?? []).filter((p: any) => p.in === 'path' || p.in === 'query');
      let bodyNames: string[] = [];
      let bodyRequired: string[] = [];
      const ref = op.requestBody?.content?.['application/json']?.schema;
      if (ref) {
        const body = ref.$ref ? doc.components.schemas[ref.$ref.split('/').pop()] : ref;
        bodyNames = Object.keys(body.properties);
        bodyRequired = body.required ?? [];
      }
      const money =
        'Idempotency-Key' in Object.fromEntries((op.parameters ?? []).filter((p: any) => p.in === 'header').map((p: any) => [p.name, p]));
      const names = [...params.map((p: any) => p.name), ...bodyNames, ...(money ? ['idempotencyKey'] : [])];
      expect(Object.keys(tool.inputSchema.properties).sort(), operationId).toEqual(names.sort());
      const required = [...params.filter((p: any) => p.required).map((p: any) => p.name), ...bodyRequired];
      expect([...(tool.inputSchema.required ?? [])].sort(), operationId).toEqual(required.sort());
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('each tool’s argument schemas are its route’s own zod schemas, converted by zod', () => {
    const routes = ROUTES.filter((r) => r.auth === 'agent');
    const tools = agentTools(ROUTES);
    expect(tools.map((t) => t.route)).toEqual(routes);
    for (const tool of tools) {
      const expected: string[] = tool.route.idempotent ? ['idempotencyKey'] : [];
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = tool.route[part];
        if (!schema || schema === 'multipart') continue;
        // A named schema converts to a reference to its definition.
        const out = jsonSchema(schema);
        const root = out.$ref ? out.$defs[out.$ref.split('/').pop()] : out;
        for (const [key, value] of Object.entries(root.properties)) {
          expect(tool.inputSchema.properties[key], `${tool.name}.${key}`).toEqual(value);
          expected.push(key);
        }
        for (const [key, value] of Object.entries(out.$defs ?? {}))
          expect((tool.inputSchema.$defs as any)[key], `${tool.name} $defs.${key}`).toEqual(value);
      }
      expect(Object.keys(tool.inputSchema.properties).sort(), tool.name).toEqual(expected.sort());
    }
  });

  it('annotations and descriptions follow the declaration: reads, money movement, deletion, permissions, amounts, approval', () => {
    for (const tool of agentTools(ROUTES)) {
      const r = tool.route;
      expect(tool.annotations.readOnlyHint, tool.name).toBe(r.method === 'GET');
      expect(tool.annotations.destructiveHint, tool.name).toBe(Boolean(r.movesMoney) || r.method === 'DELETE');
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
      for (const p of [r.agentPermission ?? []].flat()) expect(tool.description, tool.name).toContain(p);
      // An agent's payment honours an Idempotency-Key, which its tool takes as an argument.
      expect(Boolean(r.idempotent), tool.name).toBe(Boolean(r.movesMoney));
      if (r.movesMoney) {
        expect(tool.inputSchema.properties.idempotencyKey, tool.name).toMatchObject({ type: 'string' });
        expect(tool.description, tool.name).toMatch(/smallest unit/);
        expect(tool.description, tool.name).toMatch(/approve/);
        expect(tool.description, tool.name).toMatch(/get_action/);
        expect(tool.description, tool.name).toMatch(/without one the server derives none/);
      } else expect(tool.inputSchema.properties.idempotencyKey, tool.name).toBeUndefined();
    }
    // The money operations of the issue, by name.
    const byName = Object.fromEntries(agentTools(ROUTES).map((t) => [t.name, t]));
    for (const name of ['create_transfer_out', 'create_transfer_in', 'execute_quote'])
      expect(byName[name]?.annotations.destructiveHint).toBe(true);
    expect(byName.delete_external_account?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(byName.get_agent?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    // A follow-up the route declares is a tool of its own, named in the description.
    for (const tool of agentTools(ROUTES).filter((t) => t.route.followUp)) {
      const next = agentTools(ROUTES).find((t) => t.route.operationId === tool.route.followUp);
      expect(next, tool.name).toBeDefined();
      expect(tool.description, tool.name).toContain(`${next!.name} executes it`);
    }
    expect(byName.create_quote?.description).toContain('execute_quote executes it');
  });

  it('the resources are agent reads without parameters', () => {
    const tools = agentTools(ROUTES);
    for (const r of RESOURCES) {
      const tool = tools.find((t) => t.route.operationId === r.operationId);
      expect(tool, r.operationId).toBeDefined();
      expect(tool!.route.method).toBe('GET');
      expect(tool!.route.path).not.toContain(':');
    }
  });
});
