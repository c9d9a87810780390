import fc from 'fast-check';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { BASE, OPERATOR } from '../support/api';
import { handle } from './client';
import { describe as describeRequest, hostileRequest, type HostileRequest } from './arbitraries';
import { label, loadApiDoc } from './openapi';
import { buildWorld, changedTables, isolateFromOutside, OUTCOME_CODES, snapshotter, type World } from './world';

// Every route of /openapi.json, read at run time: routes added on other branches are covered as they land.
// Replay a failure with `FC_SEED=<seed> npm test -- test/hostile/fuzz.test.ts -t '<METHOD> <path>'`.
const SEED = Number(inject('FC_SEED') || 20251013);
const TOTAL_CASES = Number(inject('FC_RUNS') || 2000);

const doc = await loadApiDoc();
const perRoute = Math.max(10, Math.ceil(TOTAL_CASES / doc.operations.length));
const ERROR_KEYS = new Set(['status', 'code', 'message', 'details', 'reason']);

let world: World;
let snapshot: () => Promise<Record<string, string>>;

beforeAll(async () => {
  console.log(`hostile input: seed ${SEED}, ${perRoute} cases for each of ${doc.operations.length} routes (FC_SEED / FC_RUNS to change)`);
  isolateFromOutside();
  world = await buildWorld(doc, SEED);
  snapshot = await snapshotter([world.main, ...world.others]);
}, 60_000);

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Sends through the Worker; undefined when fetch itself refuses to build the request (not the Worker's doing). */
async function send(req: HostileRequest): Promise<Answer | undefined> {
  let request: Request;
  try {
    request = new Request(`${BASE}${req.target}`, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
  } catch {
    return undefined;
  }
  const res = await handle(request);
  return { status: res.status, contentType: res.headers.get('Content-Type') ?? '', text: await res.text() };
}

function fail(req: HostileRequest, res: Answer, why: string): never {
  throw new Error(`${why}\n  request: ${describeRequest(req)}\n  answer: ${res.status} ${res.text.slice(0, 500)}`);
}

/** The spec's error body: `{status, code, message, details?}` (plus the sandbox `reason`), `status` equal to the HTTP status. */
function checkErrorShape(req: HostileRequest, res: Answer): { code: string } {
  if (!res.contentType.includes('application/json')) fail(req, res, `non-2xx answer is not JSON (${res.contentType || 'no Content-Type'})`);
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    fail(req, res, 'non-2xx answer is not parseable JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) fail(req, res, 'error body is not an object');
  const extra = Object.keys(body).filter((k) => !ERROR_KEYS.has(k));
  if (extra.length) fail(req, res, `error body has unexpected fields: ${extra.join(', ')}`);
  if (body.status !== res.status) fail(req, res, `error body status ${body.status} differs from HTTP ${res.status}`);
  if (typeof body.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(body.code)) fail(req, res, 'error code missing or not UPPER_SNAKE');
  if (typeof body.message !== 'string' || !body.message) fail(req, res, 'error message missing');
  if ('details' in body && (!body.details || typeof body.details !== 'object' || Array.isArray(body.details)))
    fail(req, res, 'details is not an object');
  return body;
}

describe('hostile input to every route of /openapi.json', () => {
  for (const op of doc.operations) {
    it(`${label(op)}: never 5xx, errors in the spec's shape, a rejected request changes nothing`, async () => {
      const creds = { basic: world.main.auth, clientId: world.main.clientId, operator: OPERATOR, agent: world.mainAgent };
      let authenticated = 0;
      await fc.assert(
        fc.asyncProperty(hostileRequest(doc, op, world.hints, creds), async (req) => {
          const before = await snapshot();
          const res = await send(req);
          if (!res) return;
          if (res.status >= 500) fail(req, res, 'server error');
          if (res.status !== 401) authenticated++;
          if (res.status < 300) return;
          const { code } = checkErrorShape(req, res);
          if (res.status >= 400 && !OUTCOME_CODES.has(code)) {
            const changed = changedTables(before, await snapshot());
            if (changed.length) fail(req, res, `a rejected request changed state in: ${changed.join(', ')}`);
          }
        }),
        // No shrinking (replaying big hostile bodies for minutes); a case stuck over 15 s fails as a hang.
        { seed: SEED, numRuns: perRoute, endOnFailure: true, timeout: 15_000 },
      );
      // Most cases carry valid credentials: a run that never got past authentication tested nothing.
      expect(authenticated).toBeGreaterThan(perRoute / 2);
    }, 180_000);
  }
});
