import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { database } from '../../src/db/client';
import { platforms } from '../../src/db/schema';
import { api, expectError, failingFields, newPlatform, OPERATOR, productionApi } from '../support/api';
import { consume, consumeIn, deliveryOf, fakeEndpoint, hookUrl, install, outgoing, writeEvent } from '../support/webhooks';

const T0 = Date.parse('2031-04-01T12:00:00.000Z');
const deliver = (eventId: string) => ({ type: 'webhook.deliver', eventId });

/** The Worker in production mode, called the way the runtime would. */
const production = (method: string, path: string, auth: string, body?: unknown) => productionApi(method, path, { auth, body });

/** Sets a platform's endpoint in D1 directly: a row written before the rules, or under the other mode. */
async function storeEndpoint(platformId: string, url: string) {
  await database(env.DB).update(platforms).set({ webhookEndpoint: url }).where(eq(platforms.id, platformId));
}

/** The requests to `host` the Worker sent after the `mark`-th request. */
const sentTo = (host: string, mark: number) => outgoing.slice(mark).filter((r) => new URL(r.url).hostname === host);

/**
 * Documentation, benchmarking and reserved ranges: no receiver of a platform's lives there. Each range at its
 * first and last address, and the IPv4 ones also as IPv4-mapped, NAT64 and 6to4 IPv6 and as one number.
 */
const RESERVED = [
  'https://192.0.2.0/', // 192.0.2.0/24, TEST-NET-1
  'https://192.0.2.255/',
  'https://[::ffff:192.0.2.1]/',
  'https://[::ffff:c000:2ff]/', // 192.0.2.255
  'https://[64:ff9b::c000:201]/',
  'https://[2002:c000:201::]/',
  'https://3221225985/', // 192.0.2.1
  'https://198.51.100.0/', // 198.51.100.0/24, TEST-NET-2
  'https://198.51.100.255/',
  'https://[::ffff:198.51.100.7]/',
  'https://[::ffff:c633:64ff]/', // 198.51.100.255
  'https://203.0.113.0/', // 203.0.113.0/24, TEST-NET-3
  'https://203.0.113.255/',
  'https://[::ffff:203.0.113.9]/',
  'https://0xcb.0.0x71.9/', // 203.0.113.9
  'https://198.18.0.0/', // 198.18.0.0/15, benchmarking
  'https://198.19.255.255/',
  'https://[::ffff:198.19.255.255]/',
  'https://240.0.0.0/', // 240.0.0.0/4, reserved
  'https://254.255.255.255/',
  'https://[::ffff:240.0.0.1]/',
  'https://239.255.255.255/', // just below 240.0.0.0/4: multicast, refused too
  'https://[2001:db8::]/', // 2001:db8::/32, documentation
  'https://[2001:db8::1]/',
  'https://[2001:db8:ffff:ffff:ffff:ffff:ffff:ffff]/',
  'https://[2001::]/', // 2001::/32, Teredo
  'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  'https://[2001:0:ffff:ffff:ffff:ffff:ffff:ffff]/',
];

/** Public addresses just outside each range of RESERVED (240.0.0.0/4 ends the IPv4 space). */
const JUST_OUTSIDE_RESERVED = [
  'https://192.0.1.255/hook',
  'https://192.0.3.0/hook',
  'https://198.51.99.255/hook',
  'https://198.51.101.0/hook',
  'https://[::ffff:c633:6500]/hook', // 198.51.101.0
  'https://203.0.112.255/hook',
  'https://203.0.114.0/hook',
  'https://198.17.255.255/hook',
  'https://198.20.0.0/hook',
  'https://[2001:db7:ffff:ffff:ffff:ffff:ffff:ffff]/hook',
  'https://[2001:db9::]/hook',
  'https://[2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff]/hook',
  'https://[2001:1::1]/hook',
];

/** Internal in every mode: private, link-local, metadata, unspecified, multicast and broadcast, in every notation. */
const INTERNAL = [
  'https://10.1.2.3/hook',
  'https://172.16.0.1/hook',
  'https://172.31.255.255/hook',
  'https://192.168.1.1/hook',
  'https://100.64.0.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://2852039166/latest/meta-data/', // 169.254.169.254 as one decimal number
  'https://0xa9.0xfe.0xa9.0xfe/', // hex
  'https://0251.0376.0251.0376/', // octal
  'https://169.254.43518/', // short form
  'https://[::ffff:169.254.169.254]/',
  'https://[::ffff:a9fe:a9fe]/',
  'https://[64:ff9b::a9fe:a9fe]/', // NAT64 of the metadata address
  'https://[fd00:ec2::254]/',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://METADATA.google.internal./computeMetadata/v1/',
  'https://[fe80::1]/',
  'https://[fc00::1]/',
  'https://0.0.0.0/',
  'https://0/',
  'https://[::]/',
  'https://224.0.0.1/',
  'https://255.255.255.255/',
  'https://[ff02::1]/',
  'https://[::ffff:10.0.0.1]/',
  ...RESERVED,
];

