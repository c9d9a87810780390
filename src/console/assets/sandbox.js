// The sandbox's own pages: the e-mail outbox (OTP codes), and the controls that drive the simulation:
// fund an account, advance the clock, simulate an incoming UMA payment, send to a UMA address (look-up, quote,
// execute), pay a real-time-funding quote,
// snapshots (take, restore, delete), load a fixture document, reset; and the magic-values catalogue. Every
// control is one public API call with the signed-in token.
import { api, platformConfig } from './api.js';
import {
  act,
  actionForm,
  changeWatch,
  errorBox,
  field,
  fill,
  h,
  money,
  options,
  outcome,
  prettyJson,
  table,
  toMinorUnits,
  when,
} from './ui.js';
import { customerName } from './customers.js';
import { sendSection } from './send.js';

const POLL_MS = 3000;

/** The code in an OTP e-mail's text ("… verification code is 123456. …"). */
const otpOf = (text) => /verification code is ([^\s.]+)/.exec(text)?.[1];

export async function emailList(main, _param, live) {
  const results = h('div');
  fill(
    main,
    h('h1', null, 'E-mails'),
    h('p', { class: 'muted' }, 'What the sandbox would have sent: one-time codes for embedded-wallet sign-ins.'),
    results,
  );
  const changed = changeWatch();
  const load = async () => {
    const page = await api('/sandbox/emails', { query: { limit: 50 } });
    if (!changed(page.data)) return;
    fill(
      results,
      table(
        [
          { label: 'To', cell: (m) => m.to },
          { label: 'Subject', cell: (m) => m.subject },
          { label: 'Code', cell: (m) => (otpOf(m.text) ? h('code', { class: 'otp', data: { field: 'code' } }, otpOf(m.text)) : '–') },
          { label: 'Sent', cell: (m) => when(m.createdAt) },
          { label: 'Text', cell: (m) => h('details', null, h('summary', null, 'Show'), h('p', null, m.text)) },
        ],
        page.data,
        'No e-mails yet. An EMAIL_OTP credential or challenge sends one.',
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

export async function sandboxPage(main, _param, live) {
  const [config, clock, accounts, magic] = await Promise.all([
    platformConfig(),
    api('/sandbox/clock'),
    allInternalAccounts(),
    api('/sandbox/magic-values'),
  ]);
  fill(
    main,
    h('h1', null, 'Sandbox'),
    h('p', { class: 'muted' }, 'Drive the simulation. Each action is a public API call made with your token.'),
    clockSection(clock, live),
    fundSection(accounts),
    receiveSection(config, accounts),
    sendSection(accounts, config.sandboxUmaDomain ?? 'sandbox.uma.test'),
    quoteSection(),
    snapshotsSection(),
    fixturesSection(),
    resetSection(),
    magicValuesSection(magic),
  );
}

/** Every internal account with a label a person recognises: the customer (or the platform) and currency. */
async function allInternalAccounts() {
  const [platform, customers, owners] = await Promise.all([
    api('/platform/internal-accounts'),
    api('/customers/internal-accounts', { query: { limit: 100 } }),
    api('/customers', { query: { limit: 100 } }),
  ]);
  const names = new Map(owners.data.map((c) => [c.id, customerName(c)]));
  return [
    ...platform.data.map((a) => ({ ...a, owner: 'Platform' })),
    ...customers.data.map((a) => ({
      ...a,
      owner: names.get(a.customerId) ?? a.customerId,
      umaAddress: owners.data.find((c) => c.id === a.customerId)?.umaAddress,
    })),
  ];
}

const accountLabel = (a) => `${a.owner} · ${a.type === 'EMBEDDED_WALLET' ? 'wallet' : a.balance.currency.code} · ${money(a.balance)}`;

function section(title, intro, ...content) {
  return h('section', { class: 'card' }, h('h2', null, title), intro ? h('p', { class: 'muted' }, intro) : null, content);
}

function clockSection(clock, live) {
  const time = h('strong', { data: { field: 'sandbox-time' } });
  const offset = h('span', { class: 'muted' });
  // The sandbox time runs on with the wall clock: shown from the offset, re-read after each advance.
  let offsetMs = clock.clockOffsetSeconds * 1000;
  const tick = () => {
    const now = new Date(Date.now() + offsetMs);
    fill(time, now.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
    time.setAttribute('title', now.toISOString());
    fill(offset, offsetMs ? ` (${describeOffset(offsetMs / 1000)} ahead of real time)` : ' (real time)');
  };
  tick();
  live.every(1000, tick);
  const seconds = h('input', {
    name: 'seconds',
    type: 'number',
    min: '1',
    max: '2592000',
    step: '1',
    value: '60',
    required: true,
    inputmode: 'numeric',
  });
  const hint = 'Up to 30 days (2,592,000 s). Delayed outcomes that fall due happen now.';
  return section(
    'Sandbox clock',
    null,
    h('p', null, 'Sandbox time: ', time, offset),
    actionForm('Advance clock', field('Seconds', seconds, hint), async () => {
      const moved = await api('/sandbox/clock/advance', { method: 'POST', body: { seconds: Number(seconds.value) } });
      offsetMs = moved.clockOffsetSeconds * 1000;
      tick();
      const n = moved.appliedTransitions;
      return `The clock moved ${describeOffset(Number(seconds.value))} ahead; ${n} delayed outcome${n === 1 ? ' was' : 's were'} applied.`;
    }),
  );
}

function describeOffset(totalSeconds) {
  const parts = [];
  let rest = Math.round(totalSeconds);
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ]) {
    if (rest >= size) parts.push(`${Math.floor(rest / size)} ${unit}`);
    rest %= size;
  }
  return parts.join(' ') || '0 s';
}

function fundSection(accounts) {
  const fundable = accounts.filter((a) => a.status === 'ACTIVE' || a.status === undefined);
  const account = h('select', { name: 'account', required: true }, options(fundable.map((a) => [a.id, accountLabel(a)])));
  const amount = h('input', { name: 'amount', inputmode: 'decimal', placeholder: '100.00', required: true, autocomplete: 'off' });
  const fields = [field('Account', account), field('Amount', amount, 'In the account currency, e.g. 100.00')];
  return section(
    'Fund an internal account',
    fundable.length ? null : 'No internal accounts yet: create a customer first.',
    actionForm('Fund', fields, async () => {
      const chosen = fundable.find((a) => a.id === account.value);
      if (!chosen) throw new Error('Choose an account to fund.');
      const { code, decimals } = chosen.balance.currency;
      const minor = toMinorUnits(amount.value, decimals);
      if (!Number.isSafeInteger(minor) || minor <= 0)
        throw new Error(`Enter a positive amount in ${code}, with at most ${decimals} decimals.`);
      const funded = await api(`/sandbox/internal-accounts/${encodeURIComponent(chosen.id)}/fund`, {
        method: 'POST',
        body: { amount: minor },
      });
      chosen.balance = funded.balance;
      fill(
        account,
        options(
          fundable.map((a) => [a.id, accountLabel(a)]),
          chosen.id,
        ),
      );
      return `Funded. ${chosen.owner}'s balance is now ${money(funded.balance)}.`;
    }),
  );
}

function receiveSection(config, accounts) {
  const receivers = [...new Map(accounts.filter((a) => a.customerId && a.umaAddress).map((a) => [a.customerId, a])).values()];
  const sender = h('input', {
    name: 'sender',
    value: `$alice@${config.sandboxUmaDomain ?? 'sandbox.uma.test'}`,
    required: true,
    spellcheck: 'false',
  });
  const receiver = h(
    'select',
    { name: 'receiver', required: true },
    options(receivers.map((a) => [a.customerId, `${a.owner} (${a.umaAddress})`])),
  );
  const currency = h('input', {
    name: 'currency',
    value: 'USD',
    required: true,
    pattern: '[A-Z]{3,4}',
    maxlength: '4',
    autocomplete: 'off',
  });
  const amount = h('input', { name: 'amount', inputmode: 'decimal', value: '25.00', required: true, autocomplete: 'off' });
  const fields = [
    field('Sender UMA address', sender),
    field('Receiving customer', receiver),
    field('Currency', currency),
    field('Amount', amount, 'In the currency, e.g. 25.00'),
  ];
  return section(
    'Simulate an incoming UMA payment',
    receivers.length ? null : 'No customer with a UMA address yet.',
    actionForm('Simulate payment', fields, async () => {
      const code = currency.value.trim().toUpperCase();
      const decimals = currencyDecimals(accounts, code);
      const minor = toMinorUnits(amount.value, decimals);
      if (!Number.isSafeInteger(minor) || minor <= 0)
        throw new Error(`Enter a positive amount in ${code}, with at most ${decimals} decimals.`);
      const t = await api('/sandbox/uma/receive', {
        method: 'POST',
        body: {
          senderUmaAddress: sender.value.trim(),
          customerId: receiver.value,
          receivingCurrencyCode: code,
          receivingCurrencyAmount: minor,
        },
      });
      return h(
        'span',
        null,
        'Payment received: ',
        h('a', { href: `#/transactions/${encodeURIComponent(t.id)}` }, `transaction ${t.status}`),
        '.',
      );
    }),
  );
}

/** Decimals of a currency as the platform's accounts show it (2 when no account holds it). */
function currencyDecimals(accounts, code) {
  return accounts.find((a) => a.balance.currency.code === code)?.balance.currency.decimals ?? 2;
}

function quoteSection() {
  const quote = h('input', { name: 'quote', required: true, spellcheck: 'false', autocomplete: 'off', placeholder: 'Quote:…' });
  const hint = 'A PENDING quote created with "source": {"sourceType": "REALTIME_FUNDING"}';
  return section(
    'Pay a real-time-funding quote',
    'Pays the quote’s payment instructions as the customer’s bank would.',
    actionForm('Pay quote', field('Quote ID', quote, hint), async () => {
      const q = await api(`/quotes/${encodeURIComponent(quote.value.trim())}`);
      await api('/sandbox/send', { method: 'POST', body: { quoteId: q.id, currencyCode: q.sendingCurrency.code } });
      const amount = money({ amount: q.totalSendingAmount, currency: q.sendingCurrency });
      return q.transactionId
        ? h(
            'span',
            null,
            `Paid ${amount}: `,
            h('a', { href: `#/transactions/${encodeURIComponent(q.transactionId)}` }, 'see the transaction'),
            '.',
          )
        : `Paid ${amount}.`;
    }),
  );
}

/**
 * A modal asking before an action that cannot be undone. `ask(...text)` opens it; its confirm button runs
 * `action` through `act` (reported by `say`) and closes it.
 */
function confirmDialog(title, confirmLabel, say, action) {
  const titleId = `confirm-${title.replace(/\W+/g, '-').toLowerCase()}`;
  const text = h('p');
  const confirm = h('button', { type: 'button', class: 'danger' }, confirmLabel);
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => dialog.close() }, 'Cancel');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId },
    h('h2', { id: titleId }, title),
    text,
    h('div', { class: 'actions' }, cancel, confirm),
  );
  confirm.addEventListener('click', () =>
    act(confirm, say, async () => {
      // Closed either way: an error shows in the section, not hidden behind the modal.
      try {
        return await action();
      } finally {
        dialog.close();
      }
    }),
  );
  const ask = (...content) => {
    fill(text, content);
    dialog.showModal();
  };
  return { dialog, ask };
}

