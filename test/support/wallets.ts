import { expect } from 'vitest';
import { api, newPlatform, productionApi, type ApiResult, type CallOptions, type TestPlatform } from './api';
import { accountsOf, createCustomer, individualBody, uniqueId } from './customers';
import { newWalletClient, openSessionKey, stamp, type SessionKey, type WalletClient } from './wallet-client';

export type Mode = 'sandbox' | 'production';

/** One call through the Worker's fetch handler, in sandbox (the test default) or production mode. */
export async function call(mode: Mode, method: string, path: string, opts: CallOptions = {}): Promise<ApiResult> {
  return mode === 'sandbox' ? api(method, path, opts) : productionApi(method, path, opts);
}

export interface TestWallet {
  p: TestPlatform;
  customerId: string;
  accountId: string;
  email: string;
  mode: Mode;
}

/** A platform, a customer with an e-mail, and its EMBEDDED_WALLET account. */
export async function newWallet(mode: Mode = 'sandbox', p?: TestPlatform): Promise<TestWallet> {
  const platform = p ?? (await newPlatform());
  const email = `${uniqueId('user')}@example.com`;
  const customer = await createCustomer(platform, individualBody({ email }));
  const wallet = (await accountsOf(platform, customer.id)).find((a) => a.type === 'EMBEDDED_WALLET');
  expect(wallet, 'an EMBEDDED_WALLET account').toBeDefined();
  return { p: platform, customerId: customer.id, accountId: wallet.id, email, mode };
}

export async function credentialsOf(w: TestWallet): Promise<any[]> {
  const res = await call(w.mode, 'GET', `/auth/credentials?accountId=${encodeURIComponent(w.accountId)}`, { auth: w.p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function sessionsOf(w: TestWallet): Promise<any[]> {
  const res = await call(w.mode, 'GET', `/auth/sessions?accountId=${encodeURIComponent(w.accountId)}`, { auth: w.p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function emailCredential(w: TestWallet) {
  const c = (await credentialsOf(w)).find((x) => x.type === 'EMAIL_OTP');
  expect(c).toBeDefined();
  return c;
}

/** The code of the newest OTP e-mail to `to`, read from the sandbox outbox. */
export async function latestOtp(w: TestWallet, to = w.email): Promise<string> {
  const res = await api('GET', `/sandbox/emails?to=${encodeURIComponent(to)}&limit=1`, { auth: w.p.auth });
  expect(res.status).toBe(200);
  const text: string = res.body.data[0]?.text ?? '';
  const code = text.match(/code is ([0-9A-Z]+)\./)?.[1];
  expect(code, `an OTP e-mail to ${to}`).toBeDefined();
  return code!;
}

export interface TestSession {
  session: any;
  key: SessionKey;
  client: WalletClient;
}

/**
 * A session through the real EMAIL_OTP path: challenge (an e-mail with a code), verify with a fresh
 * client key, open encryptedSessionSigningKey with @turnkey/crypto. `otp` overrides the code (in production
 * mode the code must be captured by the caller, e.g. from a stubbed e-mail provider).
 */
export async function otpSession(w: TestWallet, opts: { otp?: string; credentialId?: string } = {}): Promise<TestSession> {
  const credentialId = opts.credentialId ?? (await emailCredential(w)).id;
  let otp = opts.otp;
  if (otp === undefined) {
    const challenge = await call(w.mode, 'POST', `/auth/credentials/${credentialId}/challenge`, { auth: w.p.auth });
    expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
    otp = await latestOtp(w);
  }
  const client = newWalletClient();
  const res = await call(w.mode, 'POST', `/auth/credentials/${credentialId}/verify`, {
    auth: w.p.auth,
    body: { type: 'EMAIL_OTP', otp, clientPublicKey: client.clientPublicKey },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { session: res.body, key: openSessionKey(client, res.body.encryptedSessionSigningKey), client };
}

/** Step 1 of a signed retry: the 202 challenge. */
export async function challengeOf(w: TestWallet, method: string, path: string, body?: unknown) {
  const res = await call(w.mode, method, path, { auth: w.p.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { payloadToSign: string; requestId: string; expiresAt: string; type?: string };
}

/** Both steps of a signed retry, the retry stamped with `key` by @turnkey/api-key-stamper. */
export async function signed(w: TestWallet, method: string, path: string, body: unknown, key: SessionKey): Promise<ApiResult> {
  const challenge = await challengeOf(w, method, path, body);
  return call(w.mode, method, path, {
    auth: w.p.auth,
    body,
    headers: { 'Service-Wallet-Signature': await stamp(key, challenge.payloadToSign), 'Request-Id': challenge.requestId },
  });
}

/** Moves the platform's sandbox clock forward. */
export async function advance(p: TestPlatform, seconds: number) {
  const res = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
