// The web console in a real browser (Debian's Chromium through playwright-core): `npm run test:browser`.
// One `npm start` on throwaway state serves every test; each test creates its data through the public API
// (fetch + HTTP Basic), then checks the pages. Every page must stay on the service's origin and log no
// console or page errors. Screenshots of each view land in test/browser/screenshots/.
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as nodeTest } from 'node:test';
import {
  browser,
  call,
  createCustomer,
  createUsdExternalAccount,
  itemLink,
  openPage,
  PHONE,
  screenshot,
  service,
  signIn,
  startReceiver,
  tag,
  until,
  useSuite,
} from './lib/harness.mjs';

const opened = [];

useSuite();

/** A watched page on the service's origin; closed at the end of the suite at the latest. */
async function open(options) {
  const o = await openPage(browser, service.origin, options);
  opened.push(o);
  return o;
}

/** Where a failed test leaves a screenshot of each of its pages. */
const failures = join(tmpdir(), 'browser-suite-failures');

/** node:test's `test`, plus a screenshot of every page the test opened when it fails. */
function test(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  // Every wait inside is bounded; this bounds the test as a whole too.
  return nodeTest(name, { timeout: 120_000, ...options }, async (t) => {
    const first = opened.length;
    try {
      await fn(t);
    } catch (error) {
      mkdirSync(failures, { recursive: true });
      const slug = name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
      const pages = opened.slice(first).flatMap((o) => o.context.pages());
      await Promise.allSettled(pages.map((p, i) => p.screenshot({ path: join(failures, `${slug}-${i}.png`) })));
      error.message += `\n(screenshots of its pages: ${failures}/${slug}-*.png)`;
      throw error;
    } finally {
      // Pages left open keep polling the service: each test closes its own.
      await Promise.allSettled(opened.splice(first).map((o) => o.close()));
    }
  });
}

const nav = (page) => page.getByRole('navigation', { name: 'Main' });
const heading = (page) => page.locator('h1');

/** Follows a link of the main navigation and waits for the view's hash route and its single <h1>. */
async function go(page, linkName, hash) {
  await nav(page).getByRole('link', { name: linkName, exact: true }).click();
  await page.waitForURL((url) => url.hash === hash);
  // The previous view's <h1> may still be there for a moment: wait for the new view to settle on one.
  await until(async () => (await heading(page).count()) === 1, `${hash} to show one <h1>`);
}

/** Waits for `waiting`, failing early with the page's own error message if one appears meanwhile. */
async function withoutAlert(page, waiting) {
  const alert = page.getByRole('alert').filter({ hasText: /\S/ }).first();
  const shown = alert.waitFor().then(
    async () => {
      throw new Error(`the page shows an error: ${await alert.innerText()}`);
    },
    () => {},
  );
  await Promise.race([waiting, shown]);
}

const hashOf = (page) => new URL(page.url()).hash;

test('sign in with the form', async () => {
  const o = await open();
  const { page } = o;
  await page.goto('/');
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'sign-in');
  await signIn(page);
  await nav(page).waitFor();
  for (const name of ['Customers', 'Transactions', 'Webhooks', 'E-mails', 'Sandbox', 'API reference']) {
    await nav(page).getByRole('link', { name, exact: true }).waitFor();
  }
  // The secret is kept for the tab only, never in the address.
  assert.ok(!page.url().includes(service.clientSecret));
  o.checkClean();
});

test('sign in with the keyboard only', async () => {
  const o = await open();
  const { page } = o;
  await page.goto('/');
  await page.getByLabel('Client ID').waitFor();
  // Tab from the top of the page to the Client ID field, then type, Tab, type, Enter.
  let focused = false;
  for (let i = 0; i < 20 && !focused; i++) {
    await page.keyboard.press('Tab');
    focused = await page.getByLabel('Client ID').evaluate((el) => el === document.activeElement);
  }
  assert.ok(focused, 'Tab reaches the Client ID field');
  await page.keyboard.type(service.clientId);
  await page.keyboard.press('Tab');
  assert.ok(
    await page.getByLabel('Client secret').evaluate((el) => el === document.activeElement),
    'Tab goes from Client ID to Client secret',
  );
  await page.keyboard.type(service.clientSecret);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  o.checkClean();
});

