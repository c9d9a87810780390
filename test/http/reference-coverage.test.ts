import { describe, expect, it } from 'vitest';
import { api } from '../support/api';
import reference from './reference-operations.json';

/**
 * Every in-scope operation of the reference OpenAPI (`test/http/reference-operations.json`, extracted by
 * `scripts/reference-operations.py`; cards, invitations, discoveries, receiver look-ups, crypto fee
 * estimates and KYC links are out of scope) is described by /openapi.json, under the reference's method,
 * path and operationId, so code generated from either document calls the same operations.
 */

/** Operations the SDK calls that the reference snapshot predates. */
const SDK_OPERATIONS = [
  { method: 'POST', path: '/webhooks/test' },
  { method: 'GET', path: '/quotes' },
];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

async function described(): Promise<Map<string, string>> {
  const res = await api('GET', '/openapi.json');
  expect(res.status).toBe(200);
  const ops = new Map<string, string>();
  for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, { operationId: string }>>)) {
    for (const method of METHODS) if (item[method]) ops.set(`${method.toUpperCase()} ${path}`, item[method].operationId);
  }
  return ops;
}

describe('/openapi.json covers the reference', () => {
  it('describes every in-scope operation of the reference, with its operationId', async () => {
    const ops = await described();
    expect(reference.length).toBeGreaterThan(80);
    const missing = reference.filter((op) => !ops.has(`${op.method} ${op.path}`)).map((op) => `${op.method} ${op.path}`);
    expect(missing, 'reference operations missing from /openapi.json').toEqual([]);
    const renamed = reference
      .filter((op) => ops.get(`${op.method} ${op.path}`) !== op.operationId)
      .map((op) => `${op.method} ${op.path}: ${ops.get(`${op.method} ${op.path}`)} (reference ${op.operationId})`);
    expect(renamed, 'operationIds that differ from the reference').toEqual([]);
  });

  it('describes the operations the SDK calls beyond the reference snapshot', async () => {
    const ops = await described();
    expect(SDK_OPERATIONS.filter((op) => !ops.has(`${op.method} ${op.path}`))).toEqual([]);
  });
});
