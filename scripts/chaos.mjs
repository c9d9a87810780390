#!/usr/bin/env node
// `npm run chaos`: kills the local server (SIGKILL, the whole workerd process group) in the middle of a
// load of transfers, restarts it on the same state, retries the requests that got no answer with their
// Idempotency-Key, and checks that no money was lost or duplicated:
//   - every accepted transfer is COMPLETED, or still in flight with its outcome due (the 005 ones, which
//     the restarted server's queue and cron then turn FAILED and refund);
//   - the account balance equals the funding minus the transfers that completed;
//   - no Idempotency-Key produced two transfers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlatform, envFileText, freePort, killChildNow, startService, stopChild, withLocalSecrets } from './lib/service.mjs';

const TRANSFERS = Number(process.env.CHAOS_TRANSFERS ?? 120);
const CONCURRENCY = 6;
const KILL_AFTER = Math.floor(TRANSFERS / 3);
const AMOUNT = 100;
const FUNDING = 1_000_000;

const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
const vars = withLocalSecrets({});
const envFile = join(dir, '.env');
writeFileSync(envFile, envFileText(vars));
let service;
process.on('exit', () => killChildNow(service?.child));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

const log = (msg) => console.log(`${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s  ${msg}`);
const t0 = Date.now();

async function start(port, inspectorPort) {
  service = await startService({
    port,
    inspectorPort,
    persistTo: join(dir, 'state'),
    envFile,
    // One platform sends the whole load as fast as it can: past its request budget by design.
    vars: { LOG_LEVEL: 'warn', RATE_LIMITS: 'off' },
    stdio: 'ignore',
    quietMigrations: true,
  });
  return service;
}

function client(apiBase, auth) {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(`${apiBase}${path}`, {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

async function main() {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  let s = await start(port, inspectorPort);
  log(`service on ${s.apiBase} (state in ${dir})`);
  const platform = await createPlatform(s.apiBase, vars.OPERATOR_TOKEN);
  let api = client(s.apiBase, platform.auth);
  const customer = await api('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    fullName: 'Chaos Monkey',
    platformCustomerId: `chaos-${Date.now()}`,
  });
  const accounts = await api(
    'GET',
    `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&currency=USD&type=INTERNAL_FIAT`,
  );
  const usd = accounts.body.data[0].id;
  await api('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: FUNDING });
  const bank = async (suffix) =>
    (
      await api('POST', '/customers/external-accounts', {
        customerId: customer.body.id,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `12345678${suffix}`,
          routingNumber: '021000021',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Chaos Monkey' },
        },
      })
    ).body.id;
  // Most transfers succeed at once; every fourth goes to a 005 account (fails about 30 s later, refunded).
  const [ok, slow] = [await bank('789'), await bank('005')];
  log(
    `customer funded with ${FUNDING}; ${TRANSFERS} transfer-outs of ${AMOUNT}, ${CONCURRENCY} at a time; the server dies after ${KILL_AFTER} answers`,
  );

  const requests = Array.from({ length: TRANSFERS }, (_, i) => ({
    key: `chaos-${i}`,
    destination: i % 4 === 3 ? slow : ok,
    answer: null,
    sent: false,
  }));
  let answered = 0;
  let killed = false;
  let next = 0;
  const send = (r) =>
    api(
      'POST',
      '/transfer-out',
      { source: { accountId: usd }, destination: { accountId: r.destination }, amount: AMOUNT },
      { 'Idempotency-Key': r.key },
    );
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (!killed && next < requests.length) {
        const r = requests[next++];
        r.sent = true;
        try {
          r.answer = await send(r);
          if (++answered === KILL_AFTER && !killed) {
            killed = true;
            log(`SIGKILL to the server with requests in flight`);
            process.kill(-s.child.pid, 'SIGKILL');
          }
        } catch {
          // The connection died with the server: no answer.
        }
      }
    }),
  );
  await stopChild(s.child);
  const accepted = requests.filter((r) => r.answer?.status === 201);
  const unanswered = requests.filter((r) => !r.answer);
  const inFlight = unanswered.filter((r) => r.sent).length;
  log(
    `${accepted.length} accepted, ${requests.filter((r) => r.answer && r.answer.status !== 201).length} refused, ${inFlight} in flight when it died, ${unanswered.length - inFlight} not sent yet`,
  );

  s = await start(port, inspectorPort);
  api = client(s.apiBase, platform.auth);
  log('restarted on the same state');

  // The unanswered requests again, with their keys; a claim left by a dead request is taken over after its lease.
  for (const r of unanswered) {
    for (let attempt = 0; ; attempt++) {
      const res = await send(r);
      if (res.status !== 409 || attempt > 90) {
        r.answer = res;
        break;
      }
      await new Promise((ok2) => setTimeout(ok2, 1000));
    }
  }
  const counts = new Map();
  for (const r of unanswered) counts.set(r.answer.status, (counts.get(r.answer.status) ?? 0) + 1);
  const statuses = [...counts].map(([status, n]) => `${n}x ${status}`);
  log(`sent the ${unanswered.length} unanswered requests (same keys): ${statuses.join(', ') || 'none'}`);

  // Let the 005 transfers reach their due time, then sweep (the cron backstop) in case a delayed message died with the server.
  log('waiting 35 s for the delayed outcomes');
  await new Promise((r) => setTimeout(r, 35_000));
  const swept = await fetch(`${s.origin}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
  if (!swept.ok) throw new Error(`the scheduled trigger answered ${swept.status}: ${await swept.text()}`);
  await new Promise((r) => setTimeout(r, 2_000));

  const problems = [];
  const seenTx = new Map();
  let completed = 0;
  for (const r of requests) {
    if (r.answer?.status !== 201) {
      problems.push(`${r.key}: answered ${r.answer?.status} ${JSON.stringify(r.answer?.body)}`);
      continue;
    }
    const tx = (await api('GET', `/transactions/${r.answer.body.id}`)).body;
    if (seenTx.has(tx.id)) problems.push(`${r.key} and ${seenTx.get(tx.id)} share ${tx.id}`);
    seenTx.set(tx.id, r.key);
    const expected = r.destination === slow ? 'FAILED' : 'COMPLETED';
    if (tx.status !== expected) problems.push(`${r.key}: ${tx.id} is ${tx.status}, expected ${expected}`);
    if (tx.status === 'COMPLETED') completed++;
  }
  const all = await api('GET', `/transactions?customerId=${encodeURIComponent(customer.body.id)}&limit=100`);
  const total = all.body.totalCount;
  if (total !== requests.length) problems.push(`${total} transactions recorded for ${requests.length} distinct requests`);
  const balance = (
    await api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}&currency=USD&type=INTERNAL_FIAT`)
  ).body.data[0].balance.amount;
  const expectedBalance = FUNDING - completed * AMOUNT;
  if (balance !== expectedBalance)
    problems.push(`balance ${balance}, expected ${expectedBalance} (funding ${FUNDING} - ${completed} completed x ${AMOUNT})`);
  log(
    `${completed} completed, ${seenTx.size - completed} failed and refunded; balance ${balance} (expected ${expectedBalance}); ${total} transactions`,
  );

  await stopChild(s.child);
  if (problems.length) {
    console.error(`\nCHAOS FAILED:\n  ${problems.slice(0, 20).join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log('\nchaos passed: nothing lost, nothing duplicated, every accepted transfer reached its outcome');
  }
  rmSync(dir, { recursive: true, force: true });
}

main().catch(async (error) => {
  console.error(error);
  await stopChild(service?.child);
  process.exit(1);
});
