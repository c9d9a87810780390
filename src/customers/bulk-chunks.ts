// Bulk import: one chunk processed from the queue (validate, create, record errors and progress in one batch).
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Statement } from '../db/client';
import {
  bulkImportChunks,
  bulkImportChunksDone,
  bulkImportErrors,
  bulkImportJobs,
  customers,
  platforms,
  webhookDeliveries,
  type BulkImportJobRow,
} from '../db/schema';
import { insertJsonRows } from '../db/json-rows';
import { errorText, isUniqueViolation } from '../db/errors';
import { deliveriesAbout, dispatchEvents } from '../webhooks/outbox';
import { sqlEventStatements } from '../webhooks/sql-events';
import { rowToCustomer } from './bulk-rows';
import { buildCustomer, insertCustomerStatements, isCustomerUniqueViolation, type NewCustomer } from './service';
import { slotFree, startNextImport, type BulkImportMessage, type Chunk } from './bulk-service';

interface RowError {
  rowNumber: number;
  code: string;
  message: string;
  details: Record<string, unknown>;
  correlationId: string;
}

/**
 * Processes one chunk (a queue message). Everything the chunk changes (its customers and accounts, its error
 * entries, the job's progress, the chunk's done marker) is one D1 batch, so a redelivered message either finds
 * the marker and changes nothing, or loses the race on the marker's primary key and rolls back whole.
 */
export async function processBulkChunk(db: Db, queue: Queue<unknown>, message: BulkImportMessage, wallNow: number): Promise<void> {
  const job = await db.query.bulkImportJobs.findFirst({ where: eq(bulkImportJobs.id, message.jobId) });
  if (!job || job.status === 'COMPLETED' || job.status === 'FAILED') return;
  const platform = await db.query.platforms.findFirst({ where: eq(platforms.id, job.platformId) });
  if (!platform) return;
  const now = wallNow + platform.clockOffsetMs;
  if (job.fileError) {
    const event = jobEndEvent(db, job, 'FAILED', now);
    await db.batch([
      db
        .update(bulkImportJobs)
        .set({ status: 'FAILED', completedAt: now, updatedAt: now })
        .where(and(eq(bulkImportJobs.id, job.id), inArray(bulkImportJobs.status, ['PENDING', 'PROCESSING']))),
      db
        .insert(bulkImportErrors)
        .values({ jobId: job.id, rowNumber: 0, code: 'INVALID_FILE', message: job.fileError, details: {}, correlationId: '0' })
        .onConflictDoNothing(),
      ...event.statements,
    ]);
    await dispatchEvents(queue, [event.eventId]);
    return;
  }
  const [chunks, done, , [after]] = await db.batch([
    db
      .select()
      .from(bulkImportChunks)
      .where(and(eq(bulkImportChunks.jobId, job.id), eq(bulkImportChunks.rowOffset, message.offset))),
    db
      .select()
      .from(bulkImportChunksDone)
      .where(and(eq(bulkImportChunksDone.jobId, job.id), eq(bulkImportChunksDone.rowOffset, message.offset))),
    // The claim of a processing slot: one conditional statement, so two jobs racing cannot both take the last.
    db
      .update(bulkImportJobs)
      .set({ status: 'PROCESSING', startedAt: now, updatedAt: now })
      .where(and(eq(bulkImportJobs.id, job.id), eq(bulkImportJobs.status, 'PENDING'), slotFree(job.platformId, now))),
    db.select({ status: bulkImportJobs.status }).from(bulkImportJobs).where(eq(bulkImportJobs.id, job.id)),
  ]);
  // Still waiting for a slot: the message is dropped; the job that ends queues this one's chunks again.
  if (after?.status === 'PENDING') return;
  const chunk = chunks[0];
  if (!chunk || done.length > 0) return;
  for (let attempt = 0; ; attempt++) {
    const { created, errors } = await planChunk(db, platform, job, chunk, now);
    const stmts: Statement[] = [
      db.insert(bulkImportChunksDone).values({ jobId: job.id, rowOffset: chunk.rowOffset, createdAt: now }),
      db.delete(bulkImportChunks).where(and(eq(bulkImportChunks.jobId, job.id), eq(bulkImportChunks.rowOffset, chunk.rowOffset))),
      ...insertCustomerStatements(db, created),
      ...insertJsonRows(
        db,
        bulkImportErrors,
        errors.map((e) => ({ jobId: job.id, ...e })),
      ),
      progressStatement(db, job.id, chunk.rows.length, created.length, errors.length, now),
    ];
    // Written only by the batch whose chunk completes the job.
    const event = jobEndEvent(db, job, 'COMPLETED', now);
    stmts.push(...event.statements, db.select({ status: bulkImportJobs.status }).from(bulkImportJobs).where(eq(bulkImportJobs.id, job.id)));
    try {
      const results = await db.batch(stmts as [Statement, ...Statement[]]);
      await dispatchEvents(queue, [event.eventId]);
      const [ended] = results[results.length - 1] as { status: string }[];
      if (ended?.status === 'COMPLETED') await startNextImport(db, queue, job.platformId);
      return;
    } catch (error) {
      const text = errorText(error);
      if (isUniqueViolation(text, 'bulk_import_chunks_done')) return; // a concurrent delivery processed it
      // A customer created meanwhile (API or another chunk) collided: plan again, the check now sees it.
      if (isCustomerUniqueViolation(error) && attempt < 3) continue;
      throw error;
    }
  }
}

