// The hosted KYC page and the console's invitations in a real browser, on their own `npm start`: a KYC link made
// on a customer's page opens the sandbox identity provider's page, where completing verification approves the
// customer and returns the browser to the link's redirectUri (a local app); failing rejects; a used link says so.
// Invitations: created from a customer, listed, claimed for another customer, cancelled.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import {
  browser,
  call,
  createCustomer,
  openPage,
  screenshot,
  service,
  signIn,
  startReceiver,
  tag,
  until,
  useSuite,
} from './lib/harness.mjs';

useSuite();

/** A platform's app on 127.0.0.1 where the hosted page sends the browser back; `visits` holds each path it served. */
async function startApp() {
  const visits = [];
  const server = createServer((req, res) => {
    visits.push(req.url);
    res
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end('<!doctype html><link rel="icon" href="data:,"><title>Back in the app</title><h1>Welcome back</h1>');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, visits, close: () => new Promise((r) => server.close(r)) };
}

test(
  'KYC link: made on a customer’s page; the hosted page completes verification and returns to the app; a used link says so',
  { timeout: 180_000 },
  async () => {
    const t = tag();
    const app = await startApp();
    const receiver = await startReceiver();
    await call('PATCH', '/config', { webhookEndpoint: receiver.url });
    const { customer } = await createCustomer(call, { fullName: `Kyc Person ${t}` });
    const opened = await openPage(browser, service.origin);
    const { page, context } = opened;
    try {
      await signIn(page);
      await page.goto(`/#/customers/${encodeURIComponent(customer.id)}`);
      await page.getByRole('heading', { level: 1, name: `Kyc Person ${t}` }).waitFor();
      const redirectUri = `${app.origin}/kyc-done?customer=${t}`;
      await page.getByLabel('Redirect URI (optional)').fill(redirectUri);
      await page.getByRole('button', { name: 'Create KYC link' }).click();
      await page.getByRole('status').filter({ hasText: 'KYC link created' }).waitFor();
      const kycUrl = await page.locator('a[data-field="kyc-url"]').getAttribute('href');
      // The secret, with its home's mark when the platform lives in another data database than the first.
      assert.match(kycUrl, new RegExp(`^${service.origin}/kyc#[A-Za-z0-9_-]{43}(\\.[0-9]+)?$`));

      // The customer opens it (a new tab, as the link says) and completes verification.
      const [hosted] = await Promise.all([context.waitForEvent('page'), page.locator('a[data-field="kyc-url"]').click()]);
      await hosted.getByRole('heading', { level: 1, name: 'Verify your identity' }).waitFor();
      await hosted.getByText(`Kyc Person ${t}`).waitFor();
      assert.match(await hosted.locator('main').innerText(), /Sandbox platform|asks/);
      await screenshot(hosted, 'kyc-page');
      await hosted.getByRole('button', { name: 'Complete verification' }).click();
      // Back in the app, at exactly the redirectUri the platform gave.
      await hosted.waitForURL(redirectUri);
      await hosted.getByRole('heading', { name: 'Welcome back' }).waitFor();
      assert.deepEqual(app.visits, [`/kyc-done?customer=${t}`]);
      // The one request to another origin is that return.
      assert.deepEqual(opened.problems.foreign, [`GET ${redirectUri}`]);
      opened.problems.foreign.length = 0;

      // The customer is approved, as a verification approves, and the platform's endpoint is told.
      const approved = await call('GET', `/customers/${encodeURIComponent(customer.id)}`);
      assert.equal(approved.kycStatus, 'APPROVED');
      const event = await until(
        () => receiver.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'CUSTOMER.KYC_APPROVED' && e.data.id === customer.id),
        'the CUSTOMER.KYC_APPROVED webhook',
      );
      assert.deepEqual(event.data, approved);
      await page.reload();
      await page.locator('.facts').getByText('APPROVED', { exact: true }).first().waitFor();

      // Single use: opening it again says so, and offers nothing to click.
      const again = await context.newPage();
      await again.goto(kycUrl);
      await again.getByRole('status').filter({ hasText: 'already been used' }).waitFor();
      assert.equal(await again.getByRole('button', { name: 'Complete verification' }).count(), 0);

      // A second link without a redirect: failing it rejects the customer, and the page says to close it.
      await page.getByLabel('Redirect URI (optional)').fill('');
      await page.getByRole('button', { name: 'Create KYC link' }).click();
      await until(async () => (await page.locator('a[data-field="kyc-url"]').getAttribute('href')) !== kycUrl, 'a second link');
      const second = await page.locator('a[data-field="kyc-url"]').getAttribute('href');
      const failing = await context.newPage();
      await failing.goto(second);
      await failing.getByRole('button', { name: 'Fail verification' }).click();
      await failing.getByRole('status').filter({ hasText: 'Verification failed. You can close this window.' }).waitFor();
      assert.equal((await call('GET', `/customers/${encodeURIComponent(customer.id)}`)).kycStatus, 'REJECTED');

      // A link that is not one: refused on the page.
      const bogus = await context.newPage();
      await bogus.goto(`${service.origin}/kyc#not-a-real-secret`);
      await bogus.getByRole('alert').filter({ hasText: 'This link is not valid.' }).waitFor();
      // The refused lookup is the page's own 404, which the browser logs.
      opened.checkClean({ allowConsole: [/status of 404/] });
    } finally {
      await call('PATCH', '/config', { webhookEndpoint: null });
      await opened.close();
      await app.close();
      await receiver.close();
    }
  },
);

