import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import worker from '../../src';
import { database } from '../../src/db/client';
import { settings } from '../../src/env';
import { createPlatform } from '../../src/platform/service';
import { PlatformCreate } from '../../src/platform/schema';
import { TEST_ORIGIN, TEST_RP_ID } from './passkey';
import referenceErrors from '../http/reference-errors.json';

export const ORIGIN = 'http://service.test';
export const BASE = `${ORIGIN}/2025-10-13`;
export const OPERATOR = 'Bearer test-operator-token';

export interface ApiResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  auth?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding), for malformed-input tests. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

/** One HTTP call through the Worker's real fetch handler. */
export async function api<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.Authorization = opts.auth;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await SELF.fetch(path.startsWith('http') ? path : `${BASE}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  if (res.headers.get('Content-Type')?.includes('application/json') && text) parsed = JSON.parse(text);
  expectInContract(res.status, parsed);
  return { status: res.status, body: parsed, headers: res.headers };
}

const closedEnums = referenceErrors as Record<string, string[] | undefined>;
/**
 * Every error answer any test sees has a code of the reference's enum where the reference closes its status,
 * as a validation proxy loaded with the reference would check (the errors table, src/http/errors.ts).
 */
function expectInContract(status: number, body: any) {
  const allowed = closedEnums[status];
  if (allowed && typeof body?.code === 'string')
    expect(allowed, `${status} ${body.code} is outside the reference's enum`).toContain(body.code);
}

/** A call through the Worker's own fetch handler with some bindings replaced (e.g. production settings). */
export async function workerApi(method: string, path: string, overrides: Partial<typeof env>, opts: CallOptions = {}): Promise<ApiResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.Authorization = opts.auth;
  let body = opts.raw;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { method, headers, body }), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  const answer = text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text;
  expectInContract(res.status, answer);
  return { status: res.status, body: answer, headers: res.headers };
}

/**
 * A call through the Worker's fetch handler with production settings (SERVICE_ENV=production), deployed
 * with the test passkey's relying party (production has no WebAuthn default).
 */
export const productionApi = (method: string, path: string, opts: CallOptions = {}) =>
  workerApi(method, path, { SERVICE_ENV: 'production', WEBAUTHN_RP_ID: TEST_RP_ID, WEBAUTHN_ORIGINS: TEST_ORIGIN }, opts);

export function basic(clientId: string, clientSecret: string): string {
  return `Basic ${btoa(`${clientId}:${clientSecret}`)}`;
}

export const SANDBOX_CURRENCIES = ['USD', 'EUR', 'MXN', 'BRL', 'INR'].map((currencyCode) => ({
  currencyCode,
  minAmount: 1,
  maxAmount: 100_000_000,
  enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
  requiredCounterpartyFields: [],
}));

export interface TestPlatform {
  id: string;
  auth: string;
  clientId: string;
  clientSecret: string;
  tokenId: string;
  umaDomain: string;
  /** Its data database (`DB` unless the test names another: `newPlatform({ home: 'DB_2' })`). */
  home: string;
}

/**
 * A fresh platform through the operator endpoint's service, so every test owns its data (its UMA domain too: they
 * are unique). It lives in the first home, where a test's own reads of `env.DB` find it, unless the test names
 * another (`home: 'DB_2'`).
 */
export async function newPlatform(overrides: Record<string, unknown> = {}): Promise<TestPlatform> {
  // Seeded directly through the platform service (the operator endpoint's own code, without the HTTP
  // round trip): onboarding itself is tested through POST /operator/platforms in test/platform/.
  const input = PlatformCreate.parse({
    name: 'Test platform',
    umaDomain: `${crypto.randomUUID()}.platform.test`,
    supportedCurrencies: SANDBOX_CURRENCIES,
    embeddedWalletConfig: { appName: 'Test Wallet' },
    home: 'DB',
    ...overrides,
  });
  const { platform, token: t } = await createPlatform(env, database(env.DB), input, Date.now(), settings(env));
  return {
    id: platform.id,
    auth: basic(t.clientId, t.clientSecret),
    clientId: t.clientId,
    clientSecret: t.clientSecret,
    tokenId: t.id,
    umaDomain: platform.config.umaDomain,
    home: platform.home,
  };
}

/** A token of `platform` with exactly these permissions. */
export async function tokenWith(platform: TestPlatform, permissions: string[]): Promise<string> {
  const res = await api('POST', '/tokens', { auth: platform.auth, body: { name: `perm-${permissions.join('-') || 'none'}`, permissions } });
  expect(res.status).toBe(201);
  return basic(res.body.clientId, res.body.clientSecret);
}

/** Asserts the spec's error shape and returns the body; `reason` is the finer case named in `details.reason`. */
export function expectError(res: ApiResult, status: number, code?: string, reason?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('Content-Type')).toContain('application/json');
  expect(res.body).toMatchObject({ status, code: expect.any(String), message: expect.any(String) });
  if (code) expect(res.body.code, JSON.stringify(res.body)).toBe(code);
  if (reason) expect(res.body.details?.reason, JSON.stringify(res.body)).toBe(reason);
  return res.body;
}

/** Names of the fields a 400 INVALID_INPUT reports. */
export function failingFields(res: ApiResult): string[] {
  return [...new Set<string>((res.body?.details?.fields ?? []).map((f: { field: string }) => f.field))];
}

/** Each page of a list `get` reads, `limit` at a time, following `nextCursor` (every page answers 200); at most 50. */
export async function* listPages(get: (pathAndQuery: string) => Promise<ApiResult>, path: string, limit: number) {
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    yield res.body;
    if (!res.body.hasMore) return;
    cursor = res.body.nextCursor;
  }
  throw new Error(`${path}: more than 50 pages`);
}
