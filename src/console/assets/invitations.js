// Invitations: the platform's own (newest first) with a form to invite from one of its customers, a lookup of
// any invitation by its code, and an invitation's page: claim it for one of the platform's customers, or cancel it.
import { api } from './api.js';
import { actionForm, badge, errorBox, facts, field, fill, h, money, table, toMinorUnits, when } from './ui.js';

const PAGE = 20;
const link = (i) => h('a', { href: `#/invitations/${encodeURIComponent(i.code)}` }, h('code', null, i.code));

export async function invitationList(main) {
  const results = h('div');
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load more');
  let rows = [];
  let cursor;
  const load = async (append) => {
    const page = await api('/invitations', { query: { limit: PAGE, cursor: append ? cursor : undefined } });
    rows = append ? rows.concat(page.data) : page.data;
    cursor = page.nextCursor;
    more.hidden = !page.hasMore;
    fill(
      results,
      table(
        [
          { label: 'Code', cell: link },
          { label: 'Inviter', cell: (i) => i.inviterUma },
          { label: 'Status', cell: (i) => badge(i.status) },
          { label: 'Invitee', cell: (i) => i.inviteeUma },
          { label: 'Amount', cell: (i) => (i.amountToSend ? money(i.amountToSend) : undefined) },
          { label: 'Created', cell: (i) => when(i.createdAt) },
          { label: 'Expires', cell: (i) => (i.expiresAt ? when(i.expiresAt) : 'never') },
        ],
        rows,
        'No invitations yet. Invite from a customer below, or with POST /invitations.',
      ),
    );
  };
  more.addEventListener('click', () => load(true).catch((error) => fill(results, errorBox(error))));

  const inviter = h('input', { name: 'inviterUma', required: true, placeholder: '$alice@your.domain', spellcheck: 'false' });
  const firstName = h('input', { name: 'firstName', autocomplete: 'off' });
  const amount = h('input', { name: 'amountToSend', inputmode: 'decimal', placeholder: '12.50' });
  const hours = h('input', { name: 'expiresInHours', type: 'number', min: '1', step: '1', placeholder: 'never' });
  const create = actionForm(
    'Create invitation',
    [
      field('Inviter UMA address', inviter),
      field('First name', firstName),
      field('Amount to send', amount, "In the inviter's first currency, shown to the invitee"),
      field('Expires in (hours)', hours),
    ],
    async () => {
      const body = { inviterUma: inviter.value.trim() };
      if (firstName.value.trim()) body.firstName = firstName.value.trim();
      if (amount.value.trim()) {
        // Two decimals is the common case; the API names the field when the amount does not fit.
        const minor = toMinorUnits(amount.value, 2);
        if (Number.isNaN(minor)) throw new Error('The amount is not a number with at most 2 decimals.');
        body.amountToSend = minor;
      }
      if (hours.value) body.expiresAt = new Date(Date.now() + Number(hours.value) * 3_600_000).toISOString();
      const made = await api('/invitations', { method: 'POST', body });
      await load(false);
      return h('span', null, 'Created ', link(made), ': share ', h('code', null, made.url));
    },
  );

  const code = h('input', { name: 'code', required: true, spellcheck: 'false', placeholder: 'Invitation code' });
  const lookup = h(
    'form',
    {
      class: 'filters',
      onsubmit: (e) => {
        e.preventDefault();
        location.hash = `#/invitations/${encodeURIComponent(code.value.trim())}`;
      },
    },
    field('Any invitation by its code', code),
    h('button', { type: 'submit', class: 'secondary' }, 'Open'),
  );

  fill(
    main,
    h('h1', null, 'Invitations'),
    lookup,
    h('h2', null, "This platform's invitations"),
    results,
    more,
    h('section', { class: 'card' }, h('h2', null, 'Invite'), create),
  );
  await load(false);
}

export async function invitationPage(main, code) {
  const invitation = await api(`/invitations/${encodeURIComponent(code)}`);
  const show = (i) =>
    facts([
      ['Code', h('code', null, i.code)],
      ['Status', badge(i.status)],
      ['URL', h('code', null, i.url)],
      ['Inviter', i.inviterUma],
      ['First name', i.firstName],
      ['Amount to send', i.amountToSend ? money(i.amountToSend) : undefined],
      ['Invitee', i.inviteeUma],
      ['Created', when(i.createdAt)],
      ['Expires', i.expiresAt ? when(i.expiresAt) : 'never'],
      ['Claimed', i.claimedAt ? when(i.claimedAt) : undefined],
    ]);
  const details = h('div', null, show(invitation));
  const invitee = h('input', { name: 'inviteeUma', required: true, placeholder: '$bob@your.domain', spellcheck: 'false' });
  const refresh = (i) => {
    fill(details, show(i));
    return `The invitation is ${i.status}.`;
  };
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/invitations' }, 'Invitations'), ' / ', code),
    h('h1', null, `Invitation ${code}`),
    details,
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Claim'),
      h('p', { class: 'muted' }, "For one of this platform's customers; the inviting platform gets INVITATION.CLAIMED."),
      actionForm('Claim invitation', [field('Invitee UMA address', invitee)], async () =>
        refresh(
          await api(`/invitations/${encodeURIComponent(code)}/claim`, { method: 'POST', body: { inviteeUma: invitee.value.trim() } }),
        ),
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', null, 'Cancel'),
      h('p', { class: 'muted' }, 'Only the platform that created it, while it is pending.'),
      actionForm('Cancel invitation', [], async () =>
        refresh(await api(`/invitations/${encodeURIComponent(code)}/cancel`, { method: 'POST' })),
      ),
    ),
  );
}
