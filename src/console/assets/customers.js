// Customers: the list with its search, and a customer's page (accounts and balances, external accounts,
// KYC with its hosted KYC link, embedded-wallet credentials and sessions; keys are never listed by the API, so never shown).
import { api } from './api.js';
import { actionForm, badge, errorBox, facts, field, fill, h, money, shortId, table, when } from './ui.js';

const PAGE = 20;

export function customerName(c) {
  return c.fullName ?? c.businessInfo?.legalName ?? c.platformCustomerId;
}

export async function customerList(main) {
  const search = h('input', { type: 'search', name: 'search', placeholder: 'Name or platform customer ID', autocomplete: 'off' });
  const count = h('p', { class: 'muted', role: 'status' });
  const results = h('div');
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load more');
  fill(
    main,
    h('h1', null, 'Customers'),
    h('form', { class: 'filters', role: 'search', onsubmit: (e) => e.preventDefault() }, field('Search', search)),
    count,
    results,
    more,
  );
  let rows = [];
  let cursor;
  let asked = 0;
  const load = async (append) => {
    const ask = ++asked;
    // The API searches terms of 3 characters or more (its index holds 3-character pieces); shorter ones list all.
    const term = search.value.trim();
    const searching = [...term].length >= 3;
    const page = await api('/customers', {
      query: { search: searching ? term : undefined, limit: PAGE, cursor: append ? cursor : undefined },
    });
    if (ask !== asked) return; // a newer search is under way
    rows = append ? rows.concat(page.data) : page.data;
    cursor = page.nextCursor;
    more.hidden = !page.hasMore;
    // Matches are not counted: a search shows how many are loaded, and whether more follow.
    const n = page.totalCount ?? rows.length;
    const shown = `${n}${page.totalCount === undefined && page.hasMore ? '+' : ''} customer${n === 1 && !page.hasMore ? '' : 's'}`;
    fill(count, term && !searching ? `${shown} (type at least 3 characters to search)` : shown);
    fill(
      results,
      table(
        [
          { label: 'Customer', cell: (c) => h('a', { href: `#/customers/${encodeURIComponent(c.id)}` }, customerName(c)) },
          { label: 'Platform customer ID', cell: (c) => c.platformCustomerId },
          { label: 'Type', cell: (c) => c.customerType },
          { label: 'KYC', cell: (c) => badge(c.kycStatus ?? c.kybStatus) },
          { label: 'UMA address', cell: (c) => c.umaAddress },
          { label: 'Created', cell: (c) => when(c.createdAt) },
        ],
        rows,
        searching ? 'No customer matches this search.' : 'No customers yet. Create one with POST /customers.',
      ),
    );
  };
  const reload = () => load(false).catch((error) => fill(results, errorBox(error)));
  let timer;
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(reload, 250);
  });
  more.addEventListener('click', () => load(true).catch((error) => fill(results, errorBox(error))));
  await load(false);
  search.focus();
}

export async function customerPage(main, id) {
  const customer = await api(`/customers/${encodeURIComponent(id)}`);
  const [internal, external] = await Promise.all([
    api('/customers/internal-accounts', { query: { customerId: customer.id, limit: 100 } }),
    api('/customers/external-accounts', { query: { customerId: customer.id, limit: 100 } }),
  ]);
  const wallets = internal.data.filter((a) => a.type === 'EMBEDDED_WALLET');
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/customers' }, 'Customers'), ' / ', customerName(customer)),
    h('h1', null, customerName(customer)),
    facts([
      ['ID', h('code', null, customer.id)],
      ['Platform customer ID', customer.platformCustomerId],
      ['Type', customer.customerType],
      ['E-mail', customer.email],
      ['UMA address', customer.umaAddress],
      ['Region', customer.region],
      ['Currencies', customer.currencies?.join(', ')],
      ['Created', when(customer.createdAt)],
      ['Deleted', customer.isDeleted ? 'yes' : undefined],
    ]),
    h('p', null, h('a', { href: `#/transactions?customerId=${encodeURIComponent(customer.id)}` }, 'Transactions of this customer')),
    h('h2', null, 'KYC'),
    facts([
      [customer.customerType === 'BUSINESS' ? 'KYB status' : 'KYC status', badge(customer.kycStatus ?? customer.kybStatus)],
      ['Beneficial owners', customer.beneficialOwners?.length],
    ]),
    customer.isDeleted ? null : kycLinkSection(customer),
    h('h2', null, 'Internal accounts'),
    table(
      [
        { label: 'Account', cell: (a) => h('code', { title: a.id }, shortId(a.id)) },
        { label: 'Type', cell: (a) => a.type },
        { label: 'Balance', cell: (a) => h('span', { class: 'amount', data: { field: 'balance' } }, money(a.balance)) },
        { label: 'Status', cell: (a) => badge(a.status) },
      ],
      internal.data,
      'This customer has no internal accounts.',
    ),
    h('h2', null, 'External accounts'),
    table(
      [
        { label: 'Account', cell: (a) => h('code', { title: a.id }, shortId(a.id)) },
        { label: 'Kind', cell: (a) => a.accountInfo?.accountType },
        { label: 'Currency', cell: (a) => a.currency },
        { label: 'Identifier', cell: (a) => identifier(a.accountInfo) },
        { label: 'Beneficiary check', cell: (a) => (a.beneficiaryVerificationStatus ? badge(a.beneficiaryVerificationStatus) : '–') },
        { label: 'Status', cell: (a) => badge(a.status) },
      ],
      external.data,
      'No external accounts. Add one with POST /customers/external-accounts.',
    ),
    h('h2', null, 'Embedded wallet'),
    wallets.length ? wallets.map((w) => walletSection(w)) : h('p', { class: 'empty' }, 'This customer has no embedded wallet.'),
  );
}