test('sign in with the URL fragment, which then no longer holds the secret', async () => {
  const o = await open();
  const { page } = o;
  const fragment = `#clientId=${encodeURIComponent(service.clientId)}&clientSecret=${encodeURIComponent(service.clientSecret)}`;
  // The link `npm start` prints is exactly that: this origin, the fragment.
  const printed = await until(() => /Console \(signed in\):\s+(\S+)/.exec(service.log())?.[1], 'npm start to print the console link');
  assert.equal(printed, `${service.origin}/${fragment}`);
  await page.goto(printed);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await until(() => !page.url().includes(service.clientSecret), 'the secret to leave the address');
  assert.ok(!decodeURIComponent(hashOf(page)).includes(service.clientSecret));
  o.checkClean();
});

test('a wrong secret shows an error on the page, without a browser sign-in dialog', { timeout: 30_000 }, async () => {
  const o = await open();
  const { page } = o;
  await page.goto('/');
  await page.getByLabel('Client ID').fill(service.clientId);
  await page.getByLabel('Client secret').fill('not-the-secret');
  const started = Date.now();
  await page.getByRole('button', { name: 'Sign in' }).click();
  // A fetch that lets the browser answer the 401's Basic challenge itself would hang here on a dialog.
  const alert = page.getByRole('alert').filter({ hasText: /\S/ });
  await alert.waitFor({ timeout: 10_000 });
  assert.ok(Date.now() - started < 10_000);
  assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'not signed in');
  await page.getByLabel('Client secret').waitFor();
  // The refused request itself is the one console line allowed.
  o.checkClean({ allowConsole: [/status of 401/] });
});

test('customers: a new customer is listed, search narrows, its page shows funded internal accounts', async () => {
  const t = tag();
  const ada = await createCustomer(call, { fullName: `Ada Browser ${t}` });
  const bob = await createCustomer(call, { fullName: `Bob Browser ${t}` });
  await call('POST', `/sandbox/internal-accounts/${ada.usd.id}/fund`, { amount: 123_456 });

  const o = await open();
  const { page } = o;
  await signIn(page);
  await go(page, 'Customers', '#/customers');
  const table = page.getByRole('table').first();
  await table.getByText(`Ada Browser ${t}`).waitFor();
  await table.getByText(`Bob Browser ${t}`).waitFor();
  await screenshot(page, 'customers');

  await page.getByLabel('Search').fill(`Ada Browser ${t}`);
  await page.getByLabel('Search').press('Enter');
  await withoutAlert(page, table.getByText(`Bob Browser ${t}`).waitFor({ state: 'detached' }));
  await table.getByText(`Ada Browser ${t}`).waitFor();

  await itemLink(table, 'customers', ada.customer.id).click();
  await page.waitForURL((url) => decodeURIComponent(url.hash) === `#/customers/${ada.customer.id}`);
  for (const name of ['Internal accounts', 'External accounts', 'KYC', 'Embedded wallet']) {
    await page.getByRole('heading', { level: 2, name }).waitFor();
  }
  assert.equal(await heading(page).count(), 1);
  // 1,234.56 USD (amount and currency code, in whichever order and grouping).
  const funded = page.getByRole('row').filter({ hasText: /1,?234\.56/ });
  await funded.first().waitFor();
  assert.match(await funded.first().innerText(), /USD/);
  await screenshot(page, 'customer');

  // The list at phone width.
  const phone = await open({ viewport: PHONE });
  await signIn(phone.page);
  await go(phone.page, 'Customers', '#/customers');
  await phone.page.getByText(`Ada Browser ${t}`).first().waitFor();
  await screenshot(phone.page, 'customers-phone');

  o.checkClean();
  phone.checkClean();
});