/** "customers: 3, transactions: 12": the non-zero counts of a snapshot or a fixture load. */
const countsText = (counts) =>
  Object.entries(counts ?? {})
    .filter(([, n]) => n)
    .map(([kind, n]) => `${kind}: ${n}`)
    .join(', ') || 'nothing';

/** What the Snapshots section says once the page is drawn again after a restore. */
let restoredNotice;

function snapshotsSection() {
  const { nodes, say } = outcome();
  const list = h('div', { data: { field: 'snapshots' } });
  let chosen;
  const restore = confirmDialog('Restore the snapshot?', 'Restore', say, async () => {
    await api(`/sandbox/snapshots/${encodeURIComponent(chosen.id)}/restore`, { method: 'POST' });
    // Every section (accounts, balances, the clock) shows the restored data: the router draws the view again.
    restoredNotice = `Restored “${chosen.name}”: the sandbox data is as it was when it was taken.`;
    restore.dialog.close();
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  });
  const remove = (s) => async () => {
    await api(`/sandbox/snapshots/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
    await load();
    return `Deleted “${s.name}”.`;
  };
  const buttons = (s) =>
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          'aria-label': `Restore “${s.name}”…`,
          onclick: () => {
            chosen = s;
            restore.ask(
              `The sandbox data returns to “${s.name}”, taken `,
              when(s.createdAt),
              ': what was created or changed since is undone. API tokens and the webhook endpoint stay.',
            );
          },
        },
        'Restore…',
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', 'aria-label': `Delete “${s.name}”`, onclick: (e) => act(e.currentTarget, say, remove(s)) },
        'Delete',
      ),
    );
  const load = async () => {
    const page = await api('/sandbox/snapshots', { query: { limit: 100 } });
    fill(
      list,
      table(
        [
          { label: 'Name', cell: (s) => s.name },
          { label: 'Taken', cell: (s) => when(s.createdAt) },
          { label: 'Contents', cell: (s) => h('small', null, countsText(s.counts)) },
          { label: 'Actions', cell: buttons },
        ],
        page.data,
        'No snapshots yet.',
      ),
    );
  };
  load().catch((error) => fill(list, errorBox(error)));
  if (restoredNotice) say(restoredNotice);
  restoredNotice = undefined;
  const name = h('input', { name: 'name', required: true, maxlength: '100', autocomplete: 'off', placeholder: 'after-setup' });
  return section(
    'Snapshots',
    "Save this platform's sandbox data under a name, and return to it later.",
    actionForm('Take snapshot', field('Name', name), async () => {
      const taken = await api('/sandbox/snapshots', { method: 'POST', body: { name: name.value.trim() } });
      await load();
      return `Took “${taken.name}”: ${countsText(taken.counts)}.`;
    }),
    list,
    nodes,
    restore.dialog,
  );
}

/** An id of a fixture's refs, linked to its console page when it has one (by its type: `Customer:…`). */
const PAGES = { Customer: 'customers', Transaction: 'transactions', Agent: 'agents' };
const idLink = (id) => {
  const page = PAGES[String(id).split(':')[0]];
  return page ? h('a', { href: `#/${page}/${encodeURIComponent(id)}` }, id) : h('code', null, id);
};

function fixturesSection() {
  const doc = h('textarea', {
    name: 'document',
    rows: 8,
    required: true,
    spellcheck: 'false',
    placeholder: '{"customers": [{"ref": "alice", …}]}',
  });
  const file = h('input', { name: 'file', type: 'file', accept: 'application/json,.json' });
  file.addEventListener('change', async () => {
    if (file.files?.[0]) doc.value = prettyJson(await file.files[0].text());
  });
  const result = h('div', { data: { field: 'fixture-result' } });
  const fields = [
    field(
      'Document (JSON)',
      doc,
      'Sections customers, agents, payments; a later entry names an earlier one as {"$ref": "alice.accounts.USD"}.',
    ),
    field('Or upload a file', file),
  ];
  const load = async () => {
    fill(result);
    let body;
    try {
      body = JSON.parse(doc.value);
    } catch (error) {
      throw new Error(`The document is not JSON: ${error.message}`);
    }
    const loaded = await api('/sandbox/fixtures', { method: 'POST', body }).catch((error) => {
      // A refused document: each failing JSON path and why.
      const issues = error.details?.fields ?? [];
      if (issues.length)
        fill(
          result,
          h(
            'ul',
            null,
            issues.map((i) => h('li', null, h('code', null, i.field), ': ', i.message)),
          ),
        );
      throw error;
    });
    const agents = Object.keys(loaded.agents ?? {}).length ? loaded.agents : null;
    fill(
      result,
      table(
        [
          { label: 'Ref', cell: ([ref]) => h('code', null, ref) },
          { label: 'ID', cell: ([, id]) => idLink(id) },
        ],
        Object.entries(loaded.refs ?? {}),
        'The document names no refs.',
      ),
      agents && h('details', null, h('summary', null, 'Agent credentials'), h('pre', { class: 'code' }, JSON.stringify(agents, null, 2))),
    );
    return `Loaded: ${countsText(loaded.counts)}.`;
  };
  return section(
    'Load fixtures',
    'Create customers, accounts, agents and payments from one document (POST /sandbox/fixtures). A document that fails creates nothing.',
    actionForm('Load fixtures', fields, load),
    result,
  );
}

function resetSection() {
  const { nodes, say } = outcome();
  const reset = confirmDialog('Reset the sandbox?', 'Reset', say, async () => {
    await api('/sandbox/reset', { method: 'POST' });
    return 'The sandbox is empty again; its clock is back to real time.';
  });
  const text =
    "This deletes all of this platform's customers, accounts, transactions, webhooks and e-mails, and sets the clock back. API tokens, the configuration and the snapshots stay.";
  const open = h('button', { type: 'button', class: 'danger', onclick: () => reset.ask(text) }, 'Reset sandbox…');
  return section('Reset', "Start over with this platform's sandbox data.", open, reset.dialog, nodes);
}

/** Text whose `code` spans (Markdown backticks, as the document's summaries write them) show as code. */
const rich = (text) => text.split('`').map((part, i) => (i % 2 ? h('code', null, part) : part));

/** One group of the catalogue: folded, except the first. */
const group = (title, open, ...content) =>
  h('details', { class: 'magic-group', open, data: { group: title } }, h('summary', null, title), content);

/** The catalogue of GET /sandbox/magic-values: what each sandbox trigger does, as the service itself declares it. */
function magicValuesSection(doc) {
  const { accountSuffixes: a, beneficiaryVerification: b, umaReceivers: u, wallet: w } = doc;
  const suffixRows = [...a.values, { suffix: 'other', ...a.otherwise }];
  const sender = u.infoRequestingSender;
  return section(
    'Magic values',
    'What the sandbox does with special values (from GET /sandbox/magic-values). Production honours none of them.',
    h('div', { data: { field: 'magic-values' } }, [
      group(
        'Account suffixes',
        true,
        h('p', { class: 'muted' }, rich(`Selected by ${a.selectedBy}.`)),
        table(
          [
            { label: 'Suffix', cell: (r) => h('code', null, r.suffix) },
            { label: 'Meaning', cell: (r) => r.meaning },
            { label: 'Quote (executed)', cell: (r) => rich(r.quote.summary) },
            { label: 'Transfer out', cell: (r) => rich(r.transferOut.summary) },
            { label: 'Transfer in', cell: (r) => rich(r.transferIn.summary) },
          ],
          suffixRows,
          'No suffixes.',
        ),
      ),
      group(
        'Beneficiary verification',
        false,
        h('p', { class: 'muted' }, rich(`Selected by ${b.selectedBy}.`)),
        table(
          [
            { label: 'Suffix', cell: (v) => h('code', null, v.suffix) },
            { label: 'Result', cell: (v) => (v.error ? `refused: ${v.error.status} ${v.error.code}` : v.status) },
          ],
          [...b.values, { suffix: 'other', status: b.otherwise }],
          'No suffixes.',
        ),
      ),
      group(
        'UMA receivers',
        false,
        table(
          [
            { label: 'Address', cell: (r) => h('code', null, r.address) },
            { label: 'Currency', cell: (r) => r.currency },
            { label: 'Quote to it (executed)', cell: (r) => rich(r.outcome.summary) },
          ],
          u.receivers,
          'No receivers.',
        ),
        h(
          'p',
          null,
          `A sender whose local part is `,
          h('code', null, sender.localPart),
          ` (any domain, ${sender.operation}) asks for `,
          sender.requestedFields.map((f, i) => [i ? ', ' : '', h('code', null, f.name), f.mandatory ? ' (mandatory)' : ' (optional)']),
          '.',
        ),
      ),
      group(
        'KYC and KYB',
        false,
        table(
          [
            { label: 'What', cell: (v) => `${v.what} (${v.operation})` },
            { label: 'Selected by', cell: (v) => (v.field ? ['last 3 characters of ', h('code', null, v.field)] : '–') },
            {
              label: 'Outcome',
              cell: (v) => [
                ...v.values.map((x) => [h('code', null, x.suffix), ` ${x.status}, `]),
                v.values.length ? 'other ' : '',
                v.otherwise,
              ],
            },
          ],
          doc.verifications,
          'No verifications.',
        ),
      ),
      group(
        'Embedded wallets',
        false,
        table(
          [
            { label: 'Where', cell: (v) => [v.operation, ': ', h('code', null, v.field)] },
            { label: 'Value', cell: (v) => h('code', null, v.value) },
            { label: 'A wrong value', cell: (v) => `401 UNAUTHORIZED, "${v.refusal}"` },
          ],
          [w.otp, w.passkey, w.walletSignature],
          'No values.',
        ),
        h(
          'p',
          null,
          'OAUTH: any signature segment passes; the claims are checked (issuers: ',
          w.oauth.issuers.map((iss, i) => [i ? ', ' : '', h('code', null, iss)]),
          `; iat within ${describeOffset(w.oauth.maxAgeMs / 1000)} + ${describeOffset(w.oauth.clockSkewMs / 1000)} skew). `,
          w.passkey.rpId ? ['Passkeys: relying party ', h('code', null, w.passkey.rpId), '.'] : null,
        ),
      ),
      group(
        'Timings',
        false,
        table(
          [
            { label: 'Timing', cell: (t) => h('code', null, t.name) },
            { label: 'Duration', cell: (t) => describeOffset(t.ms / 1000) },
            { label: 'What', cell: (t) => t.description },
          ],
          doc.timings,
          'No timings.',
        ),
      ),
    ]),
  );
}