/** Loopback: where a developer's receiver runs, so allowed in sandbox only. */
const LOOPBACK = [
  'https://127.0.0.1/hook',
  'https://127.0.0.1./hook',
  'https://127.1/hook',
  'https://2130706433/hook',
  'https://0177.0.0.1/hook',
  'https://0x7f.0.0.1/hook',
  'https://0x7f000001/hook',
  'https://１２７.０.０.１/hook', // full-width digits
  'https://[::1]/hook',
  'https://[0:0:0:0:0:0:0:1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:7f00:1]/hook',
  'https://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
  'https://localhost/hook',
  'https://LOCALHOST./hook',
  'https://api.localhost:8443/hook',
];

afterEach(() => {
  vi.useRealTimers();
});

describe('webhookEndpoint rules in production mode', () => {
  it.each([...INTERNAL, ...LOOPBACK])('PATCH /config refuses %s with 400 naming webhookEndpoint, changing nothing', async (url) => {
    const p = await newPlatform({ webhookEndpoint: hookUrl() });
    const before = (await api('GET', '/config', { auth: p.auth })).body;
    const res = await production('PATCH', '/config', p.auth, { webhookEndpoint: url, umaDomain: 'changed.example.com' });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['webhookEndpoint']);
    expect((await api('GET', '/config', { auth: p.auth })).body).toEqual(before);
  });

  it.each([
    ['http://hooks.example.com/x', 'https'],
    ['https://user:secret@hooks.example.com/x', 'credentials'],
    ['https://user@hooks.example.com/x', 'credentials'],
    ['https://intranet/hook', 'public'],
    ['https://printer.local/hook', 'public'],
    ['https://host.docker.internal/hook', 'public'],
    ['https://router.home.arpa/hook', 'public'],
  ])('PATCH /config refuses %s (%s)', async (url, why) => {
    const p = await newPlatform();
    const res = await production('PATCH', '/config', p.auth, { webhookEndpoint: url });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['webhookEndpoint']);
    expect(res.body.details.fields[0].message).toContain(why);
  });

  it.each([
    'https://hooks.example.com/x?a=1',
    'https://hooks.example.com:8443/x',
    'https://8.8.8.8/hook',
    'https://172.32.0.1/hook', // just past 172.16/12
    'https://100.128.0.1/hook', // just past 100.64/10
    'https://[2606:4700:4700::1111]/hook',
    ...JUST_OUTSIDE_RESERVED,
  ])('PATCH /config accepts the public https URL %s', async (url) => {
    const p = await newPlatform();
    const res = await production('PATCH', '/config', p.auth, { webhookEndpoint: url });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.webhookEndpoint).toBe(url);
  });

  it('the operator cannot create a platform with an internal endpoint either', async () => {
    const res = await production('POST', '/operator/platforms', OPERATOR, {
      name: 'Internal',
      umaDomain: 'internal.example.com',
      webhookEndpoint: 'https://[::ffff:7f00:1]:8080/hook',
    });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['webhookEndpoint']);
  });
});

