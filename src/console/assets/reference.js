// The API reference, rendered from the service's own /openapi.json: every operation grouped by tag, with
// its parameters, body, responses, their schemas, and a curl line to start from.
import { apiBase, openApi } from './api.js';
import { field, fill, h, table } from './ui.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const MAX_DEPTH = 5;

export async function referencePage(main) {
  const doc = await openApi();
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ method, path, op });
    }
  }
  const count = [...byTag.values()].reduce((n, ops) => n + ops.length, 0);
  const filter = h('input', { type: 'search', name: 'filter', placeholder: 'Path, operation or word', autocomplete: 'off' });
  const sections = [...byTag].map(([tag, ops]) => {
    const id = `tag-${slug(tag)}`;
    return h(
      'section',
      { class: 'tag', id, 'aria-labelledby': `${id}-h` },
      h('h2', { id: `${id}-h` }, tag),
      ops.map((o) => operation(doc, o)),
    );
  });
  const toc = h(
    'nav',
    { class: 'toc', 'aria-label': 'Tags' },
    h(
      'ul',
      null,
      [...byTag].map(([tag, ops]) =>
        h('li', null, h('a', { href: `#/reference`, data: { target: `tag-${slug(tag)}` } }, `${tag} (${ops.length})`)),
      ),
    ),
  );
  // Hash routing owns the fragment, so the contents scroll instead of navigating.
  toc.addEventListener('click', (event) => {
    const target = event.target.closest('a')?.dataset.target;
    if (!target) return;
    event.preventDefault();
    const heading = document.getElementById(`${target}-h`);
    heading?.setAttribute('tabindex', '-1');
    heading?.scrollIntoView();
    heading?.focus();
  });
  filter.addEventListener('input', () => {
    const words = filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    for (const section of sections) {
      let visible = 0;
      for (const op of section.querySelectorAll('.op')) {
        op.hidden = !words.every((w) => op.dataset.search.includes(w));
        if (!op.hidden) visible++;
      }
      section.hidden = visible === 0;
    }
  });
  fill(
    main,
    h('h1', null, 'API reference'),
    h(
      'p',
      null,
      `${count} operations under `,
      h('code', null, `${location.origin}${apiBase}`),
      '. Platform calls authenticate with HTTP Basic (client ID and secret of an API token). The document itself: ',
      h('a', { href: `${apiBase}/openapi.json` }, 'openapi.json'),
      '.',
    ),
    h('form', { class: 'filters', role: 'search', onsubmit: (e) => e.preventDefault() }, field('Filter operations', filter)),
    toc,
    sections,
  );
}

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function operation(doc, { method, path, op }) {
  const params = op.parameters ?? [];
  const body = op.requestBody?.content?.['application/json']?.schema;
  const form = op.requestBody?.content?.['multipart/form-data']?.schema;
  const permission = op['x-required-permission'];
  return h(
    'article',
    { class: 'op', id: `op-${op.operationId}`, data: { search: `${method} ${path} ${op.operationId} ${op.summary ?? ''}`.toLowerCase() } },
    h('h3', null, h('span', { class: `method method-${method}` }, method.toUpperCase()), ' ', h('code', null, path)),
    h('p', null, op.summary ?? ''),
    h(
      'p',
      { class: 'muted small' },
      h('code', null, op.operationId),
      ' · ',
      authOf(doc, op).label,
      permission ? [' · permission ', h('code', null, permission)] : null,
    ),
    params.length
      ? [
          h('h4', null, 'Parameters'),
          table(
            [
              {
                label: 'Name',
                cell: (p) => [h('code', null, p.name), p.required ? h('span', { class: 'req', title: 'required' }, ' *') : null],
              },
              { label: 'In', cell: (p) => p.in },
              { label: 'Type', cell: (p) => typeOf(doc, p.schema) },
              { label: 'Description', cell: (p) => p.description ?? p.schema?.description ?? '' },
            ],
            params,
            '',
          ),
        ]
      : null,
    body ? [h('h4', null, 'Request body (application/json)'), schemaTree(doc, body, 0, new Set())] : null,
    form ? [h('h4', null, 'Request body (multipart/form-data)'), schemaTree(doc, form, 0, new Set())] : null,
    h('h4', null, 'Responses'),
    h(
      'ul',
      { class: 'responses' },
      Object.entries(op.responses ?? {}).map(([status, r]) => {
        const schema = r.content?.['application/json']?.schema;
        return h(
          'li',
          null,
          h('strong', null, status),
          ' ',
          r.description ?? '',
          schema ? h('details', null, h('summary', null, typeOf(doc, schema)), schemaTree(doc, schema, 1, new Set())) : null,
        );
      }),
    ),
    h('pre', { class: 'code curl', tabindex: '0' }, curl(doc, method, path, op, body)),
  );
}