function progressStatement(db: Db, jobId: string, n: number, ok: number, failed: number, now: number) {
  const completes = sql`${bulkImportJobs.processed} + ${n} >= ${bulkImportJobs.total}`;
  return db
    .update(bulkImportJobs)
    .set({
      processed: sql`${bulkImportJobs.processed} + ${n}`,
      successful: sql`${bulkImportJobs.successful} + ${ok}`,
      failed: sql`${bulkImportJobs.failed} + ${failed}`,
      status: sql`CASE WHEN ${completes} THEN 'COMPLETED' ELSE 'PROCESSING' END`,
      completedAt: sql`CASE WHEN ${completes} THEN ${now} ELSE NULL END`,
      updatedAt: now,
    })
    .where(eq(bulkImportJobs.id, jobId));
}

/** Error entries a BULK_UPLOAD.* webhook carries at most (the job endpoint lists them all). */
const WEBHOOK_ERRORS = 100;

/**
 * BULK_UPLOAD.COMPLETED / .FAILED, written inside the batch that ends the job: the event exists only if
 * the job now has that status and has not been announced yet, and its data (the job as GET
 * /customers/bulk/jobs/{jobId} shows it) is read from the rows the batch just wrote.
 */
function jobEndEvent(db: Db, job: BulkImportJobRow, status: 'COMPLETED' | 'FAILED', now: number) {
  const type = `BULK_UPLOAD.${status}` as const;
  // Each entry as the job endpoint shows it: details only when not empty.
  const errors = sql`SELECT json_group_array(json_remove(
      json_object('code', e.code, 'message', e.message, 'details', json(coalesce(e.details, '{}')), 'correlationId', e.correlation_id),
      CASE WHEN coalesce(e.details, '{}') = '{}' THEN '$.details' ELSE '$.none' END))
    FROM (SELECT * FROM ${bulkImportErrors} WHERE ${bulkImportErrors.jobId} = ${job.id} ORDER BY ${bulkImportErrors.rowNumber} LIMIT ${WEBHOOK_ERRORS}) e`;
  const data = sql`(SELECT json_object(
      'id', j.id, 'status', j.status,
      'progress', json_object('total', j.total, 'processed', j.processed, 'successful', j.successful, 'failed', j.failed),
      'errors', json((${errors})),
      'completedAt', strftime('%Y-%m-%dT%H:%M:%S', j.completed_at / 1000, 'unixepoch') || printf('.%03dZ', j.completed_at % 1000))
    FROM ${bulkImportJobs} j WHERE j.id = ${job.id})`;
  // Once per job: no delivery of this event about the job yet.
  const where = sql`EXISTS (SELECT 1 FROM ${bulkImportJobs} WHERE ${bulkImportJobs.id} = ${job.id} AND ${bulkImportJobs.status} = ${status})
    AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} WHERE ${deliveriesAbout(job.platformId, job.id, type)})`;
  return sqlEventStatements(db, { platformId: job.platformId, type, data, where, now });
}

