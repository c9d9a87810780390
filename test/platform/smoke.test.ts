import { describe, expect, it } from 'vitest';
import { api, newPlatform, ORIGIN } from '../helpers';

describe('smoke', () => {
  it('healthz', async () => {
    const res = await api('GET', `${ORIGIN}/healthz`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
  it('config', async () => {
    const p = await newPlatform();
    const res = await api('GET', '/config', { auth: p.auth });
    expect(res.status).toBe(200);
    console.log(JSON.stringify(res.body));
  });
});
