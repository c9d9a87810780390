// The sandbox identity provider's hosted KYC page (a customer opens a KYC link's kycUrl): the link's secret is
// the URL fragment (never sent to the server with the page); the page reads the link, and the customer completes
// or fails verification, after which the browser goes back to the link's redirectUri, which the service keeps.
import { fill, h } from './ui.js';

const apiBase = document.querySelector('meta[name="api-base"]')?.getAttribute('content') ?? '';
const main = document.getElementById('main');
// Base64url: nothing to decode.
const secret = location.hash.slice(1);

/** A call of the hosted page's API: its JSON answer, or an Error with the service's message. */
async function post(path, body) {
  let response;
  try {
    response = await fetch(`${apiBase}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw Object.assign(new Error('The service cannot be reached. Try again in a moment.'), { status: 0 });
  }
  const data = await response.json().catch(() => null);
  if (!response.ok)
    throw Object.assign(new Error(data?.message ?? `The service answered HTTP ${response.status}.`), { status: response.status });
  return data;
}

function say(...children) {
  fill(main, h('h1', null, 'Verify your identity'), ...children);
}

const ENDED = {
  USED: 'This link has already been used: verification is done. You can close this window.',
  EXPIRED: 'This link has expired. Ask for a new one.',
};

async function show() {
  if (!secret) return say(h('p', { class: 'error', role: 'alert' }, 'This page needs the whole link you were given.'));
  let link;
  try {
    link = await post('/sandbox/kyc-links/open', { secret });
  } catch (error) {
    return say(h('p', { class: 'error', role: 'alert' }, error.status === 404 ? 'This link is not valid.' : error.message));
  }
  if (link.state !== 'OPEN') return say(h('p', { role: 'status' }, ENDED[link.state]));
  const outcome = h('p', { class: 'outcome', role: 'status' });
  const alert = h('p', { class: 'error', role: 'alert', hidden: true });
  const buttons = [
    h('button', { type: 'button', onclick: () => finish('APPROVED') }, 'Complete verification'),
    h('button', { type: 'button', class: 'secondary', onclick: () => finish('REJECTED') }, 'Fail verification'),
  ];
  async function finish(result) {
    buttons.forEach((b) => (b.disabled = true));
    alert.hidden = true;
    try {
      const done = await post('/sandbox/kyc-links/complete', { secret, outcome: result });
      const verdict = done.outcome === 'APPROVED' ? 'Verification complete.' : 'Verification failed.';
      if (!done.redirectUri) return fill(outcome, `${verdict} You can close this window.`);
      fill(outcome, `${verdict} Taking you back to ${new URL(done.redirectUri).host}…`);
      location.assign(done.redirectUri);
    } catch (error) {
      fill(alert, error.message);
      alert.hidden = false;
      buttons.forEach((b) => (b.disabled = false));
    }
  }
  say(
    h('section', { class: 'card' }, [
      h(
        'p',
        null,
        `${link.platformName} asks `,
        h('strong', null, link.name),
        ' to verify ',
        link.customerType === 'BUSINESS' ? 'the business.' : 'their identity.',
      ),
      h('p', { class: 'muted' }, 'Sandbox: no documents are collected here. Choose how the verification ends.'),
      h('div', { class: 'actions' }, buttons),
      outcome,
      alert,
    ]),
  );
}

show();
