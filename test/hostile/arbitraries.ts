import fc from 'fast-check';
import type { ApiDoc, JsonSchema, Operation } from './openapi';
import { fillPath } from './openapi';

/** Values a JSON schema cannot express, so generated requests reach past validation into the rules. */
export interface Hints {
  /** For string fields named `id` or `...Id` and for path ids: own ids, another platform's, fabricated ones. */
  ids: fc.Arbitrary<string>;
  /** Field name -> realistic values (a real P-256 key for `clientPublicKey`, ...). */
  fields: Record<string, fc.Arbitrary<unknown>>;
}

/** Credentials the generated requests use (most of the time) or deliberately spoil. */
export interface Credentials {
  basic: string;
  operator: string;
  /** Bearer credentials of a connected agent. */
  agent: string;
  /** clientId of the basic credentials, for "right id, wrong secret". */
  clientId: string;
}

/** One generated request; `toString` keeps fast-check's counterexample report short. */
export interface HostileRequest {
  method: string;
  /** Path and query below the API base. */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** What was done to it, for the report. */
  note: string;
}

const MAX_DEPTH = 6;
const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
/** Header-safe text (printable ASCII): anything else is refused by fetch before it reaches the Worker. */
export const asciiText = (maxLength = 64) => fc.string({ unit: printable, maxLength });
const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const base64url = (text: string) => {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const clamp32 = (n: number) => Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, n));
/** encodeURIComponent that survives lone surrogates (it throws on them). */
const encode = (s: string) =>
  encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

const weirdStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\u202e\u202d',
  '\ud800',
  '\uffff',
  'null',
  'undefined',
  'true',
  '-1',
  '1e400',
  'NaN',
  '__proto__',
  'constructor',
  '{"a":1}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00%ff',
  'Ⅻ𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﷺ 👩‍👩‍👧‍👦',
  'a'.repeat(256),
  'ApiToken:00000000-0000-7000-8000-000000000000',
);
const weirdNumbers = fc.constantFrom(
  0,
  -0,
  -1,
  0.5,
  1.5,
  2 ** 31,
  2 ** 32 + 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e21,
  1e-7,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MAX_VALUE,
);
/** A string of up to ~200 KB (the body limit is 1 MiB: a few are over it once nested). */
const hugeString = fc.nat({ max: 200_000 }).map((n) => 'x'.repeat(n + 1));
/** Arrays or objects nested thousands deep. */
const deepNesting = fc.tuple(fc.nat({ max: 5000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/** Hostile JSON values: wrong types, huge, odd unicode, nested junk. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: weirdStrings },
  { weight: 3, arbitrary: weirdNumbers },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
  { weight: 2, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: fc.array(fc.constantFrom('VIEW', 'USD', 1, null, {}), { maxLength: 2000 }) },
);

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = s.maxLength ?? Infinity;
  // Generated from a format or pattern, then kept within the bounds (filters must be satisfiable: no default cap here).
  const fit = (a: fc.Arbitrary<string>) => a.filter((v) => v.length >= minLength && v.length <= maxLength);
  switch (s.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'email':
      return fit(fc.emailAddress());
    case 'uri':
      return fit(fc.webUrl());
    case 'uuid':
      return fc.uuid();
  }
  if (typeof s.pattern === 'string') {
    for (const pattern of [s.pattern, s.pattern.replace(/\(\?[=!][^)]*\)/g, '')]) {
      try {
        return fit(fc.stringMatching(new RegExp(pattern)));
      } catch {
        // a construct fast-check cannot generate from (lookaheads): try without, else any text
      }
    }
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40) });
}

/** Values that satisfy `schema` as far as a schema can say (valid-ish: formats, enums, bounds, required keys). */
export function validish(doc: ApiDoc, schema: JsonSchema | undefined, hints: Hints, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const s = doc.resolve(schema);
  const fromSchema = schemaArb(doc, s, hints, depth);
  if (name && hints.fields[name]) return fc.oneof({ weight: 3, arbitrary: hints.fields[name]! }, { weight: 1, arbitrary: fromSchema });
  if (name && /(^id$|Id$)/.test(name) && (s.type === 'string' || s.type === undefined)) {
    return fc.oneof({ weight: 3, arbitrary: hints.ids }, { weight: 1, arbitrary: fromSchema });
  }
  return fromSchema;
}

function schemaArb(doc: ApiDoc, s: JsonSchema, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const branches = s.oneOf ?? s.anyOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: JsonSchema) => validish(doc, b, hints, undefined, depth)));
  if (Array.isArray(s.allOf))
    return validish(doc, { ...s, allOf: undefined, ...Object.assign({}, ...s.allOf.map(doc.resolve)) }, hints, undefined, depth);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((t: string) => schemaArb(doc, { ...s, type: t }, hints, depth)));
  const withExample = (a: fc.Arbitrary<unknown>) => (s.example !== undefined ? fc.oneof(fc.constant(s.example), a) : a);
  switch (s.type) {
    case 'object': {
      if (depth > MAX_DEPTH) return fc.constant({});
      const props: Record<string, JsonSchema> = s.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = validish(doc, v, hints, k, depth + 1);
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k: string) => k in props) });
    }
    case 'array': {
      const min = s.minItems ?? 0;
      const max = Math.min(s.maxItems ?? min + 3, min + 3);
      return fc.array(validish(doc, s.items, hints, undefined, depth + 1), { minLength: min, maxLength: max });
    }
    case 'string':
      return withExample(stringArb(s));
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000);
      return withExample(fc.oneof(fc.integer({ min: clamp32(min), max: clamp32(Math.max(clamp32(min), max)) }), fc.constantFrom(min, max)));
    }
    case 'number':
      return withExample(fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Mutation = 'drop' | 'replace' | 'extra' | 'wrongType' | 'huge' | 'null';

/** Every node path of a JSON value (the root is `[]`). */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (out.length > 200) return out;
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

function wrongTypeOf(v: unknown): unknown {
  if (typeof v === 'string') return v.length;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 0;
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i), x]));
  if (v && typeof v === 'object') return Object.values(v);
  return {};
}