test('transactions: completed and pending ones are listed; a 005 transfer turns FAILED on screen after a clock advance', async () => {
  const t = tag();
  const { customer, usd } = await createCustomer(call, { fullName: `Tess Transfer ${t}` });
  await call('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100_000 });
  const plain = await createUsdExternalAccount(call, customer, '000');
  const slow = await createUsdExternalAccount(call, customer, '005');
  const completed = await call('POST', '/transfer-out', {
    source: { accountId: usd.id },
    destination: { accountId: plain.id },
    amount: 1_000,
  });
  assert.equal(completed.status, 'COMPLETED');

  // Both pages are ready before the 005 transfer exists, so the test stays well inside its 30 s of real time.
  const o = await open();
  const { page } = o;
  await signIn(page);
  // The Sandbox view in a second tab of the same browser (signed in by fragment: sessionStorage is per tab).
  const tab = await o.newTab();
  await tab.goto(`/#clientId=${encodeURIComponent(service.clientId)}&clientSecret=${encodeURIComponent(service.clientSecret)}`);
  await tab.getByRole('button', { name: 'Sign out' }).waitFor();
  await go(tab, 'Sandbox', '#/sandbox');
  const clock = tab.locator('[data-field="sandbox-time"]');
  await clock.filter({ hasText: /\d/ }).waitFor();
  await screenshot(tab, 'sandbox');

  const created = Date.now();
  const pending = await call('POST', '/transfer-out', {
    source: { accountId: usd.id },
    destination: { accountId: slow.id },
    amount: 12_550,
  });
  // In flight for 30 s of real time (PROCESSING in the service's words).
  assert.match(pending.status, /^(PENDING|PROCESSING)$/);

  await go(page, 'Transactions', '#/transactions');
  const table = page.getByRole('table').first();
  for (const [id, status] of [
    [completed.id, 'COMPLETED'],
    [pending.id, pending.status],
  ]) {
    await itemLink(table, 'transactions', id).waitFor();
    const row = table.getByRole('row').filter({ has: itemLink(page, 'transactions', id) });
    assert.match(await row.innerText(), new RegExp(status));
  }
  await screenshot(page, 'transactions');

  await itemLink(table, 'transactions', pending.id).click();
  await page.waitForURL((url) => decodeURIComponent(url.hash) === `#/transactions/${pending.id}`);
  const status = page.locator('[data-field="status"]');
  await withoutAlert(page, status.filter({ hasText: pending.status }).waitFor());
  await page.getByRole('heading', { level: 2, name: 'Status history' }).waitFor();
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations++;
  });

  const before = await clock.innerText();
  await tab.getByLabel('Seconds').fill('60');
  await tab.getByRole('button', { name: 'Advance clock' }).click();
  await tab.getByRole('status').filter({ hasText: /\S/ }).first().waitFor();
  await until(async () => (await clock.innerText()) !== before, 'the sandbox time on screen to move');

  // The transaction page, untouched, polls its way to FAILED: before the 30 s the transfer would take in real time.
  await status.filter({ hasText: 'FAILED' }).waitFor({ timeout: 20_000 });
  assert.ok(Date.now() - created < 30_000, 'FAILED through the clock advance, not by waiting the 30 s out');
  assert.equal(navigations, 0, 'the transaction page was not reloaded');
  assert.match(await page.getByRole('list').last().innerText(), /FAILED/);
  await screenshot(page, 'transaction');
  o.checkClean();
});

