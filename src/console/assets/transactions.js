// Transactions: the list with filters, and a transaction's page with its status history. Both poll, so a
// status change (a delayed sandbox outcome, an advanced clock) appears without reloading.
import { api, enumValues } from './api.js';
import { badge, changeWatch, errorBox, facts, field, fill, h, money, options, shortId, table, when } from './ui.js';

const POLL_MS = 2000;

const link = (t) => h('a', { href: `#/transactions/${encodeURIComponent(t.id)}`, title: t.id }, h('code', null, shortId(t.id)));

export async function transactionList(main, _param, live, query) {
  const customerId = query.get('customerId') ?? '';
  const [statuses, types] = await Promise.all([enumValues('TransactionStatus'), enumValues('TransactionType')]);
  const any = ['', 'Any'];
  const status = h('select', { name: 'status' }, options([any, ...statuses.map((s) => [s, s])], query.get('status') ?? ''));
  const type = h('select', { name: 'type' }, options([any, ...types.map((s) => [s, s])], query.get('type') ?? ''));
  const results = h('div', { 'aria-live': 'polite' });
  const count = h('p', { class: 'muted' });
  fill(
    main,
    h('h1', null, 'Transactions'),
    customerId
      ? h('p', null, 'Of customer ', h('a', { href: `#/customers/${encodeURIComponent(customerId)}` }, h('code', null, customerId)))
      : null,
    h('form', { class: 'filters', onsubmit: (e) => e.preventDefault() }, field('Status', status), field('Type', type)),
    count,
    results,
  );
  const changed = changeWatch();
  const load = async () => {
    const page = await api('/transactions', { query: { status: status.value, type: type.value, customerId, limit: 50 } });
    if (!changed(page.data)) return;
    fill(
      count,
      page.hasMore
        ? `The newest 50 of ${page.totalCount ?? 'many'}`
        : `${page.data.length} transaction${page.data.length === 1 ? '' : 's'}`,
    );
    fill(
      results,
      table(
        [
          { label: 'Transaction', cell: link },
          { label: 'Type', cell: (t) => t.type },
          { label: 'Status', cell: (t) => badge(t.status) },
          { label: 'Sent', cell: (t) => money(t.sentAmount) },
          { label: 'Received', cell: (t) => money(t.receivedAmount) },
          { label: 'Customer', cell: (t) => t.platformCustomerId ?? '–' },
          { label: 'Created', cell: (t) => when(t.createdAt) },
        ],
        page.data,
        status.value || type.value
          ? 'No transaction matches these filters.'
          : 'No transactions yet. Move money with POST /transfer-out or a quote.',
      ),
    );
  };
  const reload = () =>
    load().catch((error) => {
      changed.reset();
      fill(results, errorBox(error));
    });
  const refilter = () => {
    changed.reset();
    reload();
  };
  status.addEventListener('change', refilter);
  type.addEventListener('change', refilter);
  await load();
  live.every(POLL_MS, reload);
}

export async function transactionPage(main, id, live) {
  const path = `/transactions/${encodeURIComponent(id)}`;
  const details = h('div');
  const history = h('ol', { class: 'history' });
  const problem = h('div');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/transactions' }, 'Transactions'), ' / ', shortId(id)),
    h('h1', null, 'Transaction'),
    problem,
    details,
    h('h2', null, 'Status history'),
    history,
  );
  const changed = changeWatch();
  const load = async () => {
    const [t, changes] = await Promise.all([api(path), api(`${path}/history`)]);
    if (!changed([t, changes])) return;
    fill(
      details,
      facts([
        ['ID', h('code', null, t.id)],
        ['Status', h('span', { data: { field: 'status' } }, badge(t.status))],
        ['Failure reason', t.failureReason],
        ['Type', t.type],
        ['Sent', money(t.sentAmount)],
        ['Received', money(t.receivedAmount)],
        ['Exchange rate', t.exchangeRate],
        ['Fees', t.fees !== undefined && t.sentAmount ? money({ amount: t.fees, currency: t.sentAmount.currency }) : undefined],
        ['From', party(t.source)],
        ['To', party(t.destination)],
        [
          'Customer',
          t.customerId?.startsWith('Customer:')
            ? h('a', { href: `#/customers/${encodeURIComponent(t.customerId)}` }, t.platformCustomerId ?? t.customerId)
            : undefined,
        ],
        ['Sender UMA address', t.senderUmaAddress],
        ['Receiver UMA address', t.receiverUmaAddress],
        ['Quote', t.quoteId ? h('code', null, t.quoteId) : undefined],
        ['Waiting for platform approval', t.pendingPlatformApproval ? 'yes' : undefined],
        ['Refund', t.refund ? `${t.refund.status}${t.refund.reason ? ` (${t.refund.reason})` : ''}` : undefined],
        ['Description', t.description],
        ['Created', when(t.createdAt)],
        ['Settled', t.settledAt ? when(t.settledAt) : undefined],
      ]),
    );
    fill(
      history,
      changes.data.map((c) =>
        h(
          'li',
          null,
          c.previousStatus ? [badge(c.previousStatus), ' → '] : 'Created as ',
          badge(c.status),
          ' ',
          h('span', { class: 'muted' }, when(c.changedAt)),
        ),
      ),
    );
  };
  await load();
  live.every(POLL_MS, () =>
    load().then(
      () => fill(problem),
      (error) => fill(problem, errorBox(error)),
    ),
  );
}

function party(p) {
  if (!p) return undefined;
  const where = p.accountId ? h('code', { title: p.accountId }, p.accountId) : (p.umaAddress ?? p.customerId ?? '');
  const kind = p.sourceType ?? p.destinationType;
  return [where, ` (${kind === 'REALTIME_FUNDING' ? 'real-time funding' : kind?.toLowerCase().replace('_', ' ')}, ${p.currency})`];
}