describe('webhookEndpoint rules in sandbox mode', () => {
  it.each([
    'http://localhost:3000/hooks',
    'http://127.0.0.1:8080/',
    'http://[::1]:9000/',
    'http://api.localhost/x',
    'http://host.docker.internal:4000/',
    'http://hooks.example.com/',
  ])('accepts %s (http and loopback: a developer’s receiver)', async (url) => {
    const p = await newPlatform();
    const res = await api('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: url } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it.each([...INTERNAL.map((u) => u.replace('https:', 'http:')), 'http://user:pw@localhost:3000/'])('refuses %s', async (url) => {
    const p = await newPlatform();
    const res = await api('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: url } });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['webhookEndpoint']);
  });

  it('the operator cannot create a platform with a metadata endpoint', async () => {
    const res = await api('POST', '/operator/platforms', {
      auth: OPERATOR,
      body: { name: 'M', umaDomain: 'm.example.com', webhookEndpoint: 'http://169.254.169.254/' },
    });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['webhookEndpoint']);
  });
});

describe('webhookEndpoint rules at delivery time', () => {
  it('a sandbox loopback endpoint is not fetched once the service runs in production', async () => {
    install();
    const mark = outgoing.length;
    const p = await newPlatform({ webhookEndpoint: 'http://127.0.0.1:9/hook' });
    const eventId = await writeEvent(p.id, T0);
    vi.setSystemTime(T0);
    const result = await consumeIn('production', deliver(eventId));
    expect(result.explicitAcks).toHaveLength(1);
    expect(sentTo('127.0.0.1', mark)).toHaveLength(0);
    const row = await deliveryOf(eventId);
    expect(row).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: null,
      url: 'http://127.0.0.1:9/hook',
      nextAttemptAt: T0 + 30_000,
    });
    expect(row.lastError).toMatch(/^webhookEndpoint refused: .*https/);
  });

  it('a row stored before the rules (a metadata address) is never fetched, in sandbox either', async () => {
    install();
    const mark = outgoing.length;
    const p = await newPlatform();
    await storeEndpoint(p.id, 'http://169.254.169.254/latest/meta-data/');
    const eventId = await writeEvent(p.id, T0);
    vi.setSystemTime(T0);
    await consume(deliver(eventId));
    expect(sentTo('169.254.169.254', mark)).toHaveLength(0);
    expect(await deliveryOf(eventId)).toMatchObject({
      status: 'PENDING',
      attempts: 1,
      lastResponseStatus: null,
      lastError: expect.stringMatching(/^webhookEndpoint refused: /),
    });

    // The platform fixes its endpoint: the retry delivers.
    const url = hookUrl();
    const hook = fakeEndpoint(url, () => 200);
    expect((await api('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: url } })).status).toBe(200);
    vi.setSystemTime(T0 + 30_000);
    await consume(deliver(eventId));
    expect(hook.calls).toHaveLength(1);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 2 });
  });

  it('the sandbox test webhook refuses a stored internal endpoint without fetching it', async () => {
    install();
    const mark = outgoing.length;
    const p = await newPlatform();
    await storeEndpoint(p.id, 'http://[fd00:ec2::254]/latest/meta-data/');
    const body = expectError(await api('POST', '/sandbox/webhooks/test', { auth: p.auth }), 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(body.details.error).toMatch(/^webhookEndpoint refused: /);
    expect(body.details).not.toHaveProperty('response_status');
    expect(body.details).not.toHaveProperty('response_body');
    expect(sentTo('[fd00:ec2::254]', mark)).toHaveLength(0);
  });

  it('does not follow a redirect: one request, made with redirect "manual", and the 3xx is retried', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const mark = outgoing.length;
    const hook = fakeEndpoint(
      url,
      () => new Response(null, { status: 307, headers: { Location: 'http://169.254.169.254/latest/meta-data/' } }),
    );
    const eventId = await writeEvent(p.id, T0);
    vi.setSystemTime(T0);
    await consume(deliver(eventId));
    expect(hook.calls).toHaveLength(1);
    expect(outgoing.filter((r) => r.url === url).map((r) => r.redirect)).toEqual(['manual']);
    expect(sentTo('169.254.169.254', mark)).toHaveLength(0);
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'PENDING', lastResponseStatus: 307 });
  });
});

describe('what a delivery reports about the endpoint', () => {
  it('a network error is one generic message, never the runtime’s text', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    fakeEndpoint(url, () => {
      throw new TypeError('connect ECONNREFUSED 10.0.0.7:5432');
    });
    const eventId = await writeEvent(p.id, T0);
    vi.setSystemTime(T0);
    await consume(deliver(eventId));
    expect(await deliveryOf(eventId)).toMatchObject({ status: 'PENDING', lastResponseStatus: null, lastError: 'Connection failed' });

    const res = await api('POST', '/sandbox/webhooks/test', { auth: p.auth });
    const body = expectError(res, 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(body.details.error).toBe('Connection failed');
    expect(JSON.stringify(body)).not.toContain('ECONNREFUSED');
    const listed = await api('GET', '/webhooks/deliveries', { auth: p.auth });
    expect(JSON.stringify(listed.body)).not.toContain('ECONNREFUSED');
  });

  it('the sandbox test webhook echoes at most the first 1 KiB of the answer', async () => {
    const url = hookUrl();
    const p = await newPlatform({ webhookEndpoint: url });
    const big = 'x'.repeat(100 * 1024);
    fakeEndpoint(url, (n) => new Response(big, { status: n === 1 ? 200 : 500 }));
    const ok = await api('POST', '/sandbox/webhooks/test', { auth: p.auth });
    expect(ok.status).toBe(200);
    expect(ok.body.response_body).toBe('x'.repeat(1024));
    const failed = expectError(await api('POST', '/sandbox/webhooks/test', { auth: p.auth }), 400, 'WEBHOOK_DELIVERY_ERROR');
    expect(failed.details.response_body).toBe('x'.repeat(1024));
  });
});