/** `value` with one node dropped, replaced by junk, given an unknown sibling, retyped, blown up or nulled. */
function mutate(value: unknown, kind: Mutation, j: unknown, pick: number): unknown {
  const root = structuredClone(value);
  const all = paths(root);
  const path = all[pick % all.length]!;
  if (path.length === 0) {
    if (kind === 'extra' && root && typeof root === 'object' && !Array.isArray(root)) return { ...root, [`unknown${pick % 7}`]: j };
    return kind === 'wrongType' ? wrongTypeOf(root) : kind === 'null' ? null : j;
  }
  const parent = path.slice(0, -1).reduce<any>((node, k) => node[k], root);
  const key = path[path.length - 1]!;
  switch (kind) {
    case 'drop':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      break;
    case 'replace':
      parent[key] = j;
      break;
    case 'extra':
      if (Array.isArray(parent)) parent.push(j);
      else parent[`unknown${pick % 7}`] = j;
      break;
    case 'wrongType':
      parent[key] = wrongTypeOf(parent[key]);
      break;
    case 'huge':
      parent[key] = typeof parent[key] === 'number' ? (pick % 2 ? 1e308 : -(2 ** 60)) : 'y'.repeat(100_000 + (pick % 1000));
      break;
    case 'null':
      parent[key] = null;
      break;
  }
  return root;
}

const mutations = fc.constantFrom<Mutation>('drop', 'replace', 'extra', 'wrongType', 'huge', 'null');

/** A body value: valid-ish, mutated, or junk. */
function bodyValue(doc: ApiDoc, op: Operation, hints: Hints): fc.Arbitrary<{ value: unknown; note: string }> {
  const valid = op.body ? validish(doc, op.body.schema, hints) : fc.constant({});
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((value) => ({ value, note: 'valid-ish body' })) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(valid, mutations, junk, fc.nat())
        .map(([v, kind, j, pick]) => ({ value: mutate(v, kind, j, pick), note: `body mutation ${kind}` })),
    },
    { weight: 1, arbitrary: junk.map((value) => ({ value, note: 'junk body' })) },
  );
}

const rawBodies = fc.constantFrom(
  '{',
  '[',
  '{"a":',
  'nul',
  'undefined',
  "{'single':'quotes'}",
  '{"a":1}}',
  '\uFEFF{}',
  '1e400',
  '{"n":1e400}',
  '{"n":-1e400,"m":123456789012345678901234567890}',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '[]',
  '""',
  '0',
  'null',
  'name=x&permissions=VIEW',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
);