/** A hosted KYC link for the customer: the page where they complete or fail verification (it works once). */
function kycLinkSection(customer) {
  const redirect = h('input', { name: 'redirectUri', placeholder: 'https://app.example.com/kyc-done', spellcheck: 'false' });
  const made = h('div');
  return h(
    'section',
    { class: 'card' },
    h('h3', null, 'Hosted KYC link'),
    h(
      'p',
      { class: 'muted' },
      'A single-use page, valid 24 hours, where the customer completes or fails verification; the outcome sets the status above.',
    ),
    actionForm(
      'Create KYC link',
      [field('Redirect URI (optional)', redirect, 'Where the browser goes afterwards: https, or http on localhost')],
      async () => {
        const body = redirect.value.trim() ? { redirectUri: redirect.value.trim() } : {};
        const link = await api(`/customers/${encodeURIComponent(customer.id)}/kyc-link`, { method: 'POST', body });
        fill(
          made,
          facts([
            [
              'Link',
              h(
                'a',
                { href: link.kycUrl, target: '_blank', rel: 'noopener noreferrer', data: { field: 'kyc-url' } },
                'Open the hosted page',
              ),
            ],
            ['Expires', when(link.expiresAt)],
          ]),
        );
        return 'KYC link created: send it to the customer.';
      },
    ),
    made,
  );
}

/** The account number, IBAN, address… an external account is known by (the first identifier field it has). */
function identifier(info) {
  if (!info) return '–';
  for (const key of ['accountNumber', 'iban', 'clabeNumber', 'pixKey', 'vpa', 'phoneNumber', 'address', 'invoice', 'swiftCode']) {
    if (typeof info[key] === 'string') return h('code', null, info[key]);
  }
  return '–';
}

/** What a credential and a session both show (never a key: the API lists none). */
const AUTH_COLUMNS = [
  { label: 'Type', cell: (a) => a.type },
  { label: 'Nickname', cell: (a) => a.nickname },
  { label: 'ID', cell: (a) => h('code', { title: a.id }, shortId(a.id)) },
];

function walletSection(account) {
  const body = h('div', null, h('p', { class: 'muted' }, 'Loading credentials and sessions…'));
  Promise.all([
    api('/auth/credentials', { query: { accountId: account.id } }),
    api('/auth/sessions', { query: { accountId: account.id } }),
  ]).then(
    ([credentials, sessions]) =>
      fill(
        body,
        h('h3', null, 'Credentials'),
        table([...AUTH_COLUMNS, { label: 'Added', cell: (c) => when(c.createdAt) }], credentials.data, 'No credentials yet.'),
        h('h3', null, 'Sessions'),
        table(
          [...AUTH_COLUMNS, { label: 'Created', cell: (s) => when(s.createdAt) }, { label: 'Expires', cell: (s) => when(s.expiresAt) }],
          sessions.data,
          'No active sessions.',
        ),
      ),
    (error) => fill(body, errorBox(error)),
  );
  return h('section', { class: 'card' }, h('p', null, 'Wallet ', h('code', null, account.id), ' · ', money(account.balance)), body);
}
