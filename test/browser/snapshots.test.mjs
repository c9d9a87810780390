// The Sandbox view's Snapshots and Load fixtures in a real browser, on its own `npm start` (a restore
// rewinds the whole platform, so it shares no service with the other browser tests): take a snapshot,
// change the data (a customer through the API, a fixture document from the console), restore after
// confirming, and see the customers as they were.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browser, call, createCustomer, openPage, screenshot, service, signIn, tag, useSuite } from './lib/harness.mjs';

useSuite();

/** A fixture customer entry: a POST /customers body with its ref. */
const fixtureCustomer = (ref, fullName, extra = {}) => ({
  ref,
  customerType: 'INDIVIDUAL',
  platformCustomerId: `fixture-${ref}-${tag()}`,
  fullName,
  birthDate: '1990-01-15',
  nationality: 'US',
  address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
  ...extra,
});

test('sandbox: take a snapshot, load fixtures, restore the snapshot after confirming, delete it', { timeout: 180_000 }, async () => {
  const t = tag();
  const { customer: kept } = await createCustomer(call, { fullName: `Kept Before ${t}` });

  const opened = await openPage(browser, service.origin);
  const { page } = opened;
  await signIn(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  const toSandbox = async () => {
    await nav.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.waitForURL((url) => url.hash === '#/sandbox');
  };
  const section = (name) => page.locator('section').filter({ has: page.getByRole('heading', { level: 2, name }) });
  const said = (where, text) => where.getByRole('status').filter({ hasText: text }).waitFor();
  /** Fails at once with the section's error message when it shows one instead of `text`. */
  const saidOrFail = async (where, text) => {
    const alert = where.getByRole('alert').filter({ hasText: /\S/ }).first();
    await Promise.race([
      said(where, text),
      alert.waitFor().then(async () => assert.fail(`the page shows an error: ${await alert.innerText()}`)),
    ]);
  };

  // Take a snapshot: it is listed with what it holds.
  await toSandbox();
  const snapshots = section('Snapshots');
  const name = `before-${t}`;
  await snapshots.getByLabel('Name').fill(name);
  await snapshots.getByRole('button', { name: 'Take snapshot' }).click();
  await saidOrFail(snapshots, `Took “${name}”`);
  const row = snapshots.getByRole('row').filter({ hasText: name });
  await row.waitFor();
  assert.match(await row.innerText(), /customers: 1\b/);
  const [taken] = (await call('GET', '/sandbox/snapshots')).data;
  assert.equal(taken.name, name);

  // Change the data: a customer through the API, and two more from a fixture document loaded in the console.
  const { customer: added } = await createCustomer(call, { fullName: `Added After ${t}` });
  const fixtures = section('Load fixtures');
  // A refused document names the failing entry's JSON path, and creates nothing.
  const bad = {
    customers: [fixtureCustomer('ok', `Fixture Ok ${t}`), fixtureCustomer('bad', `Fixture Bad ${t}`, { email: 'not-an-email' })],
  };
  await fixtures.getByLabel('Document (JSON)').fill(JSON.stringify(bad));
  await fixtures.getByRole('button', { name: 'Load fixtures' }).click();
  await fixtures.getByRole('alert').filter({ hasText: 'INVALID_INPUT' }).waitFor();
  await fixtures.locator('[data-field="fixture-result"] li').filter({ hasText: 'customers[1].email' }).waitFor();
  assert.equal((await call('GET', '/customers')).data.length, 2, 'a refused document creates nothing');
  // A good one, uploaded as a file: its refs are shown, each with its id.
  const good = { customers: [fixtureCustomer('ada', `Fixture Ada ${t}`, { balances: { USD: 10_000 } })] };
  await fixtures.getByLabel('Or upload a file').setInputFiles({
    name: 'world.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(good)),
  });
  await page.waitForFunction(() => document.querySelector('textarea[name="document"]').value.includes('"fullName": "Fixture Ada'));
  await fixtures.getByRole('button', { name: 'Load fixtures' }).click();
  await saidOrFail(fixtures, 'Loaded');
  const refs = fixtures.locator('[data-field="fixture-result"]');
  const ada = (await call('GET', '/customers')).data.find((c) => c.fullName === `Fixture Ada ${t}`);
  assert.ok(ada, 'the fixture customer exists');
  await refs.getByRole('row').filter({ hasText: 'ada' }).getByRole('link', { name: ada.id }).waitFor();
  await refs.getByRole('cell', { name: 'ada.accounts.USD', exact: true }).waitFor();
  await screenshot(page, 'sandbox-snapshots');

  // Restore asks first: Cancel changes nothing.
  const dialog = page.getByRole('dialog', { name: 'Restore the snapshot?' });
  await row.getByRole('button', { name: `Restore “${name}”…` }).click();
  await dialog.getByText(name).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await call('GET', `/customers/${encodeURIComponent(added.id)}`)).id, added.id);
  await row.getByRole('button', { name: `Restore “${name}”…` }).click();
  await dialog.getByRole('button', { name: 'Restore' }).click();
  await saidOrFail(section('Snapshots'), `Restored “${name}”`);

  // The console shows the customers as they were: the first one only.
  await nav.getByRole('link', { name: 'Customers', exact: true }).click();
  await page.waitForURL((url) => url.hash === '#/customers');
  await page
    .getByRole('status')
    .filter({ hasText: /^1 customer$/ })
    .waitFor();
  await page.getByRole('link', { name: `Kept Before ${t}` }).waitFor();
  for (const gone of [`Added After ${t}`, `Fixture Ada ${t}`]) assert.equal(await page.getByRole('link', { name: gone }).count(), 0);
  await call('GET', `/customers/${encodeURIComponent(added.id)}`, undefined, 404);
  await call('GET', `/customers/${encodeURIComponent(ada.id)}`, undefined, 404);
  assert.equal((await call('GET', `/customers/${encodeURIComponent(kept.id)}`)).id, kept.id);

  // The snapshot outlives its restore; Delete removes it.
  await toSandbox();
  await section('Snapshots')
    .getByRole('row')
    .filter({ hasText: name })
    .getByRole('button', { name: `Delete “${name}”` })
    .click();
  await saidOrFail(section('Snapshots'), `Deleted “${name}”`);
  await section('Snapshots').getByText('No snapshots yet.').waitFor();
  assert.deepEqual((await call('GET', '/sandbox/snapshots')).data, []);
  opened.checkClean({ allowConsole: [/status of 400/] });
});
