// Paying a UMA address as the reference's flow does: look the receiver up (the currencies it takes with their
// estimated rates and limits, the payer data it asks), quote with that lookupId, then execute. Each step is one
// public API call with the signed-in token.
import { api } from './api.js';
import { act, facts, field, fill, h, money, options, outcome, table, toMinorUnits, when } from './ui.js';

/** What a person reads for a payer field the receiver asks for. */
const FIELD_LABELS = {
  FULL_NAME: 'Full name',
  BIRTH_DATE: 'Birth date (YYYY-MM-DD)',
  NATIONALITY: 'Nationality (country code)',
  POSTAL_ADDRESS: 'Postal address',
  TAX_ID: 'Tax id',
  PHONE_NUMBER: 'Phone number',
  EMAIL: 'E-mail',
  PURPOSE_OF_PAYMENT: 'Purpose of payment',
};

/**
 * The "Send to a UMA address" section. `accounts`: every internal account with its owner's name (customers'
 * accounts can send: a look-up names its sender); `umaDomain`: the sandbox receivers' domain.
 */
export function sendSection(accounts, umaDomain) {
  const senders = accounts.filter((a) => a.customerId && a.type !== 'EMBEDDED_WALLET' && a.status === 'ACTIVE');
  const account = h('select', { name: 'source', required: true }, options(senders.map((a) => [a.id, `${a.owner} · ${money(a.balance)}`])));
  const receiver = h('input', { name: 'receiver', value: `$success.eur@${umaDomain}`, required: true, spellcheck: 'false' });
  const found = h('div', { data: { field: 'lookup' } });
  const lookUpButton = h('button', { type: 'submit' }, 'Look up');
  const { nodes, say } = outcome();
  const onsubmit = (event) => {
    event.preventDefault();
    act(lookUpButton, say, async () => {
      const from = senders.find((a) => a.id === account.value);
      if (!from) throw new Error('Choose the account to pay from.');
      const lookup = await api(`/receiver/uma/${encodeURIComponent(receiver.value.trim())}`, { query: { customerId: from.customerId } });
      fill(found, quoteForm(from, lookup, say));
      return `Looked up ${lookup.receiverUmaAddress}: the look-up holds until ${new Date(lookup.expiresAt).toLocaleTimeString()}.`;
    });
  };
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'Send to a UMA address'),
    h(
      'p',
      { class: 'muted' },
      'Looks the receiver up first (the currencies it takes, their estimated rates and limits, the payer data it asks), then quotes with that look-up and executes the quote.',
    ),
    senders.length
      ? h(
          'form',
          { class: 'inline', onsubmit },
          field('From', account),
          field('Receiver', receiver, 'A sandbox receiver, e.g. $success.mxn@' + umaDomain),
          lookUpButton,
        )
      : h('p', { class: 'empty' }, 'No customer account to pay from yet: create a customer first.'),
    nodes,
    found,
  );
}

/** What the look-up found, and the quote it lets the person create. */
function quoteForm(from, lookup, say) {
  const currencies = lookup.supportedCurrencies;
  const currency = h('select', { name: 'currency', required: true }, options(currencies.map((c) => [c.currency.code, c.currency.code])));
  const amount = h('input', { name: 'amount', inputmode: 'decimal', required: true, autocomplete: 'off', placeholder: '25.00' });
  const payer = lookup.requiredPayerDataFields.map((f) => ({
    name: f.name,
    input: h('input', { name: `payer-${f.name}`, required: f.mandatory, autocomplete: 'off' }),
  }));
  const quoted = h('div', { data: { field: 'quote' } });
  const button = h('button', { type: 'submit' }, 'Create quote');
  const onsubmit = (event) => {
    event.preventDefault();
    act(button, say, async () => {
      const chosen = currencies.find((c) => c.currency.code === currency.value);
      const minor = toMinorUnits(amount.value, chosen.currency.decimals);
      if (!Number.isSafeInteger(minor) || minor < chosen.min || minor > chosen.max)
        throw new Error(
          `Enter an amount between ${money({ amount: chosen.min, currency: chosen.currency })} and ${money({ amount: chosen.max, currency: chosen.currency })}.`,
        );
      const info = Object.fromEntries(payer.filter((p) => p.input.value.trim()).map((p) => [p.name, p.input.value.trim()]));
      const quote = await api('/quotes', {
        method: 'POST',
        body: {
          lookupId: lookup.lookupId,
          source: { sourceType: 'ACCOUNT', accountId: from.id },
          destination: { destinationType: 'UMA_ADDRESS', umaAddress: lookup.receiverUmaAddress, currency: chosen.currency.code },
          lockedCurrencySide: 'RECEIVING',
          lockedCurrencyAmount: minor,
          ...(Object.keys(info).length ? { senderCustomerInfo: info } : {}),
        },
      });
      fill(quoted, executeQuote(quote, say));
      return `Quoted: ${money({ amount: quote.totalSendingAmount, currency: quote.sendingCurrency })} for ${money({ amount: quote.totalReceivingAmount, currency: quote.receivingCurrency })}.`;
    });
  };
  return [
    table(
      [
        { label: 'Currency', cell: (c) => `${c.currency.code} (${c.currency.name})` },
        { label: 'Estimated rate', cell: (c) => String(c.estimatedExchangeRate) },
        { label: 'Least', cell: (c) => money({ amount: c.min, currency: c.currency }) },
        { label: 'Most', cell: (c) => money({ amount: c.max, currency: c.currency }) },
      ],
      currencies,
      'The receiver takes no currency this platform can send.',
    ),
    payer.length
      ? h('p', null, 'The receiver asks about the payer: ', lookup.requiredPayerDataFields.map((f) => f.name).join(', '), '.')
      : h('p', { class: 'muted' }, 'The receiver asks nothing more about the payer.'),
    currencies.length
      ? h(
          'form',
          { class: 'inline', onsubmit },
          field('Currency', currency),
          field('Amount to deliver', amount, 'In the receiving currency'),
          payer.map((p) => field(FIELD_LABELS[p.name] ?? p.name, p.input)),
          button,
        )
      : null,
    quoted,
  ];
}

/** A quote's terms and the button that executes it. */
function executeQuote(quote, say) {
  const button = h('button', { type: 'button' }, 'Execute quote');
  const result = h('p');
  button.addEventListener('click', () =>
    act(button, say, async () => {
      const executed = await api(`/quotes/${encodeURIComponent(quote.id)}/execute`, { method: 'POST' });
      button.hidden = true;
      fill(result, h('a', { href: `#/transactions/${encodeURIComponent(executed.transactionId)}` }, `Transaction ${executed.status}`));
      return 'Executed.';
    }),
  );
  return [
    facts([
      ['Sends', money({ amount: quote.totalSendingAmount, currency: quote.sendingCurrency })],
      ['Delivers', money({ amount: quote.totalReceivingAmount, currency: quote.receivingCurrency })],
      ['Rate', String(quote.exchangeRate)],
      ['Fees', money({ amount: quote.feesIncluded, currency: quote.sendingCurrency })],
      ['Expires', when(quote.expiresAt)],
    ]),
    button,
    result,
  ];
}
