// The console's shell: sign in (form or URL fragment), the navigation, and the hash router. Each view is
// `render(main, param, live, query)`; `live.every(ms, fn)` polls until the view is left.
import { credentials, forget, mode, signIn, whenUnauthorized } from './api.js';
import { errorBox, fill, h } from './ui.js';
import { customerList, customerPage } from './customers.js';
import { transactionList, transactionPage } from './transactions.js';
import { deliveryList, deliveryPage } from './webhooks.js';
import { emailList, sandboxPage } from './sandbox.js';
import { faultList, faultPage } from './faults.js';
import { referencePage } from './reference.js';
import { agentList, agentPage } from './agents.js';
import { invitationList, invitationPage } from './invitations.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');

const sandboxOnly = mode === 'sandbox';
const SECTIONS = [
  ['customers', 'Customers'],
  ['transactions', 'Transactions'],
  ['agents', 'Agents'],
  ['invitations', 'Invitations'],
  ['webhooks', 'Webhooks'],
  ...(sandboxOnly
    ? [
        ['emails', 'E-mails'],
        ['sandbox', 'Sandbox'],
        ['faults', 'Faults'],
      ]
    : []),
  ['reference', 'API reference'],
];

const VIEWS = {
  customers: (p) => (p ? customerPage : customerList),
  transactions: (p) => (p ? transactionPage : transactionList),
  agents: (p) => (p ? agentPage : agentList),
  invitations: (p) => (p ? invitationPage : invitationList),
  webhooks: (p) => (p ? deliveryPage : deliveryList),
  emails: () => (sandboxOnly ? emailList : null),
  sandbox: () => (sandboxOnly ? sandboxPage : null),
  faults: (p) => (sandboxOnly ? (p ? faultPage : faultList) : null),
  reference: () => referencePage,
};

let leave = () => {};

function route() {
  const [path, search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [section, ...rest] = path.split('/');
  return {
    section: section || 'customers',
    param: rest.length ? decodeURIComponent(rest.join('/')) : undefined,
    query: new URLSearchParams(search),
  };
}

async function show() {
  leave();
  if (!credentials()) return showSignIn();
  const { section, param, query } = route();
  const view = VIEWS[section]?.(param);
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const timers = [];
  let left = false;
  leave = () => {
    left = true;
    timers.forEach(clearInterval);
  };
  const live = {
    every(ms, fn) {
      timers.push(setInterval(() => document.visibilityState === 'visible' && !left && fn(), ms));
    },
    get left() {
      return left;
    },
  };
  fill(main);
  if (!view) {
    fill(
      main,
      h('h1', null, 'Not found'),
      h('p', null, 'There is no such page. ', h('a', { href: '#/customers' }, 'Go to the customers.')),
    );
    return;
  }
  try {
    await view(main, param, live, query);
  } catch (error) {
    if (left) return;
    // A view that failed before its heading still says where the reader is.
    if (!main.querySelector('h1')) main.prepend(h('h1', null, SECTIONS.find(([s]) => s === section)?.[1] ?? 'Console'));
    main.append(errorBox(error));
  }
}

function showShell() {
  const saved = credentials();
  nav.hidden = !saved;
  who.hidden = !saved;
  if (!saved) return;
  fill(
    nav,
    SECTIONS.map(([section, label]) => h('a', { href: `#/${section}`, data: { section } }, label)),
  );
  fill(
    who,
    h('span', { class: 'muted', title: 'The signed-in API token' }, saved.clientId.slice(0, 8), '…'),
    h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'),
  );
}

function signOut(message) {
  forget();
  showShell();
  history.replaceState(null, '', location.pathname);
  showSignIn(typeof message === 'string' ? message : undefined);
}

function showSignIn(message) {
  leave();
  showShell();
  const id = h('input', { id: 'client-id', name: 'clientId', autocomplete: 'username', required: true, spellcheck: 'false' });
  const secret = h('input', {
    id: 'client-secret',
    name: 'clientSecret',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const problem = h('div');
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'card sign-in',
      onsubmit: async (event) => {
        event.preventDefault();
        button.disabled = true;
        fill(problem);
        try {
          await signIn(id.value, secret.value);
          enter();
        } catch (error) {
          fill(problem, errorBox(error));
          secret.select();
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h1', null, 'Sign in'),
    h('p', { class: 'muted' }, 'Use an API token of your platform: its client ID and client secret. The secret stays in this tab only.'),
    h('div', { class: 'field' }, h('label', { for: 'client-id' }, 'Client ID'), id),
    h('div', { class: 'field' }, h('label', { for: 'client-secret' }, 'Client secret'), secret),
    problem,
    button,
    h('p', { class: 'muted small' }, 'Running it locally? ', h('code', null, 'npm start'), ' prints a link that signs in directly.'),
  );
  fill(main, form);
  if (message) fill(problem, errorBox(new Error(message)));
  id.focus();
}

function enter() {
  showShell();
  if (!location.hash.startsWith('#/')) history.replaceState(null, '', '#/customers');
  show();
}

/** `#clientId=…&clientSecret=…` (the link `npm start` prints): read once, then gone from the address bar. */
async function signInFromFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const clientId = fragment.get('clientId');
  const clientSecret = fragment.get('clientSecret');
  if (!clientId || !clientSecret) return false;
  history.replaceState(null, '', `${location.pathname}#/customers`);
  try {
    await signIn(clientId, clientSecret);
    enter();
  } catch (error) {
    showSignIn(error.message);
  }
  return true;
}

whenUnauthorized(() => signOut('This token no longer works (it may have been deleted). Sign in again.'));
window.addEventListener('hashchange', () => (credentials() ? show() : null));
fill(document.getElementById('mode'), mode);
if (!(await signInFromFragment())) {
  if (credentials()) enter();
  else showSignIn();
}