/** The encoded body: JSON, duplicated keys, truncated, raw garbage, invalid UTF-8 or nothing. */
function encodedBody(doc: ApiDoc, op: Operation, hints: Hints): fc.Arbitrary<{ body?: string | Uint8Array; note: string }> {
  const value = bodyValue(doc, op, hints);
  return fc.oneof(
    { weight: 8, arbitrary: value.map(({ value: v, note }) => ({ body: JSON.stringify(v), note })) },
    {
      weight: 1,
      arbitrary: fc.tuple(value, junk, fc.boolean()).map(([{ value: v, note }, j, junkFirst]) => {
        const text = JSON.stringify(v);
        const keys = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : [];
        if (!keys.length || !text.startsWith('{')) return { body: text, note };
        const dup = `${JSON.stringify(keys[0])}:${JSON.stringify(j) ?? 'null'}`;
        // The same key twice: JSON.parse keeps the last one; either the junk or the valid value wins.
        return {
          body: junkFirst ? `{${dup},${text.slice(1)}` : `${text.slice(0, -1)},${dup}}`,
          note: `${note}, duplicated key ${keys[0]}`,
        };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.nat()).map(([{ value: v, note }, cut]) => {
        const text = JSON.stringify(v) ?? '';
        return { body: text.slice(0, text.length > 1 ? cut % (text.length - 1) : 0), note: `${note}, truncated` };
      }),
    },
    { weight: 1, arbitrary: rawBodies.map((body) => ({ body, note: 'raw garbage body' })) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ minLength: 1, maxLength: 64 })
        .map((bytes) => ({ body: Uint8Array.from([0xff, 0xfe, ...bytes]), note: 'invalid UTF-8 body' })),
    },
    { weight: 1, arbitrary: fc.constant({ body: undefined, note: 'no body' }) },
  );
}

const contentTypes = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/xml',
      'application/octet-stream',
      '*/*',
      'application/json, text/plain',
    ),
  },
);

/** A path id: one of the pool's, %-garbage, unicode, very long, or random text. */
function pathValue(hints: Hints): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: hints.ids.map(encode) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%%',
        '%zz',
        '%E0%A4%A',
        '%00',
        '%2F',
        '%2e%2e',
        '%ff%fe',
        '%C0%AF',
        '%25',
        '..',
        '.',
        '%20',
        '%u0041',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }).map(encode) },
    { weight: 1, arbitrary: fc.nat({ max: 12_000 }).map((n) => 'I'.repeat(n + 1)) },
    { weight: 1, arbitrary: asciiText(40).map((s) => s.replace(/[/?#]/g, '') || 'x') },
  );
}

/** A query string: the declared parameters (valid-ish or junk), repeated keys, unknown keys, raw %-garbage. */
function queryString(doc: ApiDoc, op: Operation, hints: Hints): fc.Arbitrary<string> {
  const declared = op.params.filter((p) => p.in === 'query');
  const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  const pair = (p: (typeof declared)[number]) =>
    fc.oneof(
      { weight: 4, arbitrary: validish(doc, p.schema, hints, p.name).map((v) => [p.name, asText(v)] as const) },
      { weight: 2, arbitrary: junk.map((v) => [p.name, asText(v).slice(0, 20_000)] as const) },
    );
  const declaredPairs = fc.tuple(
    ...declared.map((p) =>
      fc.oneof(
        { weight: p.required ? 12 : 4, arbitrary: pair(p).map((kv) => [kv]) },
        { weight: p.required ? 1 : 6, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.tuple(pair(p), pair(p)).map((kvs) => kvs) },
      ),
    ),
  );
  const extra = fc.array(
    fc.tuple(fc.oneof(asciiText(12), fc.constantFrom('__proto__', 'limit[]', 'a[b]', '')), fc.oneof(asciiText(30), junk.map(asText))),
    { minLength: 1, maxLength: 3 },
  );
  const raw = fc.constantFrom('&&&', '%', '=%zz', 'limit=%ff', 'a=1&a', '?', '==', `cursor=${'%'.repeat(3)}`);
  // Mostly the declared parameters alone, so the values themselves are what gets tested; sometimes extras.
  const noise = fc.oneof(
    { weight: 4, arbitrary: fc.constant([[], ''] as const) },
    { weight: 1, arbitrary: fc.tuple(extra, fc.constant('')) },
    { weight: 1, arbitrary: fc.tuple(fc.constant([]), raw) },
  );
  return fc.tuple(declaredPairs, noise).map(([d, [e, r]]) => {
    const params = new URLSearchParams();
    for (const [k, v] of [...(d as unknown as (readonly [string, string])[][]).flat(), ...(e as [string, string][])]) params.append(k, v);
    return [params.toString(), r].filter(Boolean).join('&');
  });
}

function bogusAuthorization(creds: Credentials): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      '',
      'Basic',
      'Basic ',
      'Basic !!!',
      'Basic Og==',
      'Basic YWJj',
      'Bearer',
      'Bearer ',
      'Digest username="x"',
      'Negotiate abc',
      'basic',
    ),
    asciiText(60),
    fc.tuple(asciiText(40), asciiText(40)).map(([id, secret]) => `Basic ${btoa(`${id}:${secret}`)}`),
    asciiText(40).map((secret) => `Basic ${btoa(`${creds.clientId}:${secret}`)}`),
    fc.nat({ max: 20_000 }).map((n) => `Basic ${btoa(`${'i'.repeat(n)}:${'s'.repeat(n)}`)}`),
    asciiText(80).map((t) => `Bearer ${t}`),
    fc.constant(creds.operator),
    fc.constant(creds.basic),
    fc.constant(creds.agent),
  );
}

