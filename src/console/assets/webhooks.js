// Webhooks: deliveries with their attempts, payload and the receiver's answer; replaying past deliveries and,
// in the sandbox, sending any event in a chaos mode. Each signature is checked here in the browser (WebCrypto)
// against the platform's public key from GET /config, exactly as a platform's receiver would check it.
import { api, enumValues, mode, platformConfig } from './api.js';
import { act, actionForm, badge, changeWatch, errorBox, facts, field, fill, h, options, outcome, prettyJson, table, when } from './ui.js';

const POLL_MS = 2000;

export async function deliveryList(main, _param, live) {
  // The configuration fresh (the endpoint may have changed since sign-in), the enums from /openapi.json.
  const [config, statuses, types, modes] = await Promise.all([
    api('/config'),
    enumValues('WebhookDeliveryStatus'),
    enumValues('WebhookType'),
    enumValues('WebhookDeliveryMode'),
  ]);
  const any = ['', 'Any'];
  const status = h('select', { name: 'status' }, options([any, ...statuses.map((s) => [s, s])]));
  const eventType = h('select', { name: 'eventType' }, options([any, ...types.map((s) => [s, s])]));
  const results = h('div');
  fill(
    main,
    h('h1', null, 'Webhooks'),
    h(
      'p',
      { class: 'muted' },
      config.webhookEndpoint
        ? ['Sent to ', h('code', null, config.webhookEndpoint)]
        : 'No webhook endpoint is configured: set webhookEndpoint with PATCH /config.',
    ),
    h('form', { class: 'filters', onsubmit: (e) => e.preventDefault() }, field('Status', status), field('Event type', eventType)),
    results,
    mode === 'sandbox' ? sendSection(types, modes, () => reload()) : null,
    replaySection(types, statuses, () => reload()),
  );
  const changed = changeWatch();
  const load = async () => {
    const type = eventType.value;
    const page = await api('/webhooks/deliveries', { query: { status: status.value, eventType: type, limit: 50 } });
    if (!changed(page.data)) return;
    fill(
      results,
      table(
        [
          { label: 'Event', cell: (d) => h('a', { href: `#/webhooks/${encodeURIComponent(d.id)}` }, d.eventType) },
          { label: 'Status', cell: (d) => badge(d.status) },
          { label: 'Mode', cell: (d) => d.mode },
          { label: 'Attempts', cell: (d) => String(d.attempts) },
          { label: 'Last answer', cell: (d) => (d.lastResponseStatus ? `HTTP ${d.lastResponseStatus}` : (d.lastError ?? '–')) },
          { label: 'Created', cell: (d) => when(d.createdAt) },
        ],
        page.data,
        status.value || type ? 'No delivery matches these filters.' : 'No webhooks yet: they are sent as payments and customers change.',
      ),
    );
  };
  const reload = () =>
    load().catch((error) => {
      changed.reset();
      fill(results, errorBox(error));
    });
  status.addEventListener('change', reload);
  eventType.addEventListener('change', reload);
  await load();
  live.every(POLL_MS, reload);
}

/** Sandbox: POST /sandbox/webhooks/send, one event from a resource's current view or given data, in a chaos mode. */
function sendSection(types, modes, refresh) {
  const type = h('select', { name: 'type' }, options(types.map((t) => [t, t])));
  const resourceId = h('input', { name: 'resourceId', placeholder: 'Transaction:…, Customer:…, InternalAccount:…' });
  const data = h('textarea', { name: 'data', rows: 3, placeholder: '{"id": "Transaction:…", …}' });
  const chaos = h(
    'select',
    { name: 'mode' },
    options(
      modes.map((m) => [m, m]),
      'NORMAL',
    ),
  );
  const delay = h('input', { name: 'delaySeconds', type: 'number', min: 1, max: 3600, value: 60 });
  const delayField = field('Delay (s)', delay, 'DELAYED only; a clock advance releases it early');
  const showDelay = () => (delayField.hidden = chaos.value !== 'DELAYED');
  chaos.addEventListener('change', showDelay);
  showDelay();
  return h(
    'section',
    { 'aria-labelledby': 'send-event' },
    h('h2', { id: 'send-event' }, 'Send event'),
    h('p', { class: 'muted' }, 'Sends one event to the endpoint through the delivery queue: a resource as it is now, or the data given.'),
    ...actionForm(
      'Send event',
      [
        field('Type', type),
        field('Resource ID', resourceId, 'Or leave empty and give data'),
        field('Data (JSON)', data),
        field('Mode', chaos),
        delayField,
      ],
      async () => {
        const body = { type: type.value, mode: chaos.value };
        if (resourceId.value.trim()) body.resourceId = resourceId.value.trim();
        if (data.value.trim()) body.data = JSON.parse(data.value);
        if (chaos.value === 'DELAYED') body.delaySeconds = Number(delay.value);
        const sent = await api('/sandbox/webhooks/send', { method: 'POST', body });
        refresh();
        const n = sent.deliveries.length;
        return h(
          'span',
          null,
          `${n} deliver${n === 1 ? 'y' : 'ies'} queued: `,
          ...sent.deliveries.flatMap((d, i) => [i ? ', ' : '', h('a', { href: `#/webhooks/${encodeURIComponent(d.id)}` }, d.id)]),
        );
      },
    ),
  );
}

