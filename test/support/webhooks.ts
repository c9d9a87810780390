import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult } from 'cloudflare:test';
import { p256 } from '@noble/curves/nist.js';
import { eq } from 'drizzle-orm';
import { vi } from 'vitest';
import worker from '../../src';
import { database } from '../../src/db/client';
import { logger } from '../../src/http/log';
import type { WebhookDeps } from '../../src/webhooks/delivery';
import { webhookDeliveries } from '../../src/db/schema';
import { eventStatements } from '../../src/webhooks/outbox';
import type { WebhookType } from '../../src/webhooks/schema';

/** What delivery needs, in sandbox mode, with the tests' signing key (no answer handlers). */
export const deps = (): WebhookDeps => ({
  db: database(env.DB),
  queue: env.JOBS,
  signingKey: env.WEBHOOK_SIGNING_KEY,
  mode: 'sandbox',
  log: logger('error'),
});

/** A webhook endpoint URL no other test uses, so calls can be told apart. */
export function hookUrl(): string {
  return `https://hooks.test/${crypto.randomUUID()}`;
}

export interface HookCall {
  url: string;
  body: string;
  headers: Headers;
}

const HOOKS = 'https://hooks.test/';
const endpoints = new Map<string, (request: Request) => Promise<Response>>();
/** Every request the Worker sent through `fetch` since the spy was installed (any URL). */
export const outgoing: Request[] = [];
let installed = false;

/**
 * Fakes the platforms' webhook servers at `fetch`, the Worker's only way out: one spy per isolate routes
 * `https://hooks.test/...` to the endpoint a test registered (410 once it is gone, never the network).
 */
export function install() {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    outgoing.push(request);
    if (!request.url.startsWith(HOOKS)) return original(input, init);
    const endpoint = endpoints.get(request.url);
    return endpoint ? endpoint(request) : new Response('gone', { status: 410 });
  });
}

/**
 * A fake endpoint at `url`; `answer` gives the status (or throws for a network error) of the n-th call,
 * or the whole response.
 */
export function fakeEndpoint(url: string, answer: (n: number) => number | Response | Promise<number | Response>) {
  install();
  const calls: HookCall[] = [];
  endpoints.set(url, async (request) => {
    calls.push({ url: request.url, body: await request.text(), headers: request.headers });
    const status = await answer(calls.length);
    if (status instanceof Response) return status;
    return new Response([204, 205, 304].includes(status) ? null : `answer ${calls.length}`, { status });
  });
  return { calls, restore: () => endpoints.delete(url) };
}

/** Writes an event through the outbox, as a state change would. */
export async function writeEvent(
  platformId: string,
  now: number,
  type: WebhookType = 'OUTGOING_PAYMENT.COMPLETED',
  data: Record<string, unknown> = { id: 'Transaction:x' },
) {
  const db = database(env.DB);
  const { statements, eventId } = eventStatements(db, { platformId, type, data, now });
  await db.batch(statements as [any, ...any[]]);
  return eventId;
}

export async function deliveryOf(eventId: string) {
  const db = database(env.DB);
  return (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId)))[0]!;
}

let messageSeq = 0;

/** Runs the real queue consumer on the given jobs (one message each) and returns the ack/retry result. */
export async function consume(...bodies: unknown[]) {
  return consumeIn('sandbox', ...bodies);
}

/** `consume` with the Worker in the given SERVICE_ENV mode. */
export async function consumeIn(mode: 'sandbox' | 'production', ...bodies: unknown[]) {
  const batch = createMessageBatch(
    'payments-platform-jobs',
    bodies.map((body) => ({ id: `m${++messageSeq}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, SERVICE_ENV: mode });
  return getQueueResult(batch, ctx);
}

/** Runs the real cron handler as if fired at `scheduledTime` (wall clock). */
export async function runCron(scheduledTime: number) {
  await worker.scheduled(createScheduledController({ scheduledTime, cron: '* * * * *' }), env);
}

/** Verifies `X-Service-Signature` the way a platform would: WebCrypto, with the PEM from GET /config. */
export async function verifySignature(pem: string, body: string, signatureB64: string): Promise<boolean> {
  const spki = Uint8Array.from(atob(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '')), (ch) => ch.charCodeAt(0));
  const key = await crypto.subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const der = Uint8Array.from(atob(signatureB64), (ch) => ch.charCodeAt(0));
  // WebCrypto takes r||s; the header carries DER.
  const raw = p256.Signature.fromBytes(der, 'der').toBytes('compact');
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, new TextEncoder().encode(body));
}
