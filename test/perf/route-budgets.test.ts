import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { agentActions } from '../../src/db/schema';
import { seedPlatform } from '../../scripts/lib/seed.mjs';
import { api, newPlatform, OPERATOR, type CallOptions, type TestPlatform } from '../support/api';
import { newAgent, policy } from '../support/agents';
import { businessBody, individualBody, multipart, uniqueId, type FormPart } from '../support/customers';
import { bankInfo, createQuote, customerWithAccounts, db, externalAccount, fund, idemKey } from '../support/payments';
import { SoftPasskey } from '../support/passkey';
import { newWalletClient, stamp, type SessionKey } from '../support/wallet-client';
import { challengeOf, emailCredential, newWallet, otpSession, type TestWallet } from '../support/wallets';
import { fakeEndpoint, hookUrl } from '../support/webhooks';
import { solanaWithSuffix } from '../support/identifiers';
import { undeclared } from '../support/responses';
import { IDENTITY_SECRET, IDENTITY_URL, RAIL_SECRET, RAIL_URL, signedOutcome } from '../support/providers';
import { measured, type Cost } from './counting';

/**
 * The production latency model of the API: D1 round trips and embedded-wallet account (Durable Object)
 * calls of every operation of /openapi.json on its success path, each within its declared budget, and each answer
 * what its declared response schema says (test/support/responses.ts), so the document cannot drift from what is
 * served. `npm run round-trips` prints the table this test measures; docs/engineering/performance.md carries it.
 */
const BUDGETS: Record<string, { d1: number; account: number }> = {};
const budget = (d1: number, account = 0) => ({ d1, account });
Object.assign(BUDGETS, {
  // Operator
  // The least full home (none when the request names one), the directory's entry, then the platform in its home
  // (the entry and the platform in one batch when its home is the directory's).
  createPlatform: budget(3),
  // The directory's page, then the page's platforms in each home they live in (two here).
  listPlatforms: budget(3),
  // The domains' check and the batch, in every home (two here).
  loadUmaProviders: budget(4),
  // Grows with the platform's tables and rows: a read of each table and a write of each one with rows (the copy),
  // a delete or two of each (the source cleared), plus two round trips for each further 100 rows copied; a call
  // stops at 500 and the next goes on (test/platform/move.test.ts).
  movePlatform: budget(130),
  getOpenApi: budget(0),
  // Platform configuration and tokens
  getPlatformConfig: budget(1),
  updatePlatformConfig: budget(2),
  createToken: budget(2),
  listTokens: budget(1),
  getTokenById: budget(1),
  deleteTokenById: budget(2),
  // Customers and KYC
  createCustomer: budget(2),
  listCustomers: budget(1),
  getCustomerById: budget(1),
  updateCustomerById: budget(3),
  deleteCustomerById: budget(4),
  uploadCustomersCsv: budget(2),
  getBulkCustomerImportJob: budget(1),
  createBeneficialOwner: budget(3),
  listBeneficialOwners: budget(1),
  getBeneficialOwner: budget(1),
  updateBeneficialOwner: budget(3),
  createVerification: budget(4),
  listVerifications: budget(1),
  getVerification: budget(1),
  createCustomerKycLink: budget(2),
  uploadDocument: budget(3),
  listDocuments: budget(1),
  getDocument: budget(1),
  replaceDocument: budget(4),
  deleteDocument: budget(2),
  // Accounts
  createCustomerExternalAccount: budget(3),
  listCustomerExternalAccounts: budget(1),
  getCustomerExternalAccountById: budget(1),
  deleteCustomerExternalAccountById: budget(2),
  createPlatformExternalAccount: budget(2),
  listPlatformExternalAccounts: budget(1),
  getPlatformExternalAccountById: budget(1),
  deletePlatformExternalAccountById: budget(2),
  listCustomerInternalAccounts: budget(1),
  listPlatformInternalAccounts: budget(2),
  sandboxFundInternalAccount: budget(2),
  getAvailableUmaProviders: budget(1),
  getDiscoveries: budget(1),
  // Invitations
  createInvitation: budget(2),
  listInvitations: budget(1),
  getInvitation: budget(1),
  claimInvitation: budget(2),
  cancelInvitation: budget(2),
  // Money
  getExchangeRates: budget(1),
  // The sender (and the account) ride on authentication; the look-up is one write.
  lookupUma: budget(2),
  lookupExternalAccount: budget(2),
  estimateCryptoWithdrawalFee: budget(1),
  createQuote: budget(2),
  listQuotes: budget(1),
  getQuoteById: budget(1),
  executeQuote: budget(2),
  createTransferIn: budget(2),
  createTransferOut: budget(2),
  listTransactions: budget(1),
  getTransactionById: budget(1),
  getTransactionHistory: budget(1),
  approvePendingPayment: budget(3),
  rejectPendingPayment: budget(2),
  // Webhooks and the sandbox
  sendWebhookTest: budget(4),
  sendTestWebhook: budget(4),
  listWebhookDeliveries: budget(1),
  getWebhookDelivery: budget(1),
  resendWebhookDelivery: budget(2),
  replayWebhookDeliveries: budget(3),
  sendSandboxWebhook: budget(2),
  sandboxSend: budget(2),
  sandboxReceive: budget(2),
  getSandboxClock: budget(1),
  advanceSandboxClock: budget(3),
  sandboxReset: budget(2),
  listSandboxEmails: budget(1),
  createSandboxFault: budget(2),
  listSandboxFaults: budget(1),
  getSandboxFault: budget(1),
  deleteSandboxFault: budget(2),
  deleteSandboxFaults: budget(2),
  // Snapshots: the platform's wallets are read (take) or written (restore) one Durable Object call each; the
  // measured platform has 7 of them.
  createSandboxSnapshot: budget(3, 7),
  listSandboxSnapshots: budget(1),
  getSandboxSnapshot: budget(1),
  restoreSandboxSnapshot: budget(3, 7),
  deleteSandboxSnapshot: budget(2),
  getSandboxMagicValues: budget(1),
  // The hosted KYC page's calls (no credentials: the link's secret finds it, in the home it names or where that
  // home forwards it, one round trip first).
  openSandboxKycLink: budget(2),
  completeSandboxKycLink: budget(3),
  // One customer with a balance; grows with the document (each step costs its own operation's budget) and the platform's wallets (the rollback point).
  loadSandboxFixtures: budget(9, 7),
  // Embedded wallets
  listAuthCredentials: budget(1, 1),
  createAuthCredential: budget(3, 1),
  challengeAuthCredential: budget(4, 2),
  verifyAuthCredential: budget(1, 1),
  revokeAuthCredential: budget(2, 1),
  listAuthSessions: budget(1, 1),
  refreshAuthSession: budget(3, 1),
  revokeAuthSession: budget(2, 1),
  updateInternalAccount: budget(3, 1),
  exportInternalAccount: budget(2, 1),
  // Agents (the platform's side)
  createAgent: budget(3),
  listAgents: budget(1),
  getAgentById: budget(1),
  updateAgent: budget(3),
  updateAgentPolicy: budget(4),
  deleteAgent: budget(2),
  regenerateAgentDeviceCode: budget(3),
  getAgentDeviceCodeStatus: budget(1),
  // The code's home (where it names, or where that home forwards it), then the redemption.
  redeemAgentDeviceCode: budget(5),
  listAgentApprovals: budget(1),
  approveAgentAction: budget(3),
  rejectAgentAction: budget(2),
  // Agents (their own side)
  getAgentMe: budget(2),
  agentListInternalAccounts: budget(2),
  agentListExternalAccounts: budget(2),
  agentCreateExternalAccount: budget(3),
  agentGetExternalAccount: budget(2),
  agentDeleteExternalAccount: budget(3),
  agentCreateQuote: budget(3),
  agentGetQuote: budget(3),
  agentExecuteQuote: budget(2),
  agentCreateTransferOut: budget(2),
  agentCreateTransferIn: budget(2),
  agentListActions: budget(3),
  agentGetAction: budget(3),
  agentListTransactions: budget(2),
  agentGetTransaction: budget(2),
  // The operator's providers (production): the platform's home (the directory), the subject read, then its
  // change in one batch.
  reportRailOutcome: budget(3),
  reportIdentityOutcome: budget(3),
});

