#!/usr/bin/env node
// `npm run e2e`: money movement end to end against a running `npm start`, in real time.
// Shows a transfer-out to an account ending in 005 failing on its own about 30 s later (a delayed queue
// message drives it: no clock advance, no further call), funded quotes completing, and incoming UMA payments
// approved (200) and rejected (403) by a local webhook receiver.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The same place `npm start` saves them (STATE_DIR moves it there too).
const credentialsFile = join(process.env.STATE_DIR ? resolve(process.env.STATE_DIR) : join(root, '.sandbox'), 'credentials.json');

if (!existsSync(credentialsFile)) {
  console.error('No .sandbox/credentials.json: start the server first with `npm start` (in another terminal), then run `npm run e2e`.');
  process.exit(1);
}
const { baseUrl, clientId, clientSecret } = JSON.parse(readFileSync(credentialsFile, 'utf8'));
const auth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`.padStart(7);
let stepNo = 0;
const step = (text) => console.log(`\n${++stepNo}. ${text}`);
const info = (text) => console.log(`   ${elapsed()}  ${text}`);

async function call(method, path, body, headers = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: auth, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  return { status: res.status, body: json };
}

async function must(method, path, body, expected, headers) {
  const res = await call(method, path, body, headers);
  if (res.status !== expected)
    throw new Error(`${method} ${path}: expected HTTP ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const money = (amount, code) => `${(amount / 100).toFixed(2)} ${code}`;