test('invitations: created from a customer, listed, claimed for another customer, and cancelled', { timeout: 120_000 }, async () => {
  const t = tag();
  const config = await call('GET', '/config');
  const inviter = await call('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `inviter-${t}`,
    umaAddress: `$inviter-${t}@${config.umaDomain}`,
  });
  const invitee = await call('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `invitee-${t}`,
    umaAddress: `$invitee-${t}@${config.umaDomain}`,
  });
  const opened = await openPage(browser, service.origin);
  const { page } = opened;
  try {
    await signIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invitations', exact: true }).click();
    await page.waitForURL((url) => url.hash === '#/invitations');
    await page.getByLabel('Inviter UMA address').fill(inviter.umaAddress);
    await page.getByLabel('First name').fill('Ivy');
    await page.getByLabel('Amount to send').fill('12.50');
    await page.getByLabel('Expires in (hours)').fill('48');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'Created' }).waitFor();
    const [listed] = (await call('GET', '/invitations?limit=1')).data;
    assert.equal(listed.inviterUma, inviter.umaAddress);
    assert.deepEqual(listed.amountToSend.amount, 1250);
    const row = page.getByRole('row').filter({ hasText: listed.code });
    await row.waitFor();
    assert.match(await row.innerText(), /PENDING/);
    await screenshot(page, 'invitations');

    // Its page: claim it for another customer of the platform.
    await row.getByRole('link', { name: listed.code }).click();
    await page.getByRole('heading', { level: 1, name: `Invitation ${listed.code}` }).waitFor();
    await page.getByLabel('Invitee UMA address').fill(invitee.umaAddress);
    await page.getByRole('button', { name: 'Claim invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'The invitation is CLAIMED.' }).waitFor();
    const claimed = await call('GET', `/invitations/${listed.code}`);
    assert.equal(claimed.status, 'CLAIMED');
    assert.equal(claimed.inviteeUma, invitee.umaAddress);
    // A claimed invitation cannot be cancelled: the page shows the service's refusal.
    await page.getByRole('button', { name: 'Cancel invitation' }).click();
    await page.getByRole('alert').filter({ hasText: 'INVITATION_ALREADY_CLAIMED' }).waitFor();

    // Another one, cancelled from its page, found by its code.
    const spare = await call('POST', '/invitations', { inviterUma: inviter.umaAddress });
    await page.goto('/#/invitations');
    await page.getByLabel('Any invitation by its code').fill(spare.code);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { level: 1, name: `Invitation ${spare.code}` }).waitFor();
    await page.getByRole('button', { name: 'Cancel invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'The invitation is CANCELLED.' }).waitFor();
    assert.equal((await call('GET', `/invitations/${spare.code}`)).status, 'CANCELLED');
    // The refused cancel above is a 400 the browser logs.
    opened.checkClean({ allowConsole: [/status of 400/] });
  } finally {
    await opened.close();
  }
});
