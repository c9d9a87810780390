import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform, productionApi, tokenWith } from '../support/api';
import { advance } from '../support/payments';

const T0 = Date.parse('2032-07-01T12:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

describe('GET /sandbox/clock', () => {
  it("shows the platform's sandbox time before and after an advance, as the advance answered it", async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const before = await api('GET', '/sandbox/clock', { auth: p.auth });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ sandboxTime: new Date(T0).toISOString(), clockOffsetSeconds: 0 });

    const moved = await advance(p, 360);
    const after = await api('GET', '/sandbox/clock', { auth: p.auth });
    expect(after.body).toEqual({ sandboxTime: new Date(T0 + 360_000).toISOString(), clockOffsetSeconds: 360 });
    expect(after.body).toEqual({ sandboxTime: moved.sandboxTime, clockOffsetSeconds: moved.clockOffsetSeconds });
    await advance(p, 3600);
    expect((await api('GET', '/sandbox/clock', { auth: p.auth })).body.clockOffsetSeconds).toBe(3960);
    // Another platform's clock has not moved.
    expect((await api('GET', '/sandbox/clock', { auth: other.auth })).body).toEqual(before.body);
  });

  it('needs VIEW (a read), while moving the clock needs TRANSACT', async () => {
    const p = await newPlatform();
    expectError(await api('GET', '/sandbox/clock'), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/sandbox/clock', { auth: await tokenWith(p, ['TRANSACT', 'MANAGE']) }), 403, 'FORBIDDEN');
    const view = await tokenWith(p, ['VIEW']);
    expect((await api('GET', '/sandbox/clock', { auth: view })).status).toBe(200);
    expectError(await api('POST', '/sandbox/clock/advance', { auth: view, body: { seconds: 1 } }), 403, 'FORBIDDEN');
  });

  it('is 404 in production, like every /sandbox/* path', async () => {
    const p = await newPlatform();
    expectError(await productionApi('GET', '/sandbox/clock', { auth: p.auth }), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
  });
});