/** A stamp-like value: random text, base64url of JSON with wrong or random fields, or huge. */
const bogusStamp = fc.oneof(
  asciiText(80),
  fc.constantFrom('sandbox-valid-signature', 'e30', 'bnVsbA', '%%%'),
  fc
    .record({
      publicKey: fc.oneof(hex(66), asciiText(10)),
      scheme: fc.oneof(fc.constant('SIGNATURE_SCHEME_TK_API_P256'), asciiText(10)),
      signature: fc.oneof(hex(140), asciiText(20)),
    })
    .map((o) => base64url(JSON.stringify(o))),
  junk.map((j) => base64url((JSON.stringify(j) ?? 'null').slice(0, 20_000))),
);

const bogusRequestId = fc.oneof(
  asciiText(60),
  fc.uuid().map((u) => `Request:${u}`),
  fc.constantFrom('', 'Request:', 'null'),
  fc.nat({ max: 10_000 }).map((n) => 'R'.repeat(n + 1)),
);
const idempotencyKey = fc.oneof(
  fc.uuid(),
  asciiText(40),
  fc.constantFrom('', '""', '"', ' '),
  fc.nat({ max: 2000 }).map((n) => 'k'.repeat(n + 200)),
);

/** Random and mutated requests to `op`: mostly with valid credentials, so they reach the validation layers. */
export function hostileRequest(doc: ApiDoc, op: Operation, hints: Hints, creds: Credentials): fc.Arbitrary<HostileRequest> {
  const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const valid = op.security.includes('OperatorAuth')
    ? creds.operator
    : op.security.includes('BasicAuth')
      ? creds.basic
      : op.security.includes('AgentAuth')
        ? creds.agent
        : undefined;
  const authorization = fc.oneof({ weight: 12, arbitrary: fc.constant(valid) }, { weight: 1, arbitrary: bogusAuthorization(creds) });
  const declared = doc.methodsByPath.get(op.path) ?? [op.method];
  const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'TRACE'].filter((m) => !declared.includes(m));
  const method = fc.oneof(
    { weight: 19, arbitrary: fc.constant(op.method) },
    { weight: others.length ? 1 : 0, arbitrary: fc.constantFrom(...(others.length ? others : [op.method])) },
  );
  const optional = <T>(a: fc.Arbitrary<T>, weight = 1) =>
    fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight, arbitrary: a });

  return fc
    .record({
      method,
      ids: fc.tuple(...pathNames.map(() => pathValue(hints))),
      query: queryString(doc, op, hints),
      body: encodedBody(doc, op, hints),
      contentType: contentTypes,
      authorization,
      stamp: optional(bogusStamp),
      requestId: optional(bogusRequestId),
      idempotencyKey: optional(idempotencyKey),
    })
    .map((r) => {
      const path = fillPath(op.path, Object.fromEntries(pathNames.map((n, i) => [n, r.ids[i]!])));
      const headers: Record<string, string> = {};
      if (r.authorization !== undefined) headers.Authorization = r.authorization;
      if (r.stamp !== undefined) headers['Service-Wallet-Signature'] = r.stamp;
      if (r.requestId !== undefined) headers['Request-Id'] = r.requestId;
      if (r.idempotencyKey !== undefined) headers['Idempotency-Key'] = r.idempotencyKey;
      const hasBody = r.method !== 'GET' && r.method !== 'HEAD' && r.body.body !== undefined;
      if (hasBody && r.contentType) headers['Content-Type'] = r.contentType;
      const req: HostileRequest = {
        method: r.method,
        target: r.query ? `${path}?${r.query}` : path,
        headers,
        body: hasBody ? r.body.body : undefined,
        note: hasBody ? r.body.note : 'no body',
      };
      return Object.assign(req, { [fc.toStringMethod]: () => describe(req) });
    });
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

/** A short, readable description of a request for failure reports. */
export function describe(req: HostileRequest): string {
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? clip(req.body, 300) : `<${req.body.length} bytes>`;
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${clip(v, 120)}`)
    .join('; ');
  return `${req.method} ${clip(req.target, 300)} [${headers}] (${req.note}) ${body}`;
}
