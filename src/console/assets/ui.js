// Small DOM helpers. Every value from the API goes in as text (never as HTML), so a customer's name or a
// webhook payload can never inject markup.

/** An element: `h('a', { href, class, onclick, data: { field: 'status' } }, 'text', child, …)`. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'data') for (const [k, v] of Object.entries(value)) el.dataset[k] = v;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's content. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** An amount in the smallest unit, shown in the currency's main unit: `1,000.00 USD`. */
export function money(value) {
  if (!value) return '–';
  const { amount, currency } = value;
  const decimals = currency?.decimals ?? 2;
  const major = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(
    amount / 10 ** decimals,
  );
  return `${major} ${currency?.code ?? ''}`.trim();
}

/** Main units typed by a person (`12.5`) to the smallest unit (`1250` for 2 decimals); NaN when malformed. */
export function toMinorUnits(text, decimals) {
  const match = /^\s*(\d+)(?:\.(\d*))?\s*$/.exec(text.replace(/,/g, ''));
  if (!match || (match[2] ?? '').length > decimals) return NaN;
  return Number(match[1] + (match[2] ?? '').padEnd(decimals, '0'));
}

export function when(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return h('time', { datetime: iso, title: iso }, d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
}

/** The readable tail of a typed id (`Transaction:0195…0005` → `…00000005`), the whole id in its title. */
export function shortId(id) {
  const tail = String(id).split(':').pop();
  return tail.length > 12 ? `…${tail.slice(-8)}` : tail;
}

export function badge(status) {
  return h(
    'span',
    {
      class: `badge badge-${String(status)
        .toLowerCase()
        .replace(/[^a-z]+/g, '-')}`,
    },
    status,
  );
}

/** A table of rows, or the empty state in words. `columns`: [{ label, cell: (row) => node | text }]. */
export function table(columns, rows, empty) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map((c) => h('th', { scope: 'col' }, c.label)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            null,
            columns.map((c) => h('td', { 'data-label': c.label }, c.cell(row) ?? '–')),
          ),
        ),
      ),
    ),
  );
}

/** A definition list of [term, value] pairs; absent values are left out. */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, value]) => value !== undefined && value !== null && value !== '')
      .map(([term, value]) => [h('dt', null, term), h('dd', null, value)]),
  );
}

export function errorBox(error) {
  return h('p', { class: 'error', role: 'alert' }, error?.message ?? String(error));
}

/** A live region for the outcome of an action: `say(text)` or `say(error)`. */
export function outcome() {
  const el = h('p', { class: 'outcome', role: 'status' });
  const alert = h('p', { class: 'error', role: 'alert', hidden: true });
  const say = (message) => {
    const failed = message instanceof Error;
    fill(alert, failed ? message.message : '');
    alert.hidden = !failed;
    fill(el, failed ? '' : message);
  };
  return { nodes: [el, alert], say };
}

/**
 * A form whose submit runs `action` (its button disabled meanwhile) and says the outcome (the text or node
 * `action` returns, or its error) in a live region under it. Returns [form, ...outcome nodes].
 */
export function actionForm(label, fields, action) {
  const button = h('button', { type: 'submit' }, label);
  const { nodes, say } = outcome();
  const onsubmit = (event) => {
    event.preventDefault();
    act(button, say, action);
  };
  return [h('form', { class: 'inline', onsubmit }, fields, button), ...nodes];
}

/**
 * For a polled view: whether `value` differs from the one seen last, so an unchanged table keeps its DOM
 * (and the reader's focus). `reset()` after showing something else (an error, other filters).
 */
export function changeWatch() {
  let last;
  const changed = (value) => {
    const text = JSON.stringify(value);
    if (text === last) return false;
    last = text;
    return true;
  };
  changed.reset = () => (last = undefined);
  return changed;
}

/** A labelled form control: `field('Amount', h('input', …))`. */
let fieldIds = 0;
export function field(label, control, hint) {
  control.id ||= `f${++fieldIds}`;
  const hintNode = hint ? h('small', { id: `${control.id}-hint` }, hint) : null;
  if (hintNode) control.setAttribute('aria-describedby', hintNode.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintNode);
}

/** Runs an action from a form or button: disables it while running, reports through `say`. */
export async function act(button, say, action) {
  button.disabled = true;
  // The last outcome (an error above all) no longer describes what is on screen once a new try starts.
  say('');
  try {
    say(await action());
  } catch (error) {
    say(error instanceof Error ? error : new Error(String(error)));
  } finally {
    button.disabled = false;
  }
}

/** A JSON value pretty-printed when it parses, as it came when it does not. */
export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Select options from [value, text] pairs. */
export function options(pairs, selected) {
  return pairs.map(([value, text]) => h('option', { value, selected: value === selected }, text));
}