/** POST /webhooks/deliveries/replay with the filters: the matching deliveries sent again, oldest first. */
function replaySection(types, statuses, refresh) {
  const any = ['', 'Any'];
  const type = h('select', { name: 'replayType' }, options([any, ...types.map((t) => [t, t])]));
  const status = h('select', { name: 'replayStatus' }, options([any, ...statuses.map((s) => [s, s])]));
  const after = h('input', { name: 'createdAfter', type: 'datetime-local' });
  const before = h('input', { name: 'createdBefore', type: 'datetime-local' });
  return h(
    'section',
    { 'aria-labelledby': 'replay' },
    h('h2', { id: 'replay' }, 'Replay'),
    h('p', { class: 'muted' }, 'Sends the matching deliveries again (at most 1,000, oldest first), each with its event id and payload.'),
    ...actionForm(
      'Replay',
      [field('Event type', type), field('Status', status), field('Created after', after), field('Created before', before)],
      async () => {
        const body = {};
        if (type.value) body.type = type.value;
        if (status.value) body.status = status.value;
        if (after.value) body.createdAfter = new Date(after.value).toISOString();
        if (before.value) body.createdBefore = new Date(before.value).toISOString();
        const replayed = await api('/webhooks/deliveries/replay', { method: 'POST', body });
        refresh();
        return `${replayed.count} deliver${replayed.count === 1 ? 'y' : 'ies'} sent again.`;
      },
    ),
  );
}

export async function deliveryPage(main, id, live) {
  const path = `/webhooks/deliveries/${encodeURIComponent(id)}`;
  const details = h('div');
  const payload = h('pre', { class: 'code', tabindex: '0' });
  const answer = h('pre', { class: 'code', tabindex: '0' });
  const { nodes, say } = outcome();
  const resend = h('button', { type: 'button' }, 'Resend');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/webhooks' }, 'Webhooks'), ' / delivery'),
    h('h1', null, 'Webhook delivery'),
    h('div', { class: 'actions' }, resend),
    nodes,
    details,
    h('h2', null, 'Payload'),
    payload,
    h('h2', null, "Receiver's answer"),
    answer,
  );
  const config = await platformConfig();
  const changed = changeWatch();
  const render = async (d) => {
    if (!changed(d)) return;
    const verdict = await verdictOf(config.webhookPublicKey, d);
    fill(
      details,
      facts([
        ['Event', d.eventType],
        ['Event ID', h('code', null, d.eventId)],
        ['Status', h('span', { data: { field: 'status' } }, badge(d.status))],
        ['Mode', h('span', { data: { field: 'mode' } }, d.mode)],
        ['Attempts', h('span', { data: { field: 'attempts' } }, String(d.attempts))],
        [
          'Signature',
          h('span', { class: `signature ${verdict.ok ? 'ok' : 'bad'}`, data: { field: 'signature' }, title: verdict.why }, verdict.text),
        ],
        ['Endpoint', d.url ? h('code', null, d.url) : undefined],
        ['Last answer', d.lastResponseStatus ? `HTTP ${d.lastResponseStatus}` : undefined],
        ['Last error', d.lastError],
        ['Last attempt', d.lastAttemptAt ? when(d.lastAttemptAt) : undefined],
        ['Next attempt', d.nextAttemptAt ? when(d.nextAttemptAt) : undefined],
        ['Delivered', d.deliveredAt ? when(d.deliveredAt) : undefined],
        ['Created', when(d.createdAt)],
      ]),
    );
    fill(payload, d.payload ? prettyJson(d.payload) : 'Not sent yet.');
    fill(answer, d.lastResponseBody ? prettyJson(d.lastResponseBody) : d.lastResponseStatus ? '(an empty body)' : 'No answer yet.');
  };
  const load = async () => render(await api(path));
  resend.addEventListener('click', () =>
    act(resend, say, async () => {
      const d = await api(`${path}/resend`, { method: 'POST' });
      await render(d);
      return `Sent again: attempt ${d.attempts}, ${d.lastResponseStatus ? `the receiver answered HTTP ${d.lastResponseStatus}` : `no answer (${d.lastError ?? 'failed'})`}.`;
    }),
  );
  await load();
  live.every(POLL_MS, () => load().catch((error) => say(error)));
}

/** Whether the delivery's `signature` verifies over its exact `payload` bytes under the platform's key. */
async function verdictOf(publicKeyPem, d) {
  if (!d.signature || !d.payload) return { ok: false, text: 'Not signed yet', why: 'No attempt has been made' };
  try {
    const ok = await verify(publicKeyPem, d.payload, d.signature);
    return ok
      ? { ok, text: 'Verified', why: "ECDSA P-256 over the payload's bytes, under webhookPublicKey from GET /config" }
      : { ok, text: 'Does not verify', why: "The signature does not match the payload under the platform's public key" };
  } catch (error) {
    return { ok: false, text: 'Does not verify', why: String(error?.message ?? error) };
  }
}

const keys = new Map();
async function verify(pem, payload, signatureBase64) {
  if (!keys.has(pem)) {
    const der = bytes(pem.replace(/-----[^-]+-----/g, ''));
    keys.set(pem, await crypto.subtle.importKey('spki', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']));
  }
  const raw = derToRaw(bytes(signatureBase64));
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, keys.get(pem), raw, new TextEncoder().encode(payload));
}

function bytes(base64) {
  const bin = atob(base64.replace(/\s+/g, ''));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The header carries a DER signature (SEQUENCE of two INTEGERs); WebCrypto verifies r||s, 32 bytes each. */
function derToRaw(der) {
  if (der[0] !== 0x30) throw new Error('The signature is not DER');
  let at = der[1] & 0x80 ? 2 + (der[1] & 0x7f) : 2;
  const out = new Uint8Array(64);
  for (const offset of [0, 32]) {
    if (der[at] !== 0x02) throw new Error('The signature is not DER');
    const length = der[at + 1];
    let value = der.subarray(at + 2, at + 2 + length);
    while (value.length > 32 && value[0] === 0) value = value.subarray(1);
    if (value.length > 32) throw new Error('The signature is not P-256');
    out.set(value, offset + 32 - value.length);
    at += 2 + length;
  }
  return out;
}
