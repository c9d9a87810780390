// A closed-loop load driver for scenarios whose steps need async client work between requests (stamping a
// challenge with ApiKeyStamper), which autocannon's synchronous `setupRequest` cannot await.
// Each connection is one keep-alive socket running `step(client)` back to back until the time is up.
import { Agent, request as httpRequest } from 'node:http';

/** One keep-alive connection's client: `request` resolves with the status, the body text and the latency. */
function connectionClient(origin, record) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(origin);
  const request = (method, path, { headers = {}, body, label = 'request' } = {}) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const allHeaders = { ...headers };
      if (payload !== undefined) {
        allHeaders['content-type'] ??= 'application/json';
        allHeaders['content-length'] = Buffer.byteLength(payload);
      }
      const started = process.hrtime.bigint();
      const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers: allHeaders, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          const text = Buffer.concat(chunks).toString('utf8');
          record(label, res.statusCode, ms);
          resolve({ status: res.statusCode, text, ms });
        });
        res.on('error', reject);
      });
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  return { request, close: () => agent.destroy() };
}

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Runs `step(client)` on `connections` connections for `duration` seconds. Returns autocannon-like figures
 * over every request (req/s, p50, p99, non-2xx, errors), the steps completed per second, and p50/p99 per
 * request label (e.g. the challenge and the retry of a pair).
 */
export async function runLoop({ origin, connections, duration, step }) {
  const latencies = [];
  const byLabel = new Map();
  let non2xx = 0;
  let errors = 0;
  let steps = 0;
  let measuring = true;
  const record = (label, status, ms) => {
    if (!measuring) return;
    latencies.push(ms);
    if (!byLabel.has(label)) byLabel.set(label, []);
    byLabel.get(label).push(ms);
    if (status < 200 || status > 299) non2xx++;
  };
  const started = performance.now();
  const deadline = started + duration * 1000;
  const worker = async () => {
    const client = connectionClient(origin, record);
    try {
      while (performance.now() < deadline) {
        try {
          await step(client);
          if (performance.now() <= deadline) steps++;
        } catch {
          errors++;
        }
      }
    } finally {
      client.close();
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  measuring = false;
  const seconds = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const labels = Object.fromEntries(
    [...byLabel].map(([label, xs]) => {
      const s = xs.sort((a, b) => a - b);
      return [label, { requests: s.length, p50: percentile(s, 50), p99: percentile(s, 99) }];
    }),
  );
  return {
    reqPerSec: sorted.length / seconds,
    stepsPerSec: steps / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    requests: sorted.length,
    non2xx,
    errors: errors + (sorted.length === 0 ? 1 : 0),
    labels,
  };
}
