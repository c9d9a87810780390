// Data the scenarios of scripts/bench/scenarios.mjs set up through the API, as an integrator would.
import { createECDH, randomUUID } from 'node:crypto';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';

/** Tells this bench run's ids apart from any other's (platformCustomerIds, domains, UMA addresses). */
export const RUN = Date.now().toString(36);
let seq = 0;
export const unique = (prefix) => `${prefix}-${RUN}-${(seq++).toString(36)}`;

const ADDRESS = { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };

export const customerBody = (platformCustomerId, extra = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId,
  fullName: 'Bench Customer',
  birthDate: '1990-01-15',
  nationality: 'US',
  address: ADDRESS,
  ...extra,
});

/** A scenario's `ctx.api` as the platform whose credentials are `auth`: `(method, path, body?, headers?)` -> `{status, body, headers}`. */
export function platformApi(apiBase, auth) {
  return async (method, path, body, headers = {}) => {
    const r = await fetch(`${apiBase}${path}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: r.status, body: parsed, headers: r.headers };
  };
}

/** `ctx.api` that throws unless the status is `expected`. */
export async function must(ctx, expected, method, path, body, headers) {
  const r = await ctx.api(method, path, body, headers);
  if (r.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Loads `count` providers into the directory through the operator endpoint, 500 (its maximum) per call. */
export async function loadUmaProviders(ctx, count) {
  for (let from = 0; from < count; from += 500) {
    const providers = [];
    for (let i = from; i < Math.min(count, from + 500); i++) {
      const n = String(i).padStart(5, '0');
      providers.push({
        name: `Bench Provider ${n}`,
        domain: `p${n}.${RUN}.bench-uma.test`,
        supportedRegions: ['US', 'MX'],
        supportedCurrencies: ['USD', 'MXN'],
        allowListStatus: i % 10 !== 0,
      });
    }
    await must(ctx, 200, 'POST', '/operator/uma-providers', { providers }, { authorization: `Bearer ${ctx.operatorToken}` });
  }
}

/** The cursor of page `page` of GET /uma-providers (default limit), found by following nextCursor. */
export async function umaProvidersCursor(ctx, page) {
  let cursor;
  for (let p = 1; p < page; p++) {
    const body = await must(ctx, 200, 'GET', `/uma-providers${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (!body.hasMore) throw new Error(`the directory has only ${p} pages`);
    cursor = body.nextCursor;
  }
  return cursor;
}

/** A customer with an e-mail (so an EMBEDDED_WALLET account) and its internal accounts by currency. */
export async function customerWithAccounts(ctx) {
  const id = unique('bench');
  const customer = await must(ctx, 201, 'POST', '/customers', customerBody(id, { email: `${id}@example.com` }));
  const list = await must(ctx, 200, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&limit=100`);
  const accounts = {};
  for (const a of list.data) accounts[a.type === 'EMBEDDED_WALLET' ? 'wallet' : a.balance.currency.code] = a.id;
  return { customer, accounts };
}

/** A USD account funded with `amount` cents and a USD bank account of the same customer ending in 001 (sandbox: completes at once). */
export async function fundedTransferPair(ctx, amount = 100_000_000_000) {
  const { customer, accounts } = await customerWithAccounts(ctx);
  await must(ctx, 200, 'POST', `/sandbox/internal-accounts/${accounts.USD}/fund`, { amount });
  const digits = String(Date.now() % 1e9).padStart(9, '0');
  const external = await must(ctx, 201, 'POST', '/customers/external-accounts', {
    customerId: customer.id,
    currency: 'USD',
    accountInfo: {
      accountType: 'USD_ACCOUNT',
      accountNumber: `${digits}001`,
      routingNumber: '021000021',
      bankName: 'Bench Bank',
      beneficiary: {
        beneficiaryType: 'INDIVIDUAL',
        fullName: 'Bench Customer',
        birthDate: '1990-01-15',
        nationality: 'US',
        address: ADDRESS,
      },
    },
  });
  return { customer, source: accounts.USD, destination: external.id };
}

/**
 * A connected agent (its device code redeemed) for a customer with a funded USD account and a USD bank
 * account ending in 001: AUTO up to `threshold` cents, approval above it; no daily or monthly limit.
 */
export async function benchAgent(ctx, threshold) {
  const pair = await fundedTransferPair(ctx);
  const created = await must(ctx, 201, 'POST', '/agents', {
    name: unique('bench agent'),
    customerId: pair.customer.id,
    policy: {
      permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS'],
      defaultExecutionMode: 'AUTO',
      spendingLimits: { currency: 'USD', perTransactionLimit: 100_000_000 },
      approvalThresholds: { amount: threshold, currency: 'USD' },
    },
  });
  const redeemed = await must(ctx, 200, 'POST', `/agents/device-codes/${created.deviceCode.code}/redeem`);
  return { ...pair, agentId: created.agent.id, bearer: `Bearer ${redeemed.accessToken}` };
}

/** A fresh uncompressed P-256 public key in hex (node's native ECDH: cheap enough for one per request). */
export function freshClientPublicKey() {
  const ecdh = createECDH('prime256v1');
  return ecdh.generateKeys('hex', 'uncompressed');
}

/** The EMAIL_OTP credential of a wallet account (created on the account's first use). */
export async function emailCredential(ctx, walletAccountId) {
  const list = await must(ctx, 200, 'GET', `/auth/credentials?accountId=${encodeURIComponent(walletAccountId)}`);
  const credential = list.data.find((c) => c.type === 'EMAIL_OTP');
  if (!credential) throw new Error('the wallet has no EMAIL_OTP credential');
  return credential;
}

/**
 * A session whose key the bench holds, as a device gets one: a client key pair from @turnkey/crypto,
 * verify with the sandbox OTP, and `encryptedSessionSigningKey` opened with `decryptCredentialBundle`.
 */
export async function openSession(ctx, credentialId) {
  const client = generateP256KeyPair();
  const session = await must(ctx, 200, 'POST', `/auth/credentials/${credentialId}/verify`, {
    type: 'EMAIL_OTP',
    otp: '000000',
    clientPublicKey: client.publicKeyUncompressed,
  });
  const privateKey = decryptCredentialBundle(session.encryptedSessionSigningKey, client.privateKey);
  const publicKey = Buffer.from(getPublicKey(privateKey, true)).toString('hex');
  return { session, stamper: new ApiKeyStamper({ apiPublicKey: publicKey, apiPrivateKey: privateKey }) };
}

/** A CSV of `rows` valid individual customers in the bulk import's columns (src/customers/bulk-rows.ts). */
export function customersCsv(rows, umaDomain) {
  const tag = randomUUID().slice(0, 8);
  const lines = ['umaAddress,platformCustomerId,customerType,fullName,birthDate,email,addressLine1,city,state,postalCode,country'];
  for (let i = 0; i < rows; i++) {
    const id = `bulk-${tag}-${i}`;
    lines.push(
      `$${id}@${umaDomain},${id},INDIVIDUAL,Bulk Customer ${i},1990-01-15,${id}@example.com,1 Market St,San Francisco,CA,94105,US`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Waits until no webhook delivery of the bench platform is PENDING (the queue consumer has caught up). */
export async function webhooksIdle(ctx, timeoutMs = 120_000) {
  const started = Date.now();
  for (;;) {
    const page = await must(ctx, 200, 'GET', '/webhooks/deliveries?status=PENDING&limit=1');
    if (page.data.length === 0) return;
    if (Date.now() - started > timeoutMs) throw new Error(`webhook deliveries still pending after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