/**
 * Rows read (D1's own count, `meta.rows_read`: src/db/meter.ts) of each operation on a platform whose every
 * list holds SEEDED rows, beside another platform as large. No budget grows with the data: a point read
 * reads a few index entries and rows (READ), a write what it checks and changes (WRITE), a list its page
 * (`page(limit)`: the page's rows, the rows their views load, authentication and a maintained total).
 */
const READ = 20;
const WRITE = 100;
const page = (limit: number) => 3 * limit + 40;
/** Budgets other than the rule of the operation's kind (`rowsBudget`). */
const ROWS: Record<string, number> = {
  // Closes each of the customer's accounts (six) with its event, each checked to hold no money; the customer's
  // counters, search row and deliveries' counters follow by trigger.
  deleteCustomerById: 450,
  // The search index splits the customer's searched text (platformCustomerId, names, e-mail: about 70 characters
  // here) into its pieces in SQL, one row read per character and index: its size, never the platform's.
  createCustomer: WRITE + 3 * 70,
  updateCustomerById: WRITE + 3 * 70,
  // Each pending action's view loads its transaction, quote and customer: about 15 rows per action of the page.
  listAgentApprovals: 15 * 20 + 40,
  // A restore compares the platform's rows with the snapshot's (each side read about twice) and writes only what
  // differs: reads follow the platform's size (the measured one holds about 300,000 rows), not its writes. Its
  // events and transaction history are found through their deliveries and transactions (no platform index of
  // their own since migration 0031, which every payment's writes pay for): a little more per row.
  restoreSandboxSnapshot: 4.5 * 310_000,
};
/**
 * Operations whose work is the platform's data itself (sandbox reset deletes all of it): rows read at most this
 * many per row written, so each row is found through an index (a deleted parent's children by theirs).
 */
// A clock advance moves the platform's pending deliveries and transitions' sweep times with it (the sweep reads
// only what is due, in real time): a bounded update of that platform's pending rows.
const PER_ROW_WRITTEN: Record<string, number> = {
  sandboxReset: 2,
  advanceSandboxClock: 2,
  // Taking a snapshot copies the platform's rows: each read about once per row it writes.
  createSandboxSnapshot: 2,
  // Deleting a snapshot's rows reads each through its index entry, then the row (2 per row deleted, and the snapshot's).
  deleteSandboxSnapshot: 3,
  // Its rollback point: a hidden snapshot taken before the steps and deleted after them (as the two above).
  loadSandboxFixtures: 3,
  // Each row read by key where it is copied from and again where it is deleted, every table probed in both
  // homes, and counted three times to check the copy (the probes dominate for the small platform measured here).
  movePlatform: 8,
};

