// The sandbox's fault rules: list them, create one (method and path chosen from /openapi.json), delete, and a
// rule's page with its recent firings. Every control is one public API call with the signed-in token.
import { api, openApi } from './api.js';
import { act, actionForm, changeWatch, errorBox, facts, field, fill, h, options, outcome, shortId, table, when } from './ui.js';

const POLL_MS = 3000;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const EFFECTS = [
  ['ERROR', 'ERROR: answer an error, do nothing'],
  ['LATENCY', 'LATENCY: wait, then handle'],
  ['AFTER_COMMIT', 'AFTER_COMMIT: handle, then answer an error'],
  ['DISCONNECT', 'DISCONNECT: handle, then break off the answer'],
];

const ruleLink = (r) => h('a', { href: `#/faults/${encodeURIComponent(r.id)}`, title: r.id }, shortId(r.id));
const describeEffect = (e) =>
  e.type === 'LATENCY'
    ? `LATENCY ${e.delayMs} ms`
    : e.type === 'DISCONNECT'
      ? 'DISCONNECT'
      : `${e.type} ${e.status}${e.retryAfterSeconds !== undefined ? `, Retry-After ${e.retryAfterSeconds}` : ''}`;
const describeMatch = (m) => [h('code', null, `${m.method} ${m.path}`), m.customerId ?? '', m.accountId ?? ''].filter(Boolean);

/** The operations of /openapi.json a rule can name: every method and path but the rules' own and the revocations. */
async function operations() {
  const doc = await openApi();
  return Object.entries(doc.paths)
    .filter(([path]) => !path.startsWith('/sandbox/faults'))
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m] && !item[m]['x-revokes-credential']).map((m) => ({
        method: m.toUpperCase(),
        path,
        summary: item[m].summary,
      })),
    );
}

export async function faultList(main, _param, live) {
  const results = h('div');
  fill(
    main,
    h('h1', null, 'Faults'),
    h(
      'p',
      { class: 'muted' },
      "Make this platform's own requests to one operation fail, stall, fail after they commit, or lose their answer: each response a rule changes carries X-Sandbox-Fault.",
    ),
    createSection(() => load(true)),
    h('h2', null, 'Rules'),
    results,
  );
  const changed = changeWatch();
  const load = async (force) => {
    const list = await api('/sandbox/faults');
    if (force) changed.reset();
    if (!changed(list.data)) return;
    fill(
      results,
      table(
        [
          { label: 'Rule', cell: ruleLink },
          { label: 'Operation', cell: (r) => describeMatch(r.match) },
          { label: 'Effect', cell: (r) => describeEffect(r.effect) },
          { label: 'Fired', cell: (r) => h('span', { data: { field: 'fired' } }, `${r.firedCount} of ${r.times}`) },
          { label: 'Probability', cell: (r) => String(r.probability) },
          { label: 'Created', cell: (r) => when(r.createdAt) },
          { label: '', cell: (r) => deleteButton(r, () => load(true)) },
        ],
        list.data,
        'No fault rules. Requests are answered normally.',
      ),
    );
  };
  await load();
  live.every(POLL_MS, () =>
    load().catch((error) => {
      changed.reset();
      fill(results, errorBox(error));
    }),
  );
}

function deleteButton(rule, after) {
  const { nodes, say } = outcome();
  const button = h('button', { type: 'button', class: 'secondary', data: { action: 'delete-fault' } }, 'Delete');
  button.addEventListener('click', () =>
    act(button, say, async () => {
      await api(`/sandbox/faults/${encodeURIComponent(rule.id)}`, { method: 'DELETE' });
      await after();
      return 'Deleted.';
    }),
  );
  return h('span', null, button, nodes);
}