test('webhooks: a delivery to a local receiver shows a verified signature; Resend adds an attempt', async () => {
  const receiver = await startReceiver();
  const previous = (await call('GET', '/config')).webhookEndpoint ?? null;
  try {
    await call('PATCH', '/config', { webhookEndpoint: receiver.url });
    const { usd } = await createCustomer(call, { fullName: `Will Webhook ${tag()}` });
    await call('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount: 5_000 });
    // The receiver checks the signature itself too, with the platform's key.
    const key = createPublicKey((await call('GET', '/config')).webhookPublicKey);
    const event = await until(
      () =>
        receiver.received
          .map((r) => ({ ...r, json: JSON.parse(r.body) }))
          .find((r) => r.json.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && JSON.stringify(r.json.data).includes(usd.id)),
      'the balance event at the receiver',
      30_000,
    );
    assert.ok(verify('sha256', Buffer.from(event.body), key, Buffer.from(event.headers['x-service-signature'], 'base64')));
    const delivery = await until(
      async () => (await call('GET', '/webhooks/deliveries?limit=100')).data.find((d) => d.eventId === event.json.id && d.attempts > 0),
      'its delivery in GET /webhooks/deliveries',
    );

    const o = await open();
    const { page } = o;
    await signIn(page);
    await go(page, 'Webhooks', '#/webhooks');
    const table = page.getByRole('table').first();
    await itemLink(table, 'webhooks', delivery.id).waitFor();
    await screenshot(page, 'webhooks');

    await itemLink(table, 'webhooks', delivery.id).click();
    await page.waitForURL((url) => decodeURIComponent(url.hash) === `#/webhooks/${delivery.id}`);
    await page
      .locator('[data-field="signature"]')
      .filter({ hasText: /^\s*Verified\s*$/ })
      .waitFor();
    for (const name of ['Payload', "Receiver's answer"]) await page.getByRole('heading', { level: 2, name }).waitFor();
    const attempts = page.locator('[data-field="attempts"]');
    await attempts.filter({ hasText: /\d/ }).waitFor();
    const before = Number((await attempts.innerText()).match(/\d+/)[0]);
    await screenshot(page, 'webhook-delivery');

    const receivedBefore = receiver.received.length;
    await page.getByRole('button', { name: 'Resend' }).click();
    await until(async () => Number((await attempts.innerText()).match(/\d+/)?.[0]) > before, 'the attempts on screen to grow', 20_000);
    await until(() => receiver.received.length > receivedBefore, 'the resent delivery at the receiver');
    await page
      .locator('[data-field="signature"]')
      .filter({ hasText: /^\s*Verified\s*$/ })
      .waitFor();
    o.checkClean();
  } finally {
    await call('PATCH', '/config', { webhookEndpoint: previous });
    await receiver.close();
  }
});

test('e-mails: an OTP e-mail of an embedded-wallet credential shows its code', async () => {
  const t = tag();
  const email = `otp-${t}@example.com`;
  const { customer, accounts } = await createCustomer(call, { fullName: `Olga Otp ${t}`, email });
  const wallet = accounts.find((a) => a.type === 'EMBEDDED_WALLET');
  assert.ok(wallet, 'the sandbox platform gives customers an embedded wallet');
  const credential = (await call('GET', `/auth/credentials?accountId=${encodeURIComponent(wallet.id)}`)).data.find(
    (c) => c.type === 'EMAIL_OTP',
  );
  await call('POST', `/auth/credentials/${credential.id}/challenge`);
  const sent = (await call('GET', `/sandbox/emails?to=${encodeURIComponent(email)}&limit=1`)).data[0];
  const code = sent.text.match(/verification code is (\w+)/)?.[1];
  assert.ok(code, `a code in the e-mail: ${sent.text}`);

  const o = await open();
  const { page } = o;
  await signIn(page);
  await go(page, 'E-mails', '#/emails');
  const row = page.getByRole('row').filter({ hasText: email });
  await row.first().waitFor();
  const text = await row.first().innerText();
  assert.ok(text.includes(sent.subject), `the subject "${sent.subject}" in: ${text}`);
  assert.ok(text.includes(code), `the code ${code} in: ${text}`);
  await screenshot(page, 'emails');

  // The customer's page lists the wallet's credential (its type and nickname, never a key).
  await page.goto(`/#/customers/${encodeURIComponent(customer.id)}`);
  const credentials = page.getByRole('heading', { level: 3, name: 'Credentials' }).locator('xpath=following-sibling::*[1]');
  await credentials.getByRole('cell', { name: 'EMAIL_OTP', exact: true }).waitFor();
  assert.ok((await credentials.innerText()).includes(credential.nickname));
  o.checkClean();
});

test('API reference: operations with their curl lines', async () => {
  const o = await open();
  const { page } = o;
  await signIn(page);
  await go(page, 'API reference', '#/reference');
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  const curls = page.locator('pre').filter({ hasText: /^\s*curl/ });
  await curls.first().waitFor();
  assert.ok((await curls.count()) > 20, 'a curl line for each of many operations');
  await page
    .getByRole('heading', { name: /POST\s+\/customers\b/ })
    .first()
    .waitFor();
  await page
    .getByRole('heading', { name: /GET\s+\/transactions\b/ })
    .first()
    .waitFor();
  await screenshot(page, 'reference');
  o.checkClean();
});

test('sandbox: fund an account, simulate an incoming UMA payment, pay a real-time-funding quote, reset after confirming', async () => {
  const t = tag();
  const { customer, usd } = await createCustomer(call, { fullName: `Sandy Actions ${t}` });
  const bank = await createUsdExternalAccount(call, customer, '001');
  const quote = await call('POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USD' },
    destination: { destinationType: 'ACCOUNT', accountId: bank.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 2_000,
  });
  const o = await open();
  const { page } = o;
  await signIn(page);
  await go(page, 'Sandbox', '#/sandbox');
  const section = (name) => page.locator('section').filter({ has: page.getByRole('heading', { level: 2, name }) });
  const said = (name, text) => section(name).getByRole('status').filter({ hasText: text }).waitFor();
  // The magic-values catalogue is rendered from GET /sandbox/magic-values: the transfer-failure suffix is listed.
  const catalogue = page.locator('[data-field="magic-values"]');
  await catalogue.getByRole('cell', { name: '005', exact: true }).waitFor();

  // Fund: a malformed amount is refused on the page, in words, and sends nothing; then 12.34 USD in main
  // units becomes 1234 in the smallest unit (and the refusal goes away).
  const fund = section('Fund an internal account');
  await fund.getByLabel('Account').selectOption(usd.id);
  await fund.getByLabel('Amount').fill('1.234');
  await fund.getByRole('button', { name: 'Fund' }).click();
  await fund.getByRole('alert').filter({ hasText: 'at most 2 decimals' }).waitFor();
  await fund.getByLabel('Amount').fill('12.34');
  await fund.getByRole('button', { name: 'Fund' }).click();
  await withoutAlert(page, said('Fund an internal account', '12.34 USD'));
  const balance = await call(
    'GET',
    `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&currency=USD&type=INTERNAL_FIAT`,
  );
  assert.equal(balance.data[0].balance.amount, 1_234);

  // An incoming UMA payment to this customer: a transaction of the customer's appears.
  const receive = section('Simulate an incoming UMA payment');
  await receive.getByLabel('Receiving customer').selectOption(customer.id);
  await receive.getByLabel('Amount').fill('5.00');
  await receive.getByRole('button', { name: 'Simulate payment' }).click();
  await withoutAlert(page, said('Simulate an incoming UMA payment', 'Payment received'));
  const incoming = await call('GET', `/transactions?customerId=${encodeURIComponent(customer.id)}&type=INCOMING`);
  assert.equal(incoming.data.length, 1);
  assert.equal(incoming.data[0].receivedAmount.amount, 500);

  // The real-time-funding quote, paid: its transaction leaves PENDING.
  const pay = section('Pay a real-time-funding quote');
  await pay.getByLabel('Quote ID').fill(quote.id);
  await pay.getByRole('button', { name: 'Pay quote' }).click();
  await withoutAlert(page, said('Pay a real-time-funding quote', 'Paid 20.00 USD'));
  assert.notEqual((await call('GET', `/transactions/${encodeURIComponent(quote.transactionId)}`)).status, 'PENDING');

  // Reset asks first: Cancel keeps everything, Reset empties the sandbox.
  await page.getByRole('button', { name: 'Reset sandbox…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reset the sandbox?' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await call('GET', `/customers/${encodeURIComponent(customer.id)}`)).id, customer.id);
  await page.getByRole('button', { name: 'Reset sandbox…' }).click();
  await dialog.getByRole('button', { name: 'Reset' }).click();
  await withoutAlert(page, said('Reset', 'empty again'));
  await call('GET', `/customers/${encodeURIComponent(customer.id)}`, undefined, 404);
  o.checkClean();
});