/** The rows-read budget of `op` as measured: lists by their page (`limit`, default 20), else READ or WRITE. */
function rowsBudget(op: string, { method, path, cost }: Measured): number {
  if (ROWS[op] !== undefined) return ROWS[op];
  if (PER_ROW_WRITTEN[op] !== undefined) return PER_ROW_WRITTEN[op] * cost.rowsWritten;
  if (/^(list|agentList)|^getAvailableUmaProviders$/.test(op)) {
    return page(Number(new URL(path, 'http://x').searchParams.get('limit') ?? 20));
  }
  return method === 'GET' ? READ : WRITE;
}

interface Measured {
  method: string;
  path: string;
  status: number;
  cost: Cost;
}
const seen = new Map<string, Measured>();
/** Success bodies that are not what their operation declares (`undeclared`), by operation. */
const drift = new Map<string, string>();
/** The body each operation answered, for the check's own test. */
const bodies = new Map<string, unknown>();

/**
 * One measured call of operation `op`, which must succeed, its body checked against the operation's declared
 * response; ids in its path are written as `{...}` in the table. `overrides`: bindings of another deployment
 * (production, for the operator providers' routes).
 */
async function m(op: string, method: string, path: string, opts: CallOptions = {}, overrides: Partial<typeof env> = {}) {
  const res = await measured(method, path, opts, overrides);
  expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  seen.set(op, { method, path, status: res.status, cost: res.cost });
  bodies.set(op, res.body);
  const problem = undeclared(op, res.status, res.body);
  if (problem) drift.set(op, problem);
  return res;
}