function createSection(after) {
  const operation = h('select', { name: 'operation', required: true });
  const customer = h('input', { name: 'customerId', placeholder: 'Customer:… (optional)', spellcheck: 'false', autocomplete: 'off' });
  const account = h('input', { name: 'accountId', placeholder: 'InternalAccount:… (optional)', spellcheck: 'false', autocomplete: 'off' });
  const type = h('select', { name: 'effect', required: true }, options(EFFECTS, 'ERROR'));
  const status = h('input', { name: 'status', type: 'number', min: '400', max: '599', value: '503', inputmode: 'numeric' });
  const retryAfter = h('input', { name: 'retryAfterSeconds', type: 'number', min: '0', max: '3600', inputmode: 'numeric' });
  const delay = h('input', { name: 'delayMs', type: 'number', min: '0', max: '30000', value: '2000', inputmode: 'numeric' });
  const times = h('input', { name: 'times', type: 'number', min: '1', max: '1000', value: '1', required: true, inputmode: 'numeric' });
  const probability = h('input', { name: 'probability', type: 'number', min: '0', max: '1', step: '0.01', value: '1', required: true });
  const statusField = field('Status', status, 'ERROR: 400–599 except 501; AFTER_COMMIT: 500, 502–504');
  const retryField = field('Retry-After (s)', retryAfter, 'ERROR only, optional');
  const delayField = field('Delay (ms)', delay, 'Up to 30,000');
  const shown = () => {
    statusField.hidden = type.value !== 'ERROR' && type.value !== 'AFTER_COMMIT';
    retryField.hidden = type.value !== 'ERROR';
    delayField.hidden = type.value !== 'LATENCY';
    if (type.value === 'AFTER_COMMIT' && Number(status.value) < 500) status.value = '500';
  };
  type.addEventListener('change', shown);
  shown();
  let ops = [];
  operations().then(
    (list) => {
      ops = list;
      fill(
        operation,
        options(
          list.map((o, i) => [String(i), `${o.method} ${o.path}`]),
          String(
            Math.max(
              0,
              list.findIndex((o) => o.method === 'POST' && o.path === '/transfer-out'),
            ),
          ),
        ),
      );
    },
    () => fill(operation, h('option', { value: '' }, 'Could not read /openapi.json')),
  );
  const fields = [
    field('Operation', operation, 'From /openapi.json'),
    field('Customer', customer),
    field('Account', account),
    field('Effect', type),
    statusField,
    retryField,
    delayField,
    field('Times', times),
    field('Probability', probability, '0 to 1'),
  ];
  const section = h(
    'section',
    { class: 'card' },
    h('h2', null, 'New rule'),
    actionForm('Create rule', fields, async () => {
      const op = ops[Number(operation.value)];
      if (!op) throw new Error('Choose an operation.');
      const match = { method: op.method, path: op.path };
      if (customer.value.trim()) match.customerId = customer.value.trim();
      if (account.value.trim()) match.accountId = account.value.trim();
      const effect = { type: type.value };
      if (type.value === 'ERROR' || type.value === 'AFTER_COMMIT') effect.status = Number(status.value);
      if (type.value === 'ERROR' && retryAfter.value !== '') effect.retryAfterSeconds = Number(retryAfter.value);
      if (type.value === 'LATENCY') effect.delayMs = Number(delay.value);
      const rule = await api('/sandbox/faults', {
        method: 'POST',
        body: { match, effect, times: Number(times.value), probability: Number(probability.value) },
      });
      await after();
      return h('span', null, 'Created ', ruleLink(rule), `: ${describeEffect(rule.effect)} on ${op.method} ${op.path}.`);
    }),
  );
  return section;
}

export async function faultPage(main, id, live) {
  const path = `/sandbox/faults/${encodeURIComponent(id)}`;
  const details = h('div');
  const firings = h('div');
  const { nodes, say } = outcome();
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete rule');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/faults' }, 'Faults'), ' / rule'),
    h('h1', null, 'Fault rule'),
    h('div', { class: 'actions' }, remove),
    nodes,
    details,
    h('h2', null, 'Recent firings'),
    firings,
  );
  remove.addEventListener('click', () =>
    act(remove, say, async () => {
      await api(path, { method: 'DELETE' });
      location.hash = '#/faults';
      return 'Deleted.';
    }),
  );
  const changed = changeWatch();
  const load = async () => {
    const r = await api(path);
    if (!changed(r)) return;
    fill(
      details,
      facts([
        ['ID', h('code', null, r.id)],
        ['Operation', describeMatch(r.match)],
        ['Effect', describeEffect(r.effect)],
        ['Fired', h('span', { data: { field: 'fired' } }, `${r.firedCount} of ${r.times} (${r.remaining} left)`)],
        ['Evaluated', `${r.evaluations} matching request${r.evaluations === 1 ? '' : 's'}`],
        ['Probability', `${r.probability} (seed ${r.seed})`],
        ['Created', when(r.createdAt)],
      ]),
    );
    fill(
      firings,
      table(
        [
          { label: 'At', cell: (f) => when(f.at) },
          { label: 'Request', cell: (f) => h('code', null, `${f.method} ${f.path}`) },
          { label: 'X-Request-Id', cell: (f) => h('code', null, f.requestId) },
        ],
        r.firings,
        'It has not fired yet.',
      ),
    );
  };
  await load();
  live.every(POLL_MS, () =>
    load().catch((error) => {
      changed.reset();
      fill(details, errorBox(error));
    }),
  );
}