test('sandbox: send to a UMA address: the look-up shows currencies and asks for payer data, its quote is executed', async () => {
  const t = tag();
  const { customer, usd } = await createCustomer(call, { fullName: `Sam Sender ${t}` });
  await call('POST', `/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 100_000 });
  const config = await call('GET', '/config');
  const receiver = `$success.mxn@${config.sandboxUmaDomain}`;
  const o = await open();
  const { page } = o;
  await signIn(page);
  await go(page, 'Sandbox', '#/sandbox');
  const send = page.locator('section').filter({ has: page.getByRole('heading', { level: 2, name: 'Send to a UMA address' }) });
  const said = (text) => send.getByRole('status').filter({ hasText: text }).waitFor();

  // The look-up: the receiver's currency with its estimated rate and limits, and the payer data it needs.
  await send.getByLabel('From').selectOption(usd.id);
  await send.getByLabel('Receiver').fill(receiver);
  await send.getByRole('button', { name: 'Look up' }).click();
  await withoutAlert(page, said(`Looked up ${receiver}`));
  await send.getByRole('cell', { name: 'MXN (Mexican Peso)' }).waitFor();
  await send.getByText('The receiver asks about the payer: TAX_ID.').waitFor();

  // The quote names the look-up and gives the tax id; then it is executed.
  await send.getByLabel('Amount to deliver').fill('100.00');
  await send.getByLabel('Tax id').fill('SISA900115HDF');
  await send.getByRole('button', { name: 'Create quote' }).click();
  await withoutAlert(page, said('Quoted:'));
  await screenshot(page, 'sandbox-send');
  await send.getByRole('button', { name: 'Execute quote' }).click();
  await withoutAlert(page, said('Executed.'));
  const link = send.getByRole('link', { name: /^Transaction / });
  await link.waitFor();
  const quotes = await call('GET', `/quotes?sendingAccountId=${encodeURIComponent(usd.id)}`);
  assert.equal(quotes.data.length, 1);
  assert.deepEqual(quotes.data[0].destination, { destinationType: 'UMA_ADDRESS', umaAddress: receiver, currency: 'MXN' });
  assert.equal(quotes.data[0].totalReceivingAmount, 10_000);
  assert.equal(await link.getAttribute('href'), `#/transactions/${encodeURIComponent(quotes.data[0].transactionId)}`);
  assert.notEqual((await call('GET', `/transactions/${encodeURIComponent(quotes.data[0].transactionId)}`)).status, 'PENDING');
  o.checkClean();
});

test('sign out returns to the sign-in form and clears sessionStorage', async () => {
  const o = await open();
  const { page } = o;
  await signIn(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Client secret').waitFor();
  assert.equal(await nav(page).count(), 0, 'no main navigation once signed out');
  assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'sessionStorage is empty');
  // Reloading stays signed out.
  await page.reload();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  o.checkClean();
});

test('faults: create a rule from the operations of /openapi.json, see it fire, delete it', async () => {
  const o = await open();
  const { page } = o;
  await signIn(page);
  await go(page, 'Faults', '#/faults');
  // An operation no other test calls: the rule cannot change what they see (a revocation is never faultable).
  const form = page.locator('section').filter({ has: page.getByRole('heading', { level: 2, name: 'New rule' }) });
  await form.getByLabel('Operation').selectOption({ label: 'GET /tokens/{tokenId}' });
  await form.getByLabel('Effect').selectOption('ERROR');
  await form.getByLabel('Status').fill('503');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await withoutAlert(page, form.getByRole('status').filter({ hasText: 'Created' }).waitFor());
  const [rule] = (await call('GET', '/sandbox/faults')).data;
  assert.deepEqual(rule.match, { method: 'GET', path: '/tokens/{tokenId}' });
  assert.deepEqual(rule.effect, { type: 'ERROR', status: 503 });

  // It fires on the API; the rule's page shows the firing.
  await call('GET', '/tokens/Token:nobody', undefined, 503);
  await itemLink(page, 'faults', rule.id).click();
  await page.waitForURL((url) => url.hash === `#/faults/${encodeURIComponent(rule.id)}`);
  await page.locator('[data-field="fired"]').filter({ hasText: '1 of 1' }).waitFor();
  await page.getByRole('cell', { name: 'GET /2025-10-13/tokens/Token:nobody' }).waitFor();

  await page.getByRole('button', { name: 'Delete rule' }).click();
  await page.waitForURL((url) => url.hash === '#/faults');
  await page.getByText('No fault rules.').waitFor();
  assert.deepEqual((await call('GET', '/sandbox/faults')).data, []);
  o.checkClean();
});

test('webhooks: Send event from the console (DUPLICATE) reaches a local receiver twice with one event id, and both deliveries are listed', async () => {
  const receiver = await startReceiver();
  const previous = (await call('GET', '/config')).webhookEndpoint ?? null;
  try {
    await call('PATCH', '/config', { webhookEndpoint: receiver.url });
    const o = await open();
    const { page } = o;
    await signIn(page);
    await go(page, 'Webhooks', '#/webhooks');
    const form = page.locator('section', { has: page.getByRole('heading', { level: 2, name: 'Send event' }) });
    await form.getByLabel('Type').selectOption('TEST');
    await form.getByLabel('Data (JSON)').fill('{}');
    await form.getByLabel('Mode').selectOption('DUPLICATE');
    await withoutAlert(page, form.getByRole('button', { name: 'Send event' }).click());
    const status = form.getByRole('status');
    await status.filter({ hasText: /2 deliveries queued/ }).waitFor();
    const ids = await status.getByRole('link').allInnerTexts();
    assert.equal(ids.length, 2);

    const { eventId } = await call('GET', `/webhooks/deliveries/${encodeURIComponent(ids[0])}`);
    await until(
      () => receiver.received.filter((r) => JSON.parse(r.body).id === eventId).length === 2,
      'the same event twice at the receiver',
      30_000,
    );
    const deliveries = (await call('GET', `/webhooks/deliveries?eventId=${encodeURIComponent(eventId)}`)).data;
    assert.deepEqual(deliveries.map((d) => d.id).sort(), [...ids].sort());
    assert.deepEqual(
      deliveries.map((d) => d.mode),
      ['DUPLICATE', 'DUPLICATE'],
    );
    const table = page.getByRole('table').first();
    for (const id of ids) await itemLink(table, 'webhooks', id).waitFor();
    await screenshot(page, 'webhooks-send-event');
    o.checkClean();
  } finally {
    await call('PATCH', '/config', { webhookEndpoint: previous });
    await receiver.close();
  }
});
