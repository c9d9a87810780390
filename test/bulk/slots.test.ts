import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { BULK_CHUNK_ROWS, BULK_CHUNKS_PER_SECOND } from '../../src/customers/bulk-service';
import { api, newPlatform, workerApi, type TestPlatform } from '../support/api';
import { multipart } from '../support/customers';

// At most one bulk import of a platform processes at a time (BULK_JOBS_PER_PLATFORM); the others wait as
// PENDING and start when it ends. Queue messages go to a capturing producer, so the test delivers them to the
// real consumer itself, in the order it wants.

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country';
const csv = (p: TestPlatform, prefix: string, n: number) =>
  `${HEADER}\n${Array.from({ length: n }, (_, i) => `$${prefix}${i}@${p.umaDomain},${prefix}${i},INDIVIDUAL,Jane Doe,1990-01-15,1 Main St,Austin,TX,78701,US`).join('\n')}\n`;

/** A JOBS producer that keeps what is sent. */
function capture() {
  const sent: any[] = [];
  const delays: (number | undefined)[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: { body: any; delaySeconds?: number }[]) => {
      sent.push(...messages.map((m) => m.body));
      delays.push(...messages.filter((m) => m.body?.type === 'bulk.import').map((m) => m.delaySeconds));
    },
  };
  // The bulk-import messages sent since the last take (webhook deliveries are not this test's business).
  return {
    queue: queue as unknown as Queue<unknown>,
    take: () => sent.splice(0).filter((m) => m?.type === 'bulk.import'),
    takeDelays: () => delays.splice(0),
  };
}

async function upload(p: TestPlatform, jobs: Queue<unknown>, text: string) {
  const form = multipart([{ name: 'file', filename: 'c.csv', contentType: 'text/csv', data: new TextEncoder().encode(text) }]);
  const res = await workerApi(
    'POST',
    '/customers/bulk/csv',
    { JOBS: jobs },
    { auth: p.auth, raw: form.body, headers: { 'Content-Type': form.contentType } },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.jobId as string;
}

let seq = 0;
/** Delivers message bodies to the Worker's queue consumer (with `jobs` as its producer); every one is acked. */
async function deliver(jobs: Queue<unknown>, bodies: unknown[]) {
  const messages = bodies.map((body) => ({ id: `slot-${seq++}`, timestamp: new Date(), attempts: 1, body }));
  const batch = createMessageBatch('payments-platform-jobs', messages);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, JOBS: jobs });
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual([]);
  expect([...result.explicitAcks].sort()).toEqual(messages.map((m) => m.id).sort());
}

const job = async (p: TestPlatform, id: string) => (await api('GET', `/customers/bulk/jobs/${id}`, { auth: p.auth })).body;
const ofJob = (messages: any[], id: string) => messages.filter((m) => m.jobId === id);

