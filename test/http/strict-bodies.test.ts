import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, OPERATOR } from '../support/api';
import { newAgent } from '../support/agents';
import { createCustomer } from '../support/customers';
import { bankInfo } from '../support/payments';
import { call, emailCredential, latestOtp, newWallet, sessionsOf } from '../support/wallets';
import { newWalletClient } from '../support/wallet-client';

/**
 * Unknown fields of a JSON body are refused at every depth, never dropped: 400 INVALID_INPUT naming the
 * field by its dotted path with "Unknown field", as the query string already does (docs/conventions.md).
 */

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};

const UNKNOWN = 'zzUnknown';

const resolve = (doc: Doc, s: Schema): Schema => (s.$ref ? resolve(doc, doc.components.schemas[s.$ref.split('/').pop()!]!) : s);
const variants = (s: Schema): Schema[] | undefined => s.oneOf ?? s.anyOf;

/** A small value of the schema's type: its required fields filled, discriminators set (the rest may be invalid). */
function sample(doc: Doc, schema: Schema, depth = 0): unknown {
  const s = resolve(doc, schema);
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  if (variants(s)) return sample(doc, variants(s)![0]!, depth + 1);
  const type = [s.type].flat().find((t) => t !== 'null');
  if (type === 'object' || s.properties) return depth > 8 ? {} : requiredOf(doc, s, depth);
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  return 'x';
}

function requiredOf(doc: Doc, s: Schema, depth = 0): Record<string, unknown> {
  return Object.fromEntries(((s.required ?? []) as string[]).map((k) => [k, sample(doc, s.properties[k], depth + 1)]));
}

interface Probe {
  value: unknown;
  /** The dotted path the 400 must name. */
  field: string;
  /** The variant taken at each union on the way (`path@depth` → index): probes of different variants never share a body. */
  choices?: Record<string, number>;
}

/** One value per object the schema can hold (every variant, property, array item and map value), with UNKNOWN added there. */
function probes(doc: Doc, schema: Schema, path: string[], refs: string[] = [], unions = 0): Probe[] {
  if (schema.$ref) {
    if (refs.includes(schema.$ref)) return []; // a recursive schema: its objects are probed once
    return probes(doc, resolve(doc, schema), path, [...refs, schema.$ref], unions);
  }
  const s = schema;
  if (variants(s)) {
    const at = `${path.join('.')}@${unions}`;
    return variants(s)!.flatMap((v, i) =>
      probes(doc, v, path, refs, unions + 1).map((p) => ({ ...p, choices: { ...p.choices, [at]: i } })),
    );
  }
  if (s.allOf) return (s.allOf as Schema[]).flatMap((v) => probes(doc, v, path, refs, unions));
  if (s.items) return probes(doc, s.items, [...path, '0'], refs, unions).map((p) => ({ ...p, value: [p.value] }));
  const out: Probe[] = [];
  const map = s.additionalProperties && typeof s.additionalProperties === 'object'; // a free-form map (record)
  if (s.properties || ([s.type].flat().includes('object') && !map)) {
    const base = s.properties ? requiredOf(doc, s) : {};
    out.push({ value: { ...base, [UNKNOWN]: 1 }, field: [...path, UNKNOWN].join('.') });
    for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      for (const p of probes(doc, prop, [...path, name], refs, unions)) out.push({ ...p, value: { ...base, [name]: p.value } });
    }
  }
  if (map) {
    for (const p of probes(doc, s.additionalProperties, [...path, 'key'], refs, unions)) out.push({ ...p, value: { key: p.value } });
  }
  return out;
}

const CONFLICT = Symbol('conflict');

/** The two values as one, or CONFLICT where they differ (another variant's discriminator, another value). */
function merge(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === 0 || b.length === 0) return a.length ? a : b;
    const one = merge(a[0], b[0]);
    return one === CONFLICT ? CONFLICT : [one];
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) {
      const m = k in out ? merge(out[k], v) : v;
      if (m === CONFLICT) return CONFLICT;
      out[k] = m;
    }
    return out;
  }
  return a === b ? a : CONFLICT;
}

/** Probes sent together where they fit in one body (one request can name several unknown fields). */
function grouped(list: Probe[]): { value: unknown; fields: string[] }[] {
  const groups: { value: unknown; fields: string[]; choices: Record<string, number> }[] = [];
  const sameVariants = (a: Record<string, number>, b: Record<string, number> = {}) =>
    Object.entries(b).every(([k, i]) => a[k] === undefined || a[k] === i);
  for (const p of list) {
    const g = groups.find((x) => sameVariants(x.choices, p.choices) && merge(x.value, p.value) !== CONFLICT);
    if (g) {
      g.value = merge(g.value, p.value);
      g.fields.push(p.field);
      Object.assign(g.choices, p.choices);
    } else groups.push({ value: p.value, fields: [p.field], choices: { ...p.choices } });
  }
  return groups;
}

