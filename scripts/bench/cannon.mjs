// The autocannon driver of the benches (scripts/bench.mjs, scripts/bench-homes.mjs): a scenario's request(s)
// as autocannon options, and one run of them.
import autocannon from 'autocannon';

/** autocannon options for one scenario's request(s) against its server (`{origin, basePath}`). */
export function cannonOptions(server, req) {
  if (req.requests) {
    // Paths in a sequence are relative to the API base; prefix them after the scenario's own setupRequest.
    const requests = req.requests.map((step) => ({
      ...step,
      setupRequest: (r, context) => {
        const out = step.setupRequest ? step.setupRequest({ ...r }, context) : r;
        return out && { ...out, path: `${server.basePath}${out.path}` };
      },
    }));
    return { url: server.origin, requests };
  }
  const headers = { ...req.headers };
  let body = req.body;
  if (body !== undefined && typeof body !== 'string') {
    body = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  return { url: `${server.origin}${server.basePath}${req.path}`, method: req.method ?? 'GET', headers, body };
}

/** One run of `opts` on `connections` connections for `duration` seconds. */
export async function cannon(opts, connections, duration) {
  const result = await autocannon({ ...opts, connections, duration, pipelining: 1, timeout: 10 });
  return {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    // A run that completed no request at all is as unusable as one full of errors.
    errors: result.errors + result.timeouts + (result.requests.total === 0 ? 1 : 0),
  };
}
