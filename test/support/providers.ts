import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { expect, vi } from 'vitest';
import worker from '../../src';
import { PROVIDER_SIGNATURE_HEADER, signProviderMessage, type SignaturePurpose } from '../../src/crypto/provider-signature';
import { handleRail, settle, type Instruction, type RailConfig, type Store } from '../../examples/reference-rail/src/rail';
import { BASE, type ApiResult, type CallOptions } from './api';

/** The secrets the tests' production deployment and its reference rail share (at least 32 characters). */
export const RAIL_SECRET = 'test-rail-secret-0123456789abcdef0123456789';
export const IDENTITY_SECRET = 'test-identity-secret-0123456789abcdef012345';
const RAIL_HOST = 'https://rail.test';
export const RAIL_URL = `${RAIL_HOST}/rail/instructions`;
export const IDENTITY_URL = `${RAIL_HOST}/identity/instructions`;
/** A rate source for production quotes (units per 1 USD). */
const RATES_URL = 'https://rates.test/latest';
const PER_USD = { EUR: 0.5, MXN: 20, BRL: 5, INR: 80, BTC: 0.00001 };
/** The reference rail's page password in the tests. */
export const ADMIN = `Basic ${btoa('operator:test-admin-password')}`;

/** The collection account the reference rail gives for real-time funding in USD. */
export const COLLECTION_ACCOUNT = {
  accountType: 'USD_ACCOUNT',
  accountNumber: '987654321000',
  routingNumber: '026009593',
  bankName: 'Operator Collection Bank',
};

/** An in-memory store for the reference rail. */
function mapStore(): Store & { items: Map<string, Instruction> } {
  const items = new Map<string, Instruction>();
  return {
    items,
    get: async (key) => structuredClone(items.get(key)),
    put: async (item) => void items.set(item.key, structuredClone(item)),
    list: async (limit) => [...items.values()].reverse().slice(0, limit),
  };
}

export interface ProductionWorld {
  /** The bindings of the production deployment (its queue captured). */
  env: typeof env;
  /** One HTTP call to the production deployment. */
  call(method: string, path: string, opts?: CallOptions): Promise<ApiResult>;
  /** Runs every queue message sent so far through the consumer (as the queue would), until none is left. */
  deliver(): Promise<void>;
  /** The cron sweep (what is overdue: retried deliveries), then the queue messages it sent. */
  sweep(): Promise<void>;
  /** The reference rail's instructions, oldest first. */
  instructions(): Instruction[];
  /** The reference rail reports `status` for its instruction `key` (as a person on its page would). */
  settle(key: string, status: string, extra?: { failureReason?: string; reason?: string }): ReturnType<typeof settle>;
  /** Requests that reached the rail's host, with their bodies. */
  railCalls: { url: string; body: string; headers: Headers }[];
  /** Makes the rail's host answer with this instead (a rail that is down), or behave again (undefined). */
  railDown(answer: (() => Response | Promise<Response>) | undefined): void;
  /** The reference rail's whole surface, for its page. */
  rail(request: Request): Promise<Response>;
}

/**
 * A production deployment (SERVICE_ENV=production) on the test database, with the operator's rail and
 * identity provider configured unless told otherwise, played by the reference rail (examples/reference-rail)
 * faked at `fetch`. Its queue is captured: `deliver()` runs the consumer on it with the same bindings.
 */
export function productionWorld(opts: { rail?: boolean; identity?: boolean; overrides?: Partial<typeof env> } = {}): ProductionWorld {
  const messages: MessageSendRequest<unknown>[] = [];
  const queue = {
    send: async (body: unknown, o?: QueueSendOptions) => void messages.push({ body, ...o }),
    sendBatch: async (batch: Iterable<MessageSendRequest<unknown>>) => void messages.push(...batch),
  } as unknown as Queue<unknown>;
  const bindings: typeof env = {
    ...env,
    SERVICE_ENV: 'production',
    JOBS: queue,
    // Mid-market rates from a source faked below (production prices only from RATES_URL).
    RATES_URL: RATES_URL,
    ...(opts.rail === false ? {} : { RAIL_URL, RAIL_SECRET }),
    ...(opts.identity === false ? {} : { IDENTITY_PROVIDER_URL: IDENTITY_URL, IDENTITY_PROVIDER_SECRET: IDENTITY_SECRET }),
    ...opts.overrides,
  };
  const toWorker = async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(request, bindings, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  const store = mapStore();
  const config: RailConfig = {
    railSecret: RAIL_SECRET,
    identitySecret: IDENTITY_SECRET,
    serviceUrl: BASE,
    send: toWorker,
    adminPassword: 'test-admin-password',
    fundingInstructions: { USD: COLLECTION_ACCOUNT },
  };
  const railCalls: ProductionWorld['railCalls'] = [];
  let down: (() => Response | Promise<Response>) | undefined;
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.url === RATES_URL) return Response.json({ base: 'USD', rates: PER_USD });
    if (!request.url.startsWith(`${RAIL_HOST}/`)) return original(input, init);
    railCalls.push({ url: request.url, body: await request.clone().text(), headers: request.headers });
    return down ? down() : handleRail(request, store, config);
  });
  return {
    env: bindings,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.auth) headers.Authorization = o.auth;
      let body = o.raw;
      if (o.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(o.body);
      }
      const res = await toWorker(new Request(`${BASE}${path}`, { method, headers, body }));
      const text = await res.text();
      return {
        status: res.status,
        body: text && res.headers.get('Content-Type')?.includes('json') ? JSON.parse(text) : text,
        headers: res.headers,
      };
    },
    async deliver() {
      for (let round = 0; round < 10 && messages.length; round++) {
        const sent = messages.splice(0);
        const batch = createMessageBatch(
          'payments-platform-jobs',
          sent.map((m, i) => ({ id: `m${round}-${i}`, timestamp: new Date(), attempts: 1, body: m.body })),
        );
        await worker.queue(batch, bindings);
        const result = await getQueueResult(batch, createExecutionContext());
        expect(result.retryMessages, 'messages the consumer failed').toEqual([]);
      }
    },
    async sweep() {
      await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: '* * * * *' }), bindings);
      await this.deliver();
    },
    instructions: () => [...store.items.values()],
    settle: (key, status, extra) => settle(store, config, key, status, extra),
    railCalls,
    railDown: (answer) => void (down = answer),
    rail: (request) => handleRail(request, store, config),
  };
}

/** An outcome signed as a provider would sign it (for forgeries: another secret, purpose or time). */
export async function signedOutcome(
  body: unknown,
  { secret = RAIL_SECRET, purpose = 'rail-outcome', at = Date.now() }: { secret?: string; purpose?: SignaturePurpose; at?: number } = {},
) {
  const raw = JSON.stringify(body);
  return {
    raw,
    headers: { 'Content-Type': 'application/json', [PROVIDER_SIGNATURE_HEADER]: await signProviderMessage(secret, purpose, raw, at) },
  };
}