/** Every object node a request schema can reach, with its path, for the document check. */
function objectsOf(doc: Doc, schema: Schema, path: string, refs: string[] = []): { path: string; schema: Schema }[] {
  if (schema.$ref) return refs.includes(schema.$ref) ? [] : objectsOf(doc, resolve(doc, schema), path, [...refs, schema.$ref]);
  const nested = [...(variants(schema) ?? []), ...(schema.allOf ?? [])].flatMap((v: Schema) => objectsOf(doc, v, path, refs));
  if (schema.items) nested.push(...objectsOf(doc, schema.items, `${path}[]`, refs));
  if (schema.properties) {
    nested.unshift({ path, schema });
    for (const [k, v] of Object.entries(schema.properties as Record<string, Schema>))
      nested.push(...objectsOf(doc, v, `${path}.${k}`, refs));
  }
  return nested;
}

function jsonBodies(doc: Doc) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.requestBody?.content['application/json'])
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op, schema: op.requestBody!.content['application/json']!.schema })),
  );
}

describe('unknown fields in JSON bodies', () => {
  it('every operation with a JSON body refuses an unknown field in each of its objects, naming its dotted path', async () => {
    const doc = (await api('GET', '/openapi.json')).body as Doc;
    const a = await newAgent();
    const auth = (op: Operation) => {
      const schemes = op.security.flatMap((s) => Object.keys(s));
      if (schemes.includes('BasicAuth')) return a.p.auth;
      if (schemes.includes('AgentAuth')) return a.bearer;
      if (schemes.includes('OperatorAuth')) return OPERATOR;
      return undefined;
    };
    const operations = jsonBodies(doc);
    expect(operations.length).toBeGreaterThanOrEqual(30);
    // The reviewer's cases are among them, and deep ones.
    const probed = new Set<string>();
    let sent = 0;
    let checked = 0;
    for (const { method, path, op, schema } of operations) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(`${name}-0`));
      const list = probes(doc, schema, []);
      expect(list.length, `${method} ${path}: probes`).toBeGreaterThan(0);
      // A few at a time: the external-account operations alone have about 200 objects (every corridor's).
      const groups = grouped(list);
      for (let i = 0; i < groups.length; i += 8) {
        const batch = groups.slice(i, i + 8);
        const answers = await Promise.all(batch.map((g) => api(method, url, { auth: auth(op), body: g.value })));
        batch.forEach((g, j) => {
          const res = answers[j]!;
          const at = `${method} ${path} ${JSON.stringify(g.value)}: ${JSON.stringify(res.body)}`;
          expect(res.status, at).toBe(400);
          expect(res.body.code, at).toBe('INVALID_INPUT');
          for (const field of g.fields) {
            expect(res.body.details.fields, at).toContainEqual({ field, message: 'Unknown field' });
            probed.add(`${op.operationId} ${field}`);
            checked++;
          }
          sent++;
        });
      }
    }
    for (const expected of [
      `createToken ${UNKNOWN}`,
      `verifyAuthCredential ${UNKNOWN}`,
      `verifyAuthCredential assertion.${UNKNOWN}`,
      `createCustomerExternalAccount accountInfo.${UNKNOWN}`,
      `createCustomerExternalAccount accountInfo.beneficiary.${UNKNOWN}`,
      `agentCreateExternalAccount accountInfo.beneficiary.address.${UNKNOWN}`,
      `updatePlatformConfig supportedCurrencies.0.requiredCounterpartyFields.0.${UNKNOWN}`,
      `createAgent policy.spendingLimits.${UNKNOWN}`,
      `createQuote destination.${UNKNOWN}`,
    ]) {
      expect(probed, expected).toContain(expected);
    }
    // About 660 objects (every variant's), in far fewer requests.
    expect(checked).toBeGreaterThan(500);
    expect(sent, 'requests').toBeLessThan(checked);
  }, 120_000);

  it('/openapi.json says additionalProperties: false for every object of every request body', async () => {
    const doc = (await api('GET', '/openapi.json')).body as Doc;
    const open = jsonBodies(doc).flatMap(({ method, path, schema }) =>
      objectsOf(doc, schema, '(body)')
        .filter((o) => o.schema.additionalProperties !== false)
        .map((o) => `${method} ${path} ${o.path}`),
    );
    expect(open).toEqual([]);
  });

  it('POST /tokens with expiresAt or zzUnknown is 400 naming it, and creates no token', async () => {
    const p = await newPlatform();
    const before = (await api('GET', '/tokens?limit=100', { auth: p.auth })).body.data.length;
    const body = { name: 'ci', permissions: ['VIEW'] };
    for (const extra of ['expiresAt', UNKNOWN]) {
      const res = await api('POST', '/tokens', { auth: p.auth, body: { ...body, [extra]: '2030-01-01T00:00:00Z' } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.body.details.fields).toEqual([{ field: extra, message: 'Unknown field' }]);
      expect(res.body.message).toContain(extra);
    }
    expect((await api('GET', '/tokens?limit=100', { auth: p.auth })).body.data.length).toBe(before);
    expect((await api('POST', '/tokens', { auth: p.auth, body })).status).toBe(201);
  });

  it('POST /auth/credentials/{id}/verify with an extra field is 400 and spends nothing: the same OTP then verifies', async () => {
    const w = await newWallet();
    const { id } = await emailCredential(w);
    expect((await call(w.mode, 'POST', `/auth/credentials/${id}/challenge`, { auth: w.p.auth })).status).toBe(200);
    const otp = await latestOtp(w);
    const body = { type: 'EMAIL_OTP', otp, clientPublicKey: newWalletClient().clientPublicKey };
    for (const extra of [{ [UNKNOWN]: true }, { expiresAt: '2030-01-01T00:00:00Z' }, { assertion: {} }]) {
      const res = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, { auth: w.p.auth, body: { ...body, ...extra } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.body.details.fields).toEqual(Object.keys(extra).map((field) => ({ field, message: 'Unknown field' })));
    }
    expect(await sessionsOf(w)).toEqual([]);
    const ok = await call(w.mode, 'POST', `/auth/credentials/${id}/verify`, { auth: w.p.auth, body });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('extra fields in accountInfo (and its beneficiary) are 400 on every external-account endpoint, and nothing is created', async () => {
    const a = await newAgent();
    const customer = await createCustomer(a.p);
    const info = bankInfo('USD', '321');
    const cases: [string, string, Record<string, unknown>][] = [
      [a.p.auth, '/customers/external-accounts', { customerId: customer.id }],
      [a.p.auth, '/platform/external-accounts', {}],
      [a.bearer, '/agents/me/external-accounts', {}],
    ];
    for (const [auth, path, extra] of cases) {
      const bad = { ...info, [UNKNOWN]: 'x', beneficiary: { ...info.beneficiary, nickname: 'x' } };
      const res = await api('POST', path, { auth, body: { ...extra, currency: 'USD', accountInfo: bad } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort(), path).toEqual(['accountInfo.beneficiary.nickname', `accountInfo.${UNKNOWN}`]);
      expect(res.body.details.fields.every((f: { message: string }) => f.message === 'Unknown field')).toBe(true);
    }
    const list = async (path: string, auth: string) => (await api('GET', `${path}?limit=100`, { auth })).body.data;
    expect(await list('/customers/external-accounts', a.p.auth)).toEqual([]);
    expect(await list('/platform/external-accounts', a.p.auth)).toEqual([]);
    // Without the extras the same body is accepted.
    const ok = await api('POST', '/customers/external-accounts', {
      auth: a.p.auth,
      body: { customerId: customer.id, currency: 'USD', accountInfo: info },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it('PATCH /config: a currency read back from GET keeps its read-only fields (accepted, ignored), an unknown field is refused and nothing changes', async () => {
    const p = await newPlatform();
    const before = (await api('GET', '/config', { auth: p.auth })).body;
    const [usd, ...rest] = before.supportedCurrencies;
    const res = await api('PATCH', '/config', { auth: p.auth, body: { supportedCurrencies: [{ ...usd, [UNKNOWN]: 1 }, ...rest] } });
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.details.fields).toEqual([{ field: `supportedCurrencies.0.${UNKNOWN}`, message: 'Unknown field' }]);
    expect((await api('GET', '/config', { auth: p.auth })).body).toEqual(before);
    expect((await api('PATCH', '/config', { auth: p.auth, body: { supportedCurrencies: [usd, ...rest] } })).status).toBe(200);
  });

  it('an unknown field no variant of a union declares is named even when no variant matches', async () => {
    // uma providers' currencies are a code or a {code, name, symbol, decimals} object.
    const res = await api('POST', '/operator/uma-providers', {
      auth: OPERATOR,
      body: {
        providers: [{ name: 'P', domain: 'p.example', supportedRegions: ['US'], supportedCurrencies: [{ code: 'USD', [UNKNOWN]: 1 }] }],
      },
    });
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.details.fields).toContainEqual({ field: `providers.0.supportedCurrencies.0.${UNKNOWN}`, message: 'Unknown field' });
  });
});
