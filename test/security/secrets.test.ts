import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import worker from '../../src/index';
import { database } from '../../src/db/client';
import { homeD1 } from '../../src/db/homes';
import { agentDeviceCodes, agentTokens, apiTokens } from '../../src/db/schema';
import type { AccountDO } from '../../src/wallet/account-do';
import { BASE, newPlatform } from '../support/api';
import { newWallet, emailCredential, latestOtp } from '../support/wallets';
import { newAgent, policy } from '../support/agents';
import { newWalletClient, openBundle, openSessionKey, stamp } from '../support/wallet-client';

/** Calls the Worker with debug logging on, capturing every log line it writes. */
async function logged(
  method: string,
  path: string,
  opts: { auth?: string; body?: unknown; headers?: Record<string, string>; env?: Partial<typeof env> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.Authorization = opts.auth;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    { ...env, LOG_LEVEL: 'debug', ...opts.env },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

afterEach(() => vi.restoreAllMocks());

describe('secrets never leak', () => {
  it('no secret, key, code or token appears in any log line', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    }
    const p = await newPlatform();
    const token = await logged('POST', '/tokens', { auth: p.auth, body: { name: 't', permissions: ['VIEW'] } });
    const w = await newWallet('sandbox', p);
    const cred = await emailCredential(w);
    await logged('POST', `/auth/credentials/${cred.id}/challenge`, { auth: p.auth });
    const otp = await latestOtp(w);
    const client = newWalletClient();
    const session = await logged('POST', `/auth/credentials/${cred.id}/verify`, {
      auth: p.auth,
      body: { type: 'EMAIL_OTP', otp, clientPublicKey: client.clientPublicKey },
    });
    const key = openSessionKey(client, session.body.encryptedSessionSigningKey);
    const exportClient = newWalletClient();
    const challenge = await logged('POST', `/internal-accounts/${w.accountId}/export`, {
      auth: p.auth,
      body: { clientPublicKey: exportClient.clientPublicKey },
    });
    const exported = await logged('POST', `/internal-accounts/${w.accountId}/export`, {
      auth: p.auth,
      body: { clientPublicKey: exportClient.clientPublicKey },
      headers: { 'Service-Wallet-Signature': await stamp(key, challenge.body.payloadToSign), 'Request-Id': challenge.body.requestId },
    });
    const walletSecret = openBundle(exportClient, exported.body.encryptedWalletCredentials);
    const a = await newAgent({ p });

    expect(lines.some((l) => l.includes('"msg":"request"'))).toBe(true); // logging really was on
    const everything = lines.join('\n');
    for (const secret of [
      token.body.clientSecret,
      p.clientSecret,
      otp,
      key.privateKey,
      session.body.encryptedSessionSigningKey,
      walletSecret,
      a.bearer.slice(7),
    ]) {
      expect(everything).not.toContain(secret);
    }
  });

  it('a device code in the path never reaches a log line, on any route or error that names it', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
    }
    const p = await newPlatform();
    const customer = await logged('POST', '/customers', {
      auth: p.auth,
      body: { customerType: 'INDIVIDUAL', platformCustomerId: `log-${Date.now()}` },
    });
    const created = await logged('POST', '/agents', {
      auth: p.auth,
      body: { name: 'Log bot', customerId: customer.body.id, policy: policy() },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const code: string = created.body.deviceCode.code;
    const status = await logged('GET', `/agents/device-codes/${code}/status`, { auth: p.auth });
    expect(status.body).toEqual({ code, redeemed: false });
    expect((await logged('DELETE', `/agents/device-codes/${code}/status`, { auth: p.auth })).status).toBe(405);
    expect((await logged('GET', `/agents/device-codes/${code}/statu`, { auth: p.auth })).status).toBe(404);
    // An unexpected failure on the route: the error line names the path too.
    expect((await logged('GET', `/agents/device-codes/${code}/status`, { auth: p.auth, env: { DB: undefined } })).status).toBe(500);
    expect((await logged('POST', `/agents/device-codes/${code}/redeem`)).status).toBe(200);

    expect(lines.some((l) => l.includes('"msg":"unhandled error"'))).toBe(true);
    const requests = lines.filter((l) => l.includes('"msg":"request"'));
    // status, 405, 404, 500, redeem: each request still logged, the code by its name.
    expect(requests.filter((l) => l.includes('/agents/device-codes/:code/'))).toHaveLength(5);
    expect(lines.join('\n')).not.toContain(code);
  });

  it.each(['DB', 'DB_2'])(
    'secrets and codes are stored only as hashes; the wallet secret only encrypted (platform in %s)',
    async (home) => {
      const p = await newPlatform({ home });
      const db = database(homeD1(env, home));
      const [row] = await db.select().from(apiTokens).where(eq(apiTokens.clientId, p.clientId));
      expect(row, 'the token is in its home').toBeDefined();
      expect(row!.secretHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(p.clientSecret);

      const a = await newAgent({ p });
      const tokens = await db.select().from(agentTokens).where(eq(agentTokens.agentId, a.agentId));
      expect(tokens).toHaveLength(1);
      expect(JSON.stringify(tokens)).not.toContain(a.bearer.slice(7));
      const codes = await db.select().from(agentDeviceCodes).where(eq(agentDeviceCodes.agentId, a.agentId));
      expect(codes.length).toBeGreaterThan(0);
      expect(codes.every((c) => /^[0-9a-f]{64}$/.test(c.codeHash))).toBe(true);

      const w = await newWallet('sandbox', p);
      const cred = await emailCredential(w);
      await logged('POST', `/auth/credentials/${cred.id}/challenge`, { auth: p.auth });
      const otp = await latestOtp(w);
      const stub = env.ACCOUNT.get(env.ACCOUNT.idFromName(w.accountId)) as DurableObjectStub<AccountDO>;
      const stored = await runInDurableObject(stub, (_instance, state) => ({
        otp: state.storage.sql.exec('SELECT * FROM otp').toArray(),
        meta: state.storage.sql.exec('SELECT * FROM meta').toArray(),
      }));
      expect(stored.otp).toHaveLength(1);
      expect(JSON.stringify(stored.otp)).not.toContain(otp);
      expect(String(stored.meta[0]!.wallet_secret)).toMatch(/^v1\./);
    },
  );

  it('every answer carrying a secret or key is Cache-Control: no-store', async () => {
    const p = await newPlatform();
    const token = await logged('POST', '/tokens', { auth: p.auth, body: { name: 't', permissions: [] } });
    expect(token.headers.get('Cache-Control')).toBe('no-store');
    const w = await newWallet('sandbox', p);
    const cred = await emailCredential(w);
    const session = await logged('POST', `/auth/credentials/${cred.id}/verify`, {
      auth: p.auth,
      body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey: newWalletClient().clientPublicKey },
    });
    expect(session.headers.get('Cache-Control')).toBe('no-store');
  });
});