function authOf(doc, op) {
  const scheme = Object.keys((op.security ?? doc.security ?? [])[0] ?? {})[0];
  switch (scheme) {
    case 'BasicAuth':
      return { label: 'HTTP Basic (API token)', curl: '-u "$CLIENT_ID:$CLIENT_SECRET"' };
    case 'AgentAuth':
      return { label: 'Bearer (agent access token)', curl: '-H "Authorization: Bearer $AGENT_TOKEN"' };
    case 'OperatorAuth':
      return { label: 'Bearer (operator token)', curl: '-H "Authorization: Bearer $OPERATOR_TOKEN"' };
    default:
      return { label: 'No authentication', curl: '' };
  }
}

function curl(doc, method, path, op, body) {
  const parts = ['curl'];
  const auth = authOf(doc, op).curl;
  if (auth) parts.push(auth);
  if (method !== 'get') parts.push(`-X ${method.toUpperCase()}`);
  const query = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=…`);
  parts.push(`"${location.origin}${apiBase}${path}${query.length ? `?${query.join('&')}` : ''}"`);
  if (body) {
    const example = JSON.stringify(exampleOf(doc, body, 0));
    parts.push(`-H 'Content-Type: application/json'`, `-d '${example.replace(/'/g, "'\\''")}'`);
  }
  return parts.join(' \\\n  ');
}

function resolve(doc, schema) {
  let s = schema ?? {};
  const seen = new Set();
  while (s.$ref && !seen.has(s.$ref)) {
    seen.add(s.$ref);
    s = doc.components.schemas[s.$ref.split('/').pop()] ?? {};
  }
  return s;
}

const refName = (schema) => schema?.$ref?.split('/').pop();

function typeOf(doc, schema) {
  const name = refName(schema);
  const s = resolve(doc, schema);
  let type;
  if (s.enum) type = `enum (${s.enum.length})`;
  else if (s.const !== undefined) type = JSON.stringify(s.const);
  else if (s.oneOf || s.anyOf) type = 'one of';
  else if (s.type === 'array') type = `array of ${typeOf(doc, s.items)}`;
  else type = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any');
  return name ? `${name} (${type})` : type;
}

/** A schema as nested lists: properties with their types, required marks, descriptions and enums. */
function schemaTree(doc, schema, depth, seen) {
  const name = refName(schema);
  if (name && seen.has(name)) return h('p', { class: 'muted small' }, `${name} (see above)`);
  const inner = name ? new Set([...seen, name]) : seen;
  const s = resolve(doc, schema);
  if (depth > MAX_DEPTH) return h('p', { class: 'muted small' }, typeOf(doc, schema));
  const variants = s.oneOf ?? s.anyOf;
  if (variants) {
    return h(
      'div',
      { class: 'schema' },
      h('p', { class: 'small' }, 'One of:'),
      h(
        'ul',
        null,
        variants.map((v) => h('li', null, h('details', null, h('summary', null, typeOf(doc, v)), schemaTree(doc, v, depth + 1, inner)))),
      ),
    );
  }
  if (s.type === 'array')
    return h('div', { class: 'schema' }, h('p', { class: 'small' }, 'An array of:'), schemaTree(doc, s.items, depth + 1, inner));
  if (s.enum)
    return h(
      'p',
      { class: 'small' },
      'One of ',
      s.enum.map((v, i) => [i ? ', ' : '', h('code', null, String(v))]),
    );
  const props = Object.entries(s.properties ?? {});
  if (!props.length) return h('p', { class: 'small muted' }, typeOf(doc, schema), s.description ? ` – ${s.description}` : '');
  const required = new Set(s.required ?? []);
  return h(
    'ul',
    { class: 'schema' },
    props.map(([key, value]) => {
      const v = resolve(doc, value);
      const nested = (v.type === 'object' && v.properties) || v.oneOf || (v.type === 'array' && resolve(doc, v.items).properties);
      const description = value.description ?? v.description;
      return h(
        'li',
        null,
        h('code', null, key),
        required.has(key) ? h('span', { class: 'req', title: 'required' }, ' *') : null,
        ' ',
        h('span', { class: 'type' }, typeOf(doc, value)),
        description ? h('span', { class: 'muted' }, ` – ${description}`) : null,
        v.enum && v.enum.length <= 12
          ? h(
              'span',
              { class: 'small' },
              ' (',
              v.enum.map((e, i) => [i ? ', ' : '', h('code', null, String(e))]),
              ')',
            )
          : null,
        nested ? h('details', null, h('summary', null, 'Fields'), schemaTree(doc, value, depth + 1, inner)) : null,
      );
    }),
  );
}

/** A plausible request body: the schema's example, else its required fields with their examples. */
function exampleOf(doc, schema, depth) {
  const s = resolve(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.oneOf || s.anyOf) return exampleOf(doc, (s.oneOf ?? s.anyOf)[0], depth + 1);
  if (depth > MAX_DEPTH) return null;
  switch (s.type) {
    case 'object': {
      const out = {};
      for (const key of s.required ?? []) out[key] = exampleOf(doc, s.properties?.[key], depth + 1);
      return out;
    }
    case 'array':
      return [exampleOf(doc, s.items, depth + 1)];
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
    case 'boolean':
      return false;
    default:
      return s.format === 'date-time' ? new Date(0).toISOString() : '…';
  }
}