describe('bulk imports share one processing slot per platform', () => {
  it('a second import waits as PENDING while the first processes, then starts when it ends; every import gets every row', async () => {
    const p = await newPlatform();
    const other = await newPlatform();
    const jobs = capture();
    const rows = BULK_CHUNK_ROWS + 20; // two chunks each
    const a = await upload(p, jobs.queue, csv(p, 'a', rows));
    const b = await upload(p, jobs.queue, csv(p, 'b', rows));
    const c = await upload(other, jobs.queue, csv(other, 'c', 10));
    const sent = jobs.take();
    expect(ofJob(sent, a)).toHaveLength(2);
    expect(ofJob(sent, b)).toHaveLength(2);

    await deliver(jobs.queue, ofJob(sent, a).slice(0, 1));
    expect(await job(p, a)).toMatchObject({ status: 'PROCESSING', progress: { processed: BULK_CHUNK_ROWS } });
    // Uploaded while a holds the slot: nothing is queued for d yet.
    const d = await upload(p, jobs.queue, csv(p, 'd', 5));
    expect(jobs.take()).toEqual([]);
    // b's messages arrive while a holds the slot: b waits, untouched.
    await deliver(jobs.queue, ofJob(sent, b));
    expect(await job(p, b)).toMatchObject({ status: 'PENDING', progress: { processed: 0 } });
    // Another platform's import is not held up.
    await deliver(jobs.queue, ofJob(sent, c));
    expect(await job(other, c)).toMatchObject({ status: 'COMPLETED', progress: { successful: 10 } });
    expect(jobs.take()).toEqual([]);

    // a ends: its last chunk queues b's chunks again, and b runs.
    await deliver(jobs.queue, ofJob(sent, a).slice(1));
    expect(await job(p, a)).toMatchObject({ status: 'COMPLETED', progress: { total: rows, processed: rows, successful: rows, failed: 0 } });
    const restarted = jobs.take();
    expect(restarted.map((m) => m.jobId)).toEqual([b, b]);
    expect(await job(p, b)).toMatchObject({ status: 'PENDING' });
    await deliver(jobs.queue, restarted);
    expect(await job(p, b)).toMatchObject({ status: 'COMPLETED', progress: { total: rows, processed: rows, successful: rows, failed: 0 } });
    // b ends and starts d.
    const last = jobs.take();
    expect(last).toEqual([{ type: 'bulk.import', jobId: d, offset: 0 }]);
    await deliver(jobs.queue, last);
    expect(await job(p, d)).toMatchObject({ status: 'COMPLETED', progress: { successful: 5 } });
    expect((await api('GET', '/customers?limit=1', { auth: p.auth })).body.totalCount).toBe(2 * rows + 5);
  });

  it('queues a job at BULK_CHUNKS_PER_SECOND: each chunk due later than the one before', async () => {
    const p = await newPlatform();
    const jobs = capture();
    await upload(p, jobs.queue, csv(p, 'paced', 2 * BULK_CHUNK_ROWS + 1));
    expect(jobs.takeDelays()).toEqual([0, 1, 2].map((i) => Math.floor(i / BULK_CHUNKS_PER_SECOND)));
    const fast = await upload(p, jobs.queue, csv(p, 'many', 5 * BULK_CHUNK_ROWS));
    expect(jobs.take().filter((m) => m.jobId === fast)).toHaveLength(5);
    expect(jobs.takeDelays().slice(-5)).toEqual([0, 1, 2, 3, 4].map((i) => Math.floor(i / BULK_CHUNKS_PER_SECOND)));
  });

  it('two imports racing for the slot: exactly one processes, and both complete', async () => {
    const p = await newPlatform();
    const jobs = capture();
    const rows = BULK_CHUNK_ROWS + 10;
    const ids = [await upload(p, jobs.queue, csv(p, 'x', rows)), await upload(p, jobs.queue, csv(p, 'y', rows))];
    const sent = jobs.take();
    // Two consumer invocations at once, each with the first chunk of one job.
    await Promise.all(ids.map((id) => deliver(jobs.queue, ofJob(sent, id).slice(0, 1))));
    const states = await Promise.all(ids.map((id) => job(p, id)));
    expect(states.map((s) => [s.status, s.progress.processed]).sort()).toEqual([
      ['PENDING', 0],
      ['PROCESSING', BULK_CHUNK_ROWS],
    ]);
    const [winner, loser] = states[0].status === 'PROCESSING' ? ids : [ids[1], ids[0]];
    await deliver(jobs.queue, ofJob(sent, winner!).slice(1));
    const restarted = jobs.take();
    expect(restarted.map((m) => m.jobId)).toEqual([loser, loser]);
    await deliver(jobs.queue, restarted);
    for (const id of ids) expect(await job(p, id)).toMatchObject({ status: 'COMPLETED', progress: { successful: rows, failed: 0 } });
  });

  it('a job stuck processing holds the slot for at most an hour; the cron does not resume waiting jobs behind a live one', async () => {
    const p = await newPlatform();
    const jobs = capture();
    const stuck = await upload(p, jobs.queue, csv(p, 's', BULK_CHUNK_ROWS + 5));
    const waiting = await upload(p, jobs.queue, csv(p, 'w', 5));
    const sent = jobs.take();
    // The stuck job processes its first chunk; its second message is lost.
    await deliver(jobs.queue, ofJob(sent, stuck).slice(0, 1));
    await deliver(jobs.queue, ofJob(sent, waiting));
    expect(await job(p, waiting)).toMatchObject({ status: 'PENDING' });

    // Twenty minutes on the wall clock: the cron re-queues the stalled job's chunk, not the waiting one's.
    const inTwenty = Date.now() + 20 * 60_000;
    await worker.scheduled(createScheduledController({ scheduledTime: inTwenty, cron: '* * * * *' }), { ...env, JOBS: jobs.queue });
    expect(jobs.take().filter((m) => m.jobId === stuck || m.jobId === waiting)).toEqual([
      { type: 'bulk.import', jobId: stuck, offset: BULK_CHUNK_ROWS },
    ]);

    // An hour and more after it started (the platform's sandbox clock), the slot is free again.
    const advanced = await api('POST', '/sandbox/clock/advance', { auth: p.auth, body: { seconds: 3601 } });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    await deliver(jobs.queue, ofJob(sent, waiting));
    expect(await job(p, waiting)).toMatchObject({ status: 'COMPLETED', progress: { successful: 5 } });
    expect(await job(p, stuck)).toMatchObject({ status: 'PROCESSING' });
  });
});