/** Validates a chunk's rows and sorts them into customers to create and error entries. */
async function planChunk(
  db: Db,
  platform: typeof platforms.$inferSelect,
  job: BulkImportJobRow,
  chunk: Chunk,
  now: number,
): Promise<{ created: NewCustomer[]; errors: RowError[] }> {
  const created: NewCustomer[] = [];
  const errors: RowError[] = [];
  const candidates: { rowNumber: number; value: NewCustomer }[] = [];
  chunk.rows.forEach((record, i) => {
    const rowNumber = chunk.rowOffset + i + 1;
    const pcid = record[job.columns.indexOf('platformCustomerId')]?.trim();
    const correlationId = pcid || String(rowNumber);
    const fail = (code: string, message: string, details: Record<string, unknown>) =>
      errors.push({ rowNumber, code, message, details: { row: rowNumber, ...details }, correlationId });
    const row = rowToCustomer(job.columns, record);
    if (!row.ok)
      return fail('INVALID_INPUT', `Invalid row: ${[...new Set(row.issues.map((x) => x.field))].join(', ')}`, { fields: row.issues });
    const built = buildCustomer(platform, row.input, now);
    if (!built.ok) return fail('INVALID_INPUT', `Invalid row: ${built.issues.map((x) => x.field).join(', ')}`, { fields: built.issues });
    candidates.push({ rowNumber, value: built.value });
  });
  const existing = candidates.length
    ? await takenBy(
        db,
        platform.id,
        candidates.map((c) => c.value.customer),
      )
    : [];
  // UMA addresses compare without case, as the unique index keys them (ASCII: the schema allows nothing else).
  const umaKey = (address: string) => address.toLowerCase();
  const takenIds = new Map<string, string>(existing.map((e) => [e.platformCustomerId, 'an existing customer']));
  const takenUmas = new Map<string, string>(existing.map((e) => [umaKey(e.umaAddress), 'an existing customer']));
  for (const { rowNumber, value } of candidates) {
    const { platformCustomerId, umaAddress } = value.customer;
    const correlationId = platformCustomerId;
    const byId = takenIds.get(platformCustomerId);
    const byUma = takenUmas.get(umaKey(umaAddress));
    if (byId) {
      errors.push({
        rowNumber,
        code: 'CONFLICT',
        message: `platformCustomerId ${platformCustomerId} is already used by ${byId}`,
        details: { row: rowNumber },
        correlationId,
      });
    } else if (byUma) {
      errors.push({
        rowNumber,
        code: 'UMA_ADDRESS_EXISTS',
        message: `UMA address ${umaAddress} is already used by ${byUma}`,
        details: { row: rowNumber },
        correlationId,
      });
    } else {
      created.push(value);
      takenIds.set(platformCustomerId, `row ${rowNumber}`);
      takenUmas.set(umaKey(umaAddress), `row ${rowNumber}`);
    }
  }
  errors.sort((a, b) => a.rowNumber - b.rowNumber);
  return { created, errors };
}

/**
 * Active customers of the platform holding one of the candidates' platformCustomerIds or UMA addresses (any
 * case), in one round trip: `takenByStatements`.
 */
async function takenBy(db: Db, platformId: string, wanted: { platformCustomerId: string; umaAddress: string }[]) {
  const [byId, byUma] = await db.batch(takenByStatements(db, platformId, wanted));
  return [...byId, ...byUma];
}

/**
 * The duplicate check of a chunk as two statements, each wanted value one probe of the unique index that
 * decides it (`customers_platform_customer_id_uq`, `CUSTOMERS_UMA_ADDRESS_UQ` on the lower-cased address): the
 * CROSS JOIN keeps the list outside, and the index's own condition is a literal. Reads about the chunk's
 * rows however many customers the platform has.
 */
export function takenByStatements(db: Db, platformId: string, wanted: { platformCustomerId: string; umaAddress: string }[]) {
  const columns = { platformCustomerId: customers.platformCustomerId, umaAddress: customers.umaAddress };
  const probe = (values: string[], match: SQL) =>
    db
      .select(columns)
      .from(sql`json_each(${JSON.stringify(values)}) AS wanted`)
      .crossJoin(customers)
      .where(and(eq(customers.platformId, platformId), match, sql`${customers.isDeleted} = 0`));
  return [
    probe(
      wanted.map((w) => w.platformCustomerId),
      sql`${customers.platformCustomerId} = wanted.value`,
    ),
    probe(
      wanted.map((w) => w.umaAddress),
      sql`lower(${customers.umaAddress}) = lower(wanted.value)`,
    ),
  ] as const;
}