/** Polls a transaction until it reaches `status` (printing each change), or fails after `timeoutMs`. */
async function waitFor(id, status, timeoutMs) {
  let last;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = await must('GET', `/transactions/${id}`, undefined, 200);
    if (t.status !== last) {
      info(`transaction ${t.status}${t.failureReason ? ` (${t.failureReason})` : ''}${t.refund ? `, refund ${t.refund.status}` : ''}`);
      last = t.status;
    }
    if (t.status === status) return t;
    if (Date.now() > deadline) throw new Error(`transaction ${id} still ${t.status} after ${timeoutMs / 1000} s (expected ${status})`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

async function main() {
  step(`Connect to ${baseUrl}`);
  const config = await call('GET', '/config');
  if (config.status !== 200)
    throw new Error(`GET /config answered ${config.status}: is \`npm start\` running? ${JSON.stringify(config.body)}`);
  info(`platform ready; sandbox UMA domain ${config.body.sandboxUmaDomain ?? '(production mode)'}`);

  step('Create a customer and fund its USD internal account (POST /sandbox/internal-accounts/{id}/fund)');
  const tag = Date.now().toString(36);
  const customer = await must(
    'POST',
    '/customers',
    {
      customerType: 'INDIVIDUAL',
      platformCustomerId: `e2e-${tag}`,
      fullName: 'Erin Example',
      birthDate: '1990-01-15',
      nationality: 'US',
      address: { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
    },
    201,
  );
  const accounts = (await must('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`, undefined, 200)).data;
  const usd = accounts.find((a) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD');
  await must('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100_000 }, 200);
  info(`customer ${customer.id}, USD account ${usd.id} funded with ${money(100_000, 'USD')}`);

  const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Erin Example', address: customer.address };
  const external = async (currency, accountInfo) =>
    must('POST', '/customers/external-accounts', { customerId: customer.id, currency, accountInfo: { ...accountInfo, beneficiary } }, 201);
  const balance = async () =>
    (await must('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`, undefined, 200)).data.find(
      (a) => a.id === usd.id,
    ).balance.amount;
  const digits = String(Date.now() % 1_000_000_000).padStart(9, '0');
  // IBAN check digits (ISO 13616 mod 97): the service verifies them.
  const iban = (country, bban) => {
    const numeric = [...`${bban}${country}00`].map((c) => parseInt(c, 36)).join('');
    return `${country}${String(98n - (BigInt(numeric) % 97n)).padStart(2, '0')}${bban}`;
  };

  step('Transfer out 125.50 USD to a bank account ending in 005 (sandbox: pending about 30 s, then fails)');
  const slow = await external('USD', { accountType: 'USD_ACCOUNT', accountNumber: `${digits}005`, routingNumber: '021000021' });
  const out = await must(
    'POST',
    '/transfer-out',
    { source: { accountId: usd.id }, destination: { accountId: slow.id }, amount: 12_550 },
    201,
    {
      'Idempotency-Key': `e2e-out-${tag}`,
    },
  );
  info(`${out.id} is ${out.status}; the account is debited: ${money(await balance(), 'USD')}`);
  info('waiting, without any further call, for the delayed queue message to fail it...');
  const t0 = Date.now();
  const failed = await waitFor(out.id, 'FAILED', 90_000);
  info(
    `FAILED on its own ${((Date.now() - t0) / 1000).toFixed(0)} s after creation (failureReason ${failed.failureReason}, refund ${failed.refund?.status})`,
  );
  const restored = await balance();
  info(`balance restored: ${money(restored, 'USD')}`);
  if (restored !== 100_000) throw new Error('the refund did not restore the balance');

  step('Quote 100.00 USD from the funded account to a EUR bank account, execute it (Idempotency-Key)');
  const eur = await external('EUR', { accountType: 'EUR_ACCOUNT', iban: iban('DE', `${digits}000000321`) });
  const quote = await must(
    'POST',
    '/quotes',
    {
      source: { sourceType: 'ACCOUNT', accountId: usd.id },
      destination: { destinationType: 'ACCOUNT', accountId: eur.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    },
    201,
  );
  info(
    `${quote.id}: ${money(quote.totalSendingAmount, 'USD')} -> ${money(quote.totalReceivingAmount, 'EUR')} at ${quote.exchangeRate}, fees ${money(quote.feesIncluded, 'USD')}, expires ${quote.expiresAt}`,
  );
  const executed = await must('POST', `/quotes/${quote.id}/execute`, undefined, 200, { 'Idempotency-Key': `e2e-exec-${tag}` });
  info(`executed: quote ${executed.status}`);
  await waitFor(quote.transactionId, 'COMPLETED', 60_000);

  step('Real-time funded quote: pay its paymentInstructions with POST /sandbox/send');
  const realtime = await must(
    'POST',
    '/quotes',
    {
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: eur.id },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 5_000,
    },
    201,
  );
  const bank = realtime.paymentInstructions[0].accountOrWalletInfo;
  info(
    `pay ${money(realtime.totalSendingAmount, 'USD')} to ${bank.bankName} ${bank.accountNumber} (routing ${bank.routingNumber}), reference ${bank.reference}`,
  );
  const funded = await must('POST', '/sandbox/send', { quoteId: realtime.id, currencyCode: 'USD' }, 200);
  info(`funding received: ${funded.status}`);
  await waitFor(realtime.transactionId, 'COMPLETED', 60_000);

  await incomingPayments(customer, usd, balance);

  console.log(`\nAll steps passed in ${elapsed().trim()}.`);
}

/**
 * A local receiver (127.0.0.1, a free port) set as the webhookEndpoint answers each INCOMING_PAYMENT.PENDING
 * approval request: 200 approves a payment from $approve.me, 403 with a reason rejects one from $blocked.
 * The previous webhookEndpoint is put back at the end.
 */
async function incomingPayments(customer, usd, balance) {
  step('Incoming UMA payments decided by a local webhook receiver (200 approves, 403 rejects)');
  const decisions = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body || '{}');
      if (event.type !== 'INCOMING_PAYMENT.PENDING' || !event.data?.pendingPlatformApproval) {
        res.writeHead(200).end();
        return;
      }
      const approve = event.data.senderUmaAddress?.startsWith('$approve');
      decisions.push(`${event.data.senderUmaAddress}: ${approve ? '200' : '403'}`);
      if (approve) res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      else
        res
          .writeHead(403, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ status: 403, code: 'PAYMENT_REJECTED', message: 'Rejected by policy', reason: 'RESTRICTED_JURISDICTION' }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${server.address().port}/webhooks`;
  const previous = (await must('GET', '/config', undefined, 200)).webhookEndpoint;
  await must('PATCH', '/config', { webhookEndpoint: endpoint }, 200);
  info(`receiver listening at ${endpoint} (webhookEndpoint set)`);
  try {
    const before = await balance();
    const receive = (sender) =>
      must(
        'POST',
        '/sandbox/uma/receive',
        { senderUmaAddress: sender, customerId: customer.id, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 4_200 },
        200,
      );
    const approved = await receive('$approve.me@sender.example');
    info(`${approved.id} from $approve.me: ${approved.status}, awaiting the receiver`);
    await waitFor(approved.id, 'COMPLETED', 60_000);
    const credited = await balance();
    info(`credited: ${money(before, 'USD')} -> ${money(credited, 'USD')}`);
    if (credited !== before + 4_200) throw new Error('the approved payment was not credited');

    const rejected = await receive('$blocked@sender.example');
    info(`${rejected.id} from $blocked: ${rejected.status}, awaiting the receiver`);
    await waitFor(rejected.id, 'REJECTED', 60_000);
    if ((await balance()) !== credited) throw new Error('the rejected payment moved money');
    info(`not credited: balance still ${money(credited, 'USD')}; the receiver answered ${decisions.join(', ')}`);
  } finally {
    await must('PATCH', '/config', { webhookEndpoint: previous ?? null }, 200);
    server.close();
  }
}

main().catch((error) => {
  console.error(`\nFAILED: ${error.message}`);
  process.exit(1);
});