/** The signed retry of a wallet request, measured (its challenge is not: the table counts each request once). */
async function signedM(op: string, w: TestWallet, method: string, path: string, body: unknown, key: SessionKey) {
  const challenge = await challengeOf(w, method, path, body);
  return m(op, method, path, {
    auth: w.p.auth,
    body,
    headers: { 'Service-Wallet-Signature': await stamp(key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
  });
}

/** Rows in each list of the measured platform, and of another platform: what a request reads must grow with neither. */
const SEEDED = 20_000;

async function seedLists(p: TestPlatform) {
  const started = Date.now();
  const statements = [
    // Fixed tags: the same rows (names, e-mails) every run, so the table's numbers repeat.
    ...seedPlatform({ platformId: p.id, umaDomain: p.umaDomain, n: SEEDED, tag: 1 }).statements,
    ...seedPlatform({
      platformId: `Platform:${crypto.randomUUID()}`,
      umaDomain: `${crypto.randomUUID()}.seed.test`,
      n: SEEDED,
      tag: 2,
      createPlatform: true,
    }).statements,
  ];
  await env.DB.batch(statements.map((s) => env.DB.prepare(s)));
  console.log(`seeded ${SEEDED} rows per list on two platforms in ${Date.now() - started} ms`);
}

const form = (parts: FormPart[]) => {
  const f = multipart(parts);
  return { raw: f.body, headers: { 'Content-Type': f.contentType } };
};
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
const pdf: FormPart = { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: PDF };
const CSV_HEADER =
  'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,email,businessLegalName,businessRegistrationNumber,businessTaxId';
const enc = encodeURIComponent;
const SOLANA = solanaWithSuffix('123');

describe('round trips of every operation (the production latency model)', () => {
  it('every operation of /openapi.json succeeds within its budget', { timeout: 180_000 }, async () => {
    // Every operation below runs with every list of `p` (and of another platform) holding SEEDED rows.
    const p = await newPlatform();
    await seedLists(p);

    // --- operator ---
    const domain = `rt-${uniqueId('p')}.example`;
    await m('createPlatform', 'POST', '/operator/platforms', { auth: OPERATOR, body: { name: 'Round Trips', umaDomain: domain } });
    await m('listPlatforms', 'GET', '/operator/platforms', { auth: OPERATOR });
    await m('loadUmaProviders', 'POST', '/operator/uma-providers', {
      auth: OPERATOR,
      body: { providers: [{ name: 'RT Bank', domain: `bank-${domain}`, supportedRegions: ['US'], supportedCurrencies: ['USD'] }] },
    });
    await m('getOpenApi', 'GET', '/openapi.json');
    const movable = await newPlatform();
    await m('movePlatform', 'POST', `/operator/platforms/${movable.id}/move`, { auth: OPERATOR, body: { home: 'DB_2' } });

    // --- platform configuration and tokens ---
    const auth = p.auth;
    await m('getPlatformConfig', 'GET', '/config', { auth });
    const hook = hookUrl();
    fakeEndpoint(hook, () => 200);
    await m('updatePlatformConfig', 'PATCH', '/config', { auth, body: { webhookEndpoint: hook } });
    const token = await m('createToken', 'POST', '/tokens', { auth, body: { name: 'reader', permissions: ['VIEW'] } });
    await m('listTokens', 'GET', '/tokens', { auth });
    await m('getTokenById', 'GET', `/tokens/${token.body.id}`, { auth });
    await m('deleteTokenById', 'DELETE', `/tokens/${token.body.id}`, { auth });

    // --- customers, KYC, documents ---
    const person = await m('createCustomer', 'POST', '/customers', { auth, body: individualBody() });
    await m('listCustomers', 'GET', '/customers?limit=5&search=smith', { auth });
    await m('getCustomerById', 'GET', `/customers/${person.body.id}`, { auth });
    await m('updateCustomerById', 'PATCH', `/customers/${person.body.id}`, {
      auth,
      body: { customerType: 'INDIVIDUAL', fullName: 'Renamed Person' },
    });
    const csv = `${CSV_HEADER}\n$bulk1@${p.umaDomain},bulk-1,INDIVIDUAL,Jane Doe,1990-01-15,1 Main St,,San Francisco,CA,94105,US,bulk1@example.com,,,\n`;
    const job = await m('uploadCustomersCsv', 'POST', '/customers/bulk/csv', {
      auth,
      ...form([{ name: 'file', filename: 'customers.csv', contentType: 'text/csv', data: new TextEncoder().encode(csv) }]),
    });
    await m('getBulkCustomerImportJob', 'GET', `/customers/bulk/jobs/${job.body.jobId ?? job.body.id}`, { auth });
    const business = (await api('POST', '/customers', { auth, body: businessBody() })).body;
    const personalInfo = {
      firstName: 'Jane',
      lastName: 'Doe',
      birthDate: '1980-02-01',
      nationality: 'US',
      address: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' },
      idType: 'SSN',
      identifier: '123-45-6789',
    };
    const owner = await m('createBeneficialOwner', 'POST', '/beneficial-owners', {
      auth,
      body: { customerId: business.id, roles: ['UBO'], ownershipPercentage: 51, personalInfo },
    });
    await m('listBeneficialOwners', 'GET', `/beneficial-owners?customerId=${enc(business.id)}`, { auth });
    await m('getBeneficialOwner', 'GET', `/beneficial-owners/${owner.body.id}`, { auth });
    await m('updateBeneficialOwner', 'PATCH', `/beneficial-owners/${owner.body.id}`, { auth, body: { ownershipPercentage: 60 } });
    const verification = await m('createVerification', 'POST', '/verifications', { auth, body: { customerId: business.id } });
    await m('listVerifications', 'GET', `/verifications?customerId=${enc(business.id)}`, { auth });
    await m('getVerification', 'GET', `/verifications/${verification.body.id}`, { auth });
    const kycLink = await m('createCustomerKycLink', 'POST', `/customers/${person.body.id}/kyc-link`, {
      auth,
      body: { redirectUri: 'https://app.example.com/kyc-done' },
    });
    const kycSecret = new URL(kycLink.body.kycUrl).hash.slice(1);
    await m('openSandboxKycLink', 'POST', '/sandbox/kyc-links/open', { body: { secret: kycSecret } });
    await m('completeSandboxKycLink', 'POST', '/sandbox/kyc-links/complete', { body: { secret: kycSecret, outcome: 'APPROVED' } });
    const docFields = (extra: Record<string, string>) =>
      Object.entries({ documentType: 'PASSPORT', country: 'US', ...extra }).map(([name, value]) => ({ name, value }));
    const doc = await m('uploadDocument', 'POST', '/documents', { auth, ...form([...docFields({ documentHolder: person.body.id }), pdf]) });
    await m('listDocuments', 'GET', `/documents?documentHolder=${enc(person.body.id)}`, { auth });
    await m('getDocument', 'GET', `/documents/${doc.body.id}`, { auth });
    await m('replaceDocument', 'PUT', `/documents/${doc.body.id}`, { auth, ...form([...docFields({}), pdf]) });
    await m('deleteDocument', 'DELETE', `/documents/${doc.body.id}`, { auth });

    // --- accounts ---
    const { customer, accounts } = await customerWithAccounts(p);
    const usd = accounts.USD!;
    const ext = await m('createCustomerExternalAccount', 'POST', '/customers/external-accounts', {
      auth,
      body: { customerId: customer.id, currency: 'USD', accountInfo: bankInfo('USD', '001') },
    });
    await m('listCustomerExternalAccounts', 'GET', `/customers/external-accounts?customerId=${enc(customer.id)}`, { auth });
    await m('getCustomerExternalAccountById', 'GET', `/customers/external-accounts/${ext.body.id}`, { auth });
    const spare = await externalAccount(p, customer.id, 'USD', '002');
    await m('deleteCustomerExternalAccountById', 'DELETE', `/customers/external-accounts/${spare}`, { auth });
    const platformExt = await m('createPlatformExternalAccount', 'POST', '/platform/external-accounts', {
      auth,
      body: { currency: 'USD', accountInfo: bankInfo('USD', '001') },
    });
    await m('listPlatformExternalAccounts', 'GET', '/platform/external-accounts', { auth });
    await m('getPlatformExternalAccountById', 'GET', `/platform/external-accounts/${platformExt.body.id}`, { auth });
    await m('deletePlatformExternalAccountById', 'DELETE', `/platform/external-accounts/${platformExt.body.id}`, { auth });
    await m('listCustomerInternalAccounts', 'GET', `/customers/internal-accounts?customerId=${enc(customer.id)}`, { auth });
    await m('listPlatformInternalAccounts', 'GET', '/platform/internal-accounts', { auth });
    await m('sandboxFundInternalAccount', 'POST', `/sandbox/internal-accounts/${usd}/fund`, { auth, body: { amount: 100_000 } });
    await m('getAvailableUmaProviders', 'GET', '/uma-providers?limit=5', { auth });
    await m('getDiscoveries', 'GET', '/discoveries?country=PH', { auth });

    // --- invitations ---
    const invitation = await m('createInvitation', 'POST', '/invitations', {
      auth,
      body: { inviterUma: person.body.umaAddress, amountToSend: 1_000 },
    });
    await m('listInvitations', 'GET', '/invitations', { auth });
    await m('getInvitation', 'GET', `/invitations/${invitation.body.code}`, { auth });
    await m('claimInvitation', 'POST', `/invitations/${invitation.body.code}/claim`, { auth, body: { inviteeUma: customer.umaAddress } });
    const spareInvitation = await api('POST', '/invitations', { auth, body: { inviterUma: person.body.umaAddress } });
    await m('cancelInvitation', 'POST', `/invitations/${spareInvitation.body.code}/cancel`, { auth });

    // --- money ---
    await m('getExchangeRates', 'GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR', { auth });
    await m('lookupUma', 'GET', `/receiver/uma/${enc('$success.mxn@sandbox.uma.test')}?senderUmaAddress=${enc(customer.umaAddress)}`, {
      auth,
    });
    await m('lookupExternalAccount', 'GET', `/receiver/external-account/${ext.body.id}?customerId=${enc(customer.id)}`, { auth });
    // A platform holding USDC: its customer's crypto account.
    const crypto = await newPlatform({
      supportedCurrencies: [
        { currencyCode: 'USDC', minAmount: 1, maxAmount: 10 ** 12, enabledTransactionTypes: ['OUTGOING'], requiredCounterpartyFields: [] },
      ],
    });
    const usdc = (await customerWithAccounts(crypto)).accounts.USDC!;
    await m('estimateCryptoWithdrawalFee', 'POST', '/crypto/estimate-withdrawal-fee', {
      auth: crypto.auth,
      body: { internalAccountId: usdc, currency: 'USDC', cryptoNetwork: 'SOLANA', amount: 1_000_000, destinationAddress: SOLANA },
    });
    const quote = await m('createQuote', 'POST', '/quotes', {
      auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: usd },
        destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    await m('listQuotes', 'GET', '/quotes', { auth });
    await m('getQuoteById', 'GET', `/quotes/${quote.body.id}`, { auth });
    await m('executeQuote', 'POST', `/quotes/${quote.body.id}/execute`, { auth, headers: { 'Idempotency-Key': idemKey() } });
    const transferBody = { source: { accountId: usd }, destination: { accountId: ext.body.id }, amount: 1_000 };
    await m('createTransferOut', 'POST', '/transfer-out', { auth, headers: { 'Idempotency-Key': idemKey() }, body: transferBody });
    const transferIn = await m('createTransferIn', 'POST', '/transfer-in', {
      auth,
      headers: { 'Idempotency-Key': idemKey() },
      body: { source: { accountId: ext.body.id }, destination: { accountId: usd }, amount: 1_000 },
    });
    await m('listTransactions', 'GET', '/transactions?limit=5', { auth });
    await m('getTransactionById', 'GET', `/transactions/${transferIn.body.id}`, { auth });
    await m('getTransactionHistory', 'GET', `/transactions/${transferIn.body.id}/history`, { auth });

    // --- webhooks and the sandbox ---
    await m('sendWebhookTest', 'POST', '/webhooks/test', { auth });
    await m('sendTestWebhook', 'POST', '/sandbox/webhooks/test', { auth });
    await m('listWebhookDeliveries', 'GET', '/webhooks/deliveries?limit=5', { auth });
    const deliveries = await api('GET', '/webhooks/deliveries?limit=1', { auth });
    await m('getWebhookDelivery', 'GET', `/webhooks/deliveries/${deliveries.body.data[0].id}`, { auth });
    await m('resendWebhookDelivery', 'POST', `/webhooks/deliveries/${deliveries.body.data[0].id}/resend`, { auth });
    await m('replayWebhookDeliveries', 'POST', '/webhooks/deliveries/replay', { auth, body: { type: 'TEST' } });
    await m('sendSandboxWebhook', 'POST', '/sandbox/webhooks/send', { auth, body: { type: 'TEST', data: {}, mode: 'DUPLICATE' } });
    const realtime = await createQuote(p, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    await m('sandboxSend', 'POST', '/sandbox/send', { auth, body: { quoteId: realtime.id, currencyCode: 'USD' } });
    await m('sandboxReceive', 'POST', '/sandbox/uma/receive', {
      auth,
      body: {
        senderUmaAddress: '$sender@sender.test',
        receiverUmaAddress: customer.umaAddress,
        receivingCurrencyCode: 'USD',
        receivingCurrencyAmount: 100,
      },
    });

    // --- embedded wallets ---
    const w = await newWallet('sandbox', p);
    const account = enc(w.accountId);
    await m('listAuthCredentials', 'GET', `/auth/credentials?accountId=${account}`, { auth });
    const email = await emailCredential(w);
    await m('challengeAuthCredential', 'POST', `/auth/credentials/${email.id}/challenge`, { auth, body: {} });
    await m('verifyAuthCredential', 'POST', `/auth/credentials/${email.id}/verify`, {
      auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
    });
    await m('listSandboxEmails', 'GET', `/sandbox/emails?to=${enc(w.email)}`, { auth });
    // The sandbox code: a fresh e-mail would be refused (one code per 30 s).
    const s = await otpSession(w, { otp: '000000' });
    const passkey = new SoftPasskey();
    const challenge = btoa('platform-registration-challenge-0123456789').replace(/=+$/, '');
    const added = await signedM(
      'createAuthCredential',
      w,
      'POST',
      '/auth/credentials',
      { type: 'PASSKEY', accountId: w.accountId, nickname: 'Laptop', challenge, attestation: passkey.register(challenge) },
      s.key,
    );
    await signedM('revokeAuthCredential', w, 'DELETE', `/auth/credentials/${added.body.id}`, undefined, s.key);
    await m('listAuthSessions', 'GET', `/auth/sessions?accountId=${account}`, { auth });
    await signedM('updateInternalAccount', w, 'PATCH', `/internal-accounts/${w.accountId}`, { privateEnabled: true }, s.key);
    await signedM(
      'exportInternalAccount',
      w,
      'POST',
      `/internal-accounts/${w.accountId}/export`,
      { clientPublicKey: newWalletClient().clientPublicKey },
      s.key,
    );
    const other = await otpSession(w, { otp: '000000' });
    await signedM(
      'refreshAuthSession',
      w,
      'POST',
      `/auth/sessions/${other.session.id}/refresh`,
      { clientPublicKey: newWalletClient().clientPublicKey },
      other.key,
    );
    await signedM('revokeAuthSession', w, 'DELETE', `/auth/sessions/${other.session.id}`, undefined, s.key);

    // --- agents ---
    const a = await newAgent({ p });
    const agentUsd = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'USD').id as string;
    const agentEur = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'EUR').id as string;
    await fund(p, agentUsd, 100_000);
    const bearer = { auth: a.bearer };
    await m('getAgentMe', 'GET', '/agents/me', bearer);
    await m('agentListInternalAccounts', 'GET', '/agents/me/internal-accounts', bearer);
    const agentExt = await m('agentCreateExternalAccount', 'POST', '/agents/me/external-accounts', {
      ...bearer,
      body: { currency: 'USD', accountInfo: bankInfo('USD', '001') },
    });
    await m('agentListExternalAccounts', 'GET', '/agents/me/external-accounts', bearer);
    await m('agentGetExternalAccount', 'GET', `/agents/me/external-accounts/${agentExt.body.id}`, bearer);
    const agentSpare = await api('POST', '/agents/me/external-accounts', {
      ...bearer,
      body: { currency: 'USD', accountInfo: bankInfo('USD', '002') },
    });
    await m('agentDeleteExternalAccount', 'DELETE', `/agents/me/external-accounts/${agentSpare.body.id}`, bearer);
    const agentQuote = await m('agentCreateQuote', 'POST', '/agents/me/quotes', {
      ...bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: agentUsd },
        destination: { destinationType: 'ACCOUNT', accountId: agentEur },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    await m('agentGetQuote', 'GET', `/agents/me/quotes/${agentQuote.body.id}`, bearer);
    await m('agentExecuteQuote', 'POST', `/agents/me/quotes/${agentQuote.body.id}/execute`, bearer);
    const agentTransfer = { source: { accountId: agentUsd }, destination: { accountId: agentExt.body.id }, amount: 1_000 };
    const action = await m('agentCreateTransferOut', 'POST', '/agents/me/transfer-out', {
      ...bearer,
      headers: { 'Idempotency-Key': idemKey() },
      body: agentTransfer,
    });
    await m('agentCreateTransferIn', 'POST', '/agents/me/transfer-in', {
      ...bearer,
      body: { source: { accountId: agentExt.body.id }, destination: { accountId: agentUsd }, amount: 1_000 },
    });
    await m('agentListActions', 'GET', '/agents/me/actions', bearer);
    await m('agentGetAction', 'GET', `/agents/me/actions/${action.body.id}`, bearer);
    await m('agentListTransactions', 'GET', '/agents/me/transactions', bearer);
    await m('agentGetTransaction', 'GET', `/agents/me/transactions/${action.body.transaction.id}`, bearer);

    await m('listAgents', 'GET', '/agents', { auth });
    await m('getAgentById', 'GET', `/agents/${a.agentId}`, { auth });
    await m('updateAgent', 'PATCH', `/agents/${a.agentId}`, { auth, body: { name: 'Renamed bot' } });
    await m('updateAgentPolicy', 'PATCH', `/agents/${a.agentId}/policy`, { auth, body: { defaultExecutionMode: 'APPROVAL_REQUIRED' } });
    const pendingTx = async () => {
      const res = await api('POST', '/agents/me/transfer-out', { ...bearer, body: agentTransfer });
      expect(res.body.status).toBe('PENDING_APPROVAL');
      const [row] = await db().select().from(agentActions).where(eq(agentActions.id, res.body.id));
      return { actionId: res.body.id as string, transactionId: row!.transactionId! };
    };
    const [one, two, three, four] = [await pendingTx(), await pendingTx(), await pendingTx(), await pendingTx()];
    await m('listAgentApprovals', 'GET', '/agents/approvals', { auth });
    await m('approveAgentAction', 'POST', `/agents/${a.agentId}/actions/${one.actionId}/approve`, { auth });
    await m('rejectAgentAction', 'POST', `/agents/${a.agentId}/actions/${two.actionId}/reject`, { auth, body: { reason: 'No' } });
    await m('approvePendingPayment', 'POST', `/transactions/${three.transactionId}/approve`, { auth });
    await m('rejectPendingPayment', 'POST', `/transactions/${four.transactionId}/reject`, { auth });

    const spareAgent = await api('POST', '/agents', { auth, body: { name: 'Spare', customerId: a.customerId, policy: policy() } });
    expect(spareAgent.status).toBe(201);
    const created = await m('createAgent', 'POST', '/agents', {
      auth,
      body: { name: 'Another', customerId: a.customerId, policy: policy() },
    });
    const regenerated = await m('regenerateAgentDeviceCode', 'POST', `/agents/${created.body.agent.id}/device-codes`, { auth });
    await m('getAgentDeviceCodeStatus', 'GET', `/agents/device-codes/${regenerated.body.code}/status`, { auth });
    await m('redeemAgentDeviceCode', 'POST', `/agents/device-codes/${regenerated.body.code}/redeem`);
    await m('deleteAgent', 'DELETE', `/agents/${spareAgent.body.agent.id}`, { auth });

    // --- the sandbox's clock and reset, last: they change everything above ---
    const doomed = await api('POST', '/customers', { auth, body: individualBody() });
    await m('deleteCustomerById', 'DELETE', `/customers/${doomed.body.id}`, { auth });
    // A rule for an operation nothing below calls: deleted before the end, it changes no one's answer.
    const fault = await m('createSandboxFault', 'POST', '/sandbox/faults', {
      auth,
      body: { match: { method: 'GET', path: '/beneficial-owners/{beneficialOwnerId}' }, effect: { type: 'ERROR', status: 503 } },
    });
    await m('listSandboxFaults', 'GET', '/sandbox/faults', { auth });
    await m('getSandboxFault', 'GET', `/sandbox/faults/${fault.body.id}`, { auth });
    await m('deleteSandboxFault', 'DELETE', `/sandbox/faults/${fault.body.id}`, { auth });
    await m('deleteSandboxFaults', 'DELETE', '/sandbox/faults', { auth });
    await m('advanceSandboxClock', 'POST', '/sandbox/clock/advance', { auth, body: { seconds: 1 } });
    await m('getSandboxClock', 'GET', '/sandbox/clock', { auth });
    await m('getSandboxMagicValues', 'GET', '/sandbox/magic-values', { auth });
    const snapshot = await m('createSandboxSnapshot', 'POST', '/sandbox/snapshots', { auth, body: { name: 'measured' } });
    await m('listSandboxSnapshots', 'GET', '/sandbox/snapshots', { auth });
    await m('getSandboxSnapshot', 'GET', `/sandbox/snapshots/${snapshot.body.id}`, { auth });
    await m('restoreSandboxSnapshot', 'POST', `/sandbox/snapshots/${snapshot.body.id}/restore`, { auth });
    await m('deleteSandboxSnapshot', 'DELETE', `/sandbox/snapshots/${snapshot.body.id}`, { auth });
    // After the snapshots: its customer's wallet would be one more for them to read.
    await m('loadSandboxFixtures', 'POST', '/sandbox/fixtures', {
      auth,
      body: { customers: [{ ...individualBody(), balances: { USD: 100 } }] },
    });
    await m('sandboxReset', 'POST', '/sandbox/reset', { auth });

    // --- the operator's providers (a production deployment with its rail and identity provider) ---
    const production = {
      SERVICE_ENV: 'production',
      RAIL_URL,
      RAIL_SECRET,
      IDENTITY_PROVIDER_URL: IDENTITY_URL,
      IDENTITY_PROVIDER_SECRET: IDENTITY_SECRET,
    };
    const payer = await customerWithAccounts(p);
    await fund(p, payer.accounts.USD!, 10_000);
    const bank = await externalAccount(p, payer.customer.id, 'USD', '123');
    const payout = await measured(
      'POST',
      '/transfer-out',
      { auth, body: { source: { accountId: payer.accounts.USD }, destination: { accountId: bank }, amount: 1_000 } },
      production,
    );
    expect(payout.body.status, JSON.stringify(payout.body)).toBe('PROCESSING');
    await m(
      'reportRailOutcome',
      'POST',
      '/providers/rail/outcomes',
      await signedOutcome({ paymentId: payout.body.id, platformId: p.id, status: 'COMPLETED' }),
      production,
    );
    // A business: an individual of this (non-regulated) platform is verified through the hosted KYC link instead.
    const reviewed = (await api('POST', '/customers', { auth, body: businessBody() })).body;
    const submitted = await measured('POST', '/verifications', { auth, body: { customerId: reviewed.id } }, production);
    expect(submitted.body.verificationStatus, JSON.stringify(submitted.body)).toBe('IN_PROGRESS');
    const approved = { verificationId: submitted.body.id, platformId: p.id, status: 'APPROVED' };
    await m(
      'reportIdentityOutcome',
      'POST',
      '/providers/identity/outcomes',
      await signedOutcome(approved, { secret: IDENTITY_SECRET, purpose: 'identity-outcome' }),
      production,
    );
    // A production KYC link (the provider's page) and its outcome stay within the same operations' budgets.
    const withPage = { ...production, IDENTITY_PROVIDER_KYC_URL: 'https://kyc.provider.test/start' };
    const individual = (await api('POST', '/customers', { auth, body: individualBody() })).body;
    const link = await measured('POST', `/customers/${individual.id}/kyc-link`, { auth, body: {} }, withPage);
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    expect(link.cost.d1).toBeLessThanOrEqual(BUDGETS.createCustomerKycLink!.d1);
    const kycLinkId = new URL(link.body.kycUrl).searchParams.get('kycLinkId');
    const linkOutcome = { kycLinkId, platformId: p.id, status: 'APPROVED' };
    const reported = await measured(
      'POST',
      '/providers/identity/outcomes',
      await signedOutcome(linkOutcome, { secret: IDENTITY_SECRET, purpose: 'identity-outcome' }),
      withPage,
    );
    expect(reported.body, JSON.stringify(reported.body)).toMatchObject({ applied: true, kycStatus: 'APPROVED' });
    expect(reported.cost.d1).toBeLessThanOrEqual(BUDGETS.reportIdentityOutcome!.d1);
  });

  it('covers every operation of /openapi.json, and each stays within its budget', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const operations = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(
      operations.filter((op) => !BUDGETS[op]),
      'operations without a budget',
    ).toEqual([]);
    expect(Object.keys(BUDGETS).sort()).toEqual([...operations].sort());
    expect([...seen.keys()].sort()).toEqual([...operations].sort());
    const over = [...seen].filter(([op, r]) => r.cost.d1 > BUDGETS[op]!.d1 || r.cost.account.length > BUDGETS[op]!.account);
    expect(
      over.map(([op, r]) => `${op}: ${r.cost.d1} D1, ${r.cost.account.length} account (budget ${JSON.stringify(BUDGETS[op])})`),
    ).toEqual([]);
    const overRows = [...seen].filter(([op, r]) => r.cost.rowsRead > rowsBudget(op, r));
    const explained = await Promise.all(
      overRows.map(async ([op, r]) => `${op}: ${r.cost.rowsRead} rows read (budget ${rowsBudget(op, r)})${await scans(r.cost)}`),
    );
    expect(explained).toEqual([]);
  });

  it('answers every operation with the body its /openapi.json response declares', () => {
    expect(seen.size, 'the calls above ran').toBeGreaterThan(0);
    expect([...drift.values()]).toEqual([]);
  });

  it('the response check refuses a field, a status or a body the operation does not declare', () => {
    const tx = bodies.get('getTransactionById') as Record<string, Record<string, unknown>>;
    expect(undeclared('getTransactionById', 200, tx)).toBeUndefined();
    expect(undeclared('getTransactionById', 200, { ...tx, extra: 1 })).toMatch(/^getTransactionById 200: .*extra/);
    const nested = { ...tx, receivedAmount: { ...tx.receivedAmount, extra: 1 } };
    expect(undeclared('getTransactionById', 200, nested)).toMatch(/receivedAmount.*extra/);
    expect(undeclared('getTransactionById', 200, { ...tx, receivedAmount: undefined })).toMatch(/receivedAmount/);
    expect(undeclared('getTransactionById', 201, tx)).toMatch(/answered 201, which it does not declare/);
    expect(undeclared('deleteTokenById', 204, '')).toBeUndefined();
    expect(undeclared('deleteTokenById', 204, { id: 'x' })).toMatch(/declares without one/);
  });
});

/** Where a request's rows went: its statements by rows read, with the plan lines that read a whole table or index. */
async function scans(cost: Cost): Promise<string> {
  const lines: string[] = [];
  for (const { query, params, rowsRead } of [...cost.sql].sort((a, b) => (b.rowsRead ?? 0) - (a.rowsRead ?? 0)).slice(0, 3)) {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query}`)
      .bind(...params)
      .all<{ detail: string }>()
      .catch(() => ({ results: [] as { detail: string }[] }));
    const bad = plan.results
      .map((p) => p.detail)
      .filter((d) => /^SCAN (?!CONSTANT ROW)(?!json_each)(?!\(subquery)(?!\d+-ROW VALUES)/.test(d));
    lines.push(`\n    ${rowsRead} rows: ${query.slice(0, 200)}${bad.length ? `  [${bad.join('; ')}]` : ''}`);
  }
  return lines.join('');
}

// The table `npm run round-trips` reads (lines starting with "| ").
afterAll(() => {
  const rows = [...seen].sort(([a], [b]) => a.localeCompare(b));
  const lines = [
    '| Operation | Request | D1 round trips | Account calls | Rows read | Rows written | Budget (D1, account, rows read) |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(([op, r]) => {
      const path = r.path
        .split('?')[0]!
        .replace(/[A-Za-z]+:[0-9a-f-]{36}/g, '{id}')
        .replace(/\/device-codes\/[A-Z0-9-]+\//, '/device-codes/{code}/')
        .replace(/\/invitations\/[0-9a-f]{16}/, '/invitations/{code}')
        .replace(/\/receiver\/uma\/[^/]+$/, '/receiver/uma/{receiverUmaAddress}');
      const b = BUDGETS[op]!;
      const rows = PER_ROW_WRITTEN[op] !== undefined ? `${PER_ROW_WRITTEN[op]} per row written` : `${rowsBudget(op, r)}`;
      return `| ${op} | \`${r.method} ${path}\` | ${r.cost.d1} | ${r.cost.account.length} | ${r.cost.rowsRead} | ${r.cost.rowsWritten} | ${b.d1}, ${b.account}, ${rows} |`;
    }),
  ];
  console.log(`ROUND-TRIPS-TABLE-START\n${lines.join('\n')}\nROUND-TRIPS-TABLE-END`);
});
