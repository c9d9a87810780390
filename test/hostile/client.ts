import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../src/index';

/**
 * One request through the Worker's real fetch handler, called directly with the test env. The suites here
 * send thousands of requests, and under this pool each `SELF.fetch` in a file costs more than the one
 * before (cloudflare/workers-sdk#15446: ~3 ms to ~35 ms after 300 calls); the direct call stays flat.
 */
export async function handle(request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}
