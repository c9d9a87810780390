// Bulk import: upload, chunking, per-chunk processing through the queue, resumption of stalled jobs. Over 300
// lines because it is one pipeline, kept in one file.
import { and, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import {
  bulkImportChunks,
  bulkImportChunksDone,
  bulkImportErrors,
  bulkImportJobs,
  customers,
  platforms,
  webhookEvents,
  type BulkImportJobRow,
} from '../db/schema';
import { insertJsonRows, MAX_JSON_BYTES } from '../db/json-rows';
import { isUniqueViolation } from '../db/errors';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { badRequest, notFound } from '../http/errors';
import { errorText } from '../db/errors';
import { type Statement } from '../db/client';
import { dispatchEvents } from '../webhooks/outbox';
import { sqlEventStatements } from '../webhooks/sql-events';
import { parseCsv, type CsvOversize } from './csv';
import { headerProblem, rowToCustomer } from './bulk-rows';
import { buildCustomer, insertCustomerStatements, isCustomerUniqueViolation, type NewCustomer } from './service';
import type { BulkCustomerImportJobView } from './bulk-schema';

/**
 * Rows per queue message: one D1 batch of customers and accounts, well inside a Worker invocation's limits.
 * A chunk holding wide rows ends sooner, so its stored JSON stays within `MAX_JSON_BYTES`.
 */
export const BULK_CHUNK_ROWS = 500;
export const BULK_MAX_ROWS = 100_000;
export const BULK_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Several times the longest value any column accepts; a longer field cannot be a customer. */
export const BULK_MAX_FIELD_CHARS = 1024;
/** A row of every column at its longest still fits; the header counts as a row. */
export const BULK_MAX_ROW_CHARS = 16 * 1024;
/** Imports of one platform PROCESSING at once; the others wait as PENDING (one platform cannot fill D1's queue). */
export const BULK_JOBS_PER_PLATFORM = 1;
/**
 * The longest a job holds its slot: one stuck on a chunk that always fails (the cron re-queues it every ten
 * minutes) must not keep its platform's other imports waiting for ever.
 */
export const BULK_SLOT_MS = 60 * 60_000;

/** The JOBS queue message that processes one chunk of a bulk import. */
export interface BulkImportMessage {
  type: 'bulk.import';
  jobId: string;
  /** Index of the chunk's first data row (0-based). */
  offset: number;
}

type Chunk = { rowOffset: number; rows: string[][] };

/** Parses the file and splits it into chunks; an unusable file becomes the job's `fileError`. */
function prepare(bytes: Uint8Array): { columns: string[]; chunks: Chunk[]; total: number; fileError: string | null } {
  const fail = (fileError: string) => ({ columns: [], chunks: [], total: 0, fileError });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return fail('The file is not UTF-8 text');
  }
  const parsed = parseCsv(text, { maxFieldChars: BULK_MAX_FIELD_CHARS, maxRecordChars: BULK_MAX_ROW_CHARS, maxRecords: BULK_MAX_ROWS + 1 });
  if (!parsed.ok && 'oversize' in parsed) {
    if (parsed.oversize.limit === 'records')
      return fail(`The file has more than ${BULK_MAX_ROWS} rows; at most ${BULK_MAX_ROWS} per import`);
    throw oversized(parsed.oversize);
  }
  if (!parsed.ok) return fail(`The file is not valid CSV: ${place(parsed.malformed)}: ${parsed.malformed.reason}`);
  const [header, ...rows] = parsed.records;
  if (!header) return fail('The file is empty');
  const columns = header.map((c) => c.trim());
  const problem = headerProblem(columns);
  if (problem) return fail(problem);
  if (rows.length === 0) return fail('The file has a header but no data rows');
  const chunks: Chunk[] = [];
  let size = 0;
  rows.forEach((row, at) => {
    const rowSize = JSON.stringify(row).length + 1;
    const last = chunks[chunks.length - 1];
    if (last && last.rows.length < BULK_CHUNK_ROWS && size + rowSize <= MAX_JSON_BYTES) {
      last.rows.push(row);
      size += rowSize;
    } else {
      chunks.push({ rowOffset: at, rows: [row] });
      size = rowSize;
    }
  });
  return { columns, chunks, total: rows.length, fileError: null };
}

/** A place in the file as its uploader counts: the header, then data rows from 1; a column by its header name. */
function place(at: { record: number; field?: number; header?: string[] }): string {
  const where = at.record === 0 ? 'the header' : `row ${at.record}`;
  if (at.field === undefined) return where;
  // Data rows name the column by the header; the header itself (or a field past its end) by position.
  const column = (at.record > 0 && at.header?.[at.field]?.trim()) || String(at.field + 1);
  return `${where}, column ${column}`;
}

/** 400 naming where the file breaks a field or row size limit. */
function oversized(oversize: CsvOversize) {
  const message =
    oversize.limit === 'field'
      ? `${place(oversize)}: a field is longer than ${BULK_MAX_FIELD_CHARS} characters`
      : `${place({ ...oversize, field: undefined })} is longer than ${BULK_MAX_ROW_CHARS} characters`;
  return badRequest(`The file is over a size limit: ${message}`, { fields: [{ field: 'file', message }] });
}

/**
 * Chunks a job processes per second at most. Every chunk is a large D1 batch that every other query of the
 * database waits behind, so an import runs at a pace that leaves the database to the other platforms most of
 * the time: 1,000 rows a second (10,000 rows in about 10 s, 100,000 in under two minutes).
 */
export const BULK_CHUNKS_PER_SECOND = 2;

async function sendChunks(queue: Queue<unknown>, jobId: string, offsets: number[]): Promise<void> {
  for (let i = 0; i < offsets.length; i += 100) {
    const messages = offsets.slice(i, i + 100).map((offset, j) => ({
      body: { type: 'bulk.import', jobId, offset } satisfies BulkImportMessage,
      delaySeconds: Math.floor((i + j) / BULK_CHUNKS_PER_SECOND),
    }));
    await queue.sendBatch(messages);
  }
}

/**
 * POST /customers/bulk/csv: stores the parsed rows in chunks with the job (PENDING) and queues one message per
 * chunk, unless another import of the platform holds the slot (the job that ends queues this one's). An
 * unusable file still makes a job; its single message turns it FAILED.
 */
export async function startBulkImport(db: Db, queue: Queue<unknown>, platformId: string, file: Uint8Array, now: number) {
  const { columns, chunks, total, fileError } = prepare(file);
  const job: BulkImportJobRow = {
    id: newId('Job', now),
    platformId,
    status: 'PENDING',
    total,
    processed: 0,
    successful: 0,
    failed: 0,
    columns,
    fileError,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
  };
  const stmts: Statement[] = [db.insert(bulkImportJobs).values(job)];
  for (const c of chunks) stmts.push(db.insert(bulkImportChunks).values({ jobId: job.id, rowOffset: c.rowOffset, rows: c.rows }));
  // Read in the same batch as the insert: a job that ends after it finds this one waiting, and starts it.
  stmts.push(
    db
      .select({ free: sql<number>`${slotFree(platformId, now)}` })
      .from(platforms)
      .where(eq(platforms.id, platformId)),
  );
  const results = await db.batch(stmts as [Statement, ...Statement[]]);
  const [slot] = results[results.length - 1] as { free: number }[];
  if (fileError || slot?.free) await sendChunks(queue, job.id, chunks.length ? chunks.map((c) => c.rowOffset) : [0]);
  return { jobId: job.id, status: 'PENDING' as const };
}

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

/** SQL: the platform has fewer than `BULK_JOBS_PER_PLATFORM` imports processing (within `BULK_SLOT_MS` of their start). */
function slotFree(platformId: string | typeof bulkImportJobs.platformId, now: number): SQL {
  return sql`(SELECT count(*) FROM ${bulkImportJobs} AS running WHERE running.platform_id = ${platformId}
    AND running.status = 'PROCESSING' AND running.started_at > ${now - BULK_SLOT_MS}) < ${BULK_JOBS_PER_PLATFORM}`;
}

/** After a job ends: queues the remaining chunks of the platform's oldest waiting import, which then claims the slot. */
async function startNextImport(db: Db, queue: Queue<unknown>, platformId: string): Promise<void> {
  const next = db
    .select({ id: bulkImportJobs.id })
    .from(bulkImportJobs)
    .where(and(eq(bulkImportJobs.platformId, platformId), eq(bulkImportJobs.status, 'PENDING'), isNull(bulkImportJobs.fileError)))
    .orderBy(bulkImportJobs.id)
    .limit(1);
  const left = await db
    .select({ jobId: bulkImportChunks.jobId, rowOffset: bulkImportChunks.rowOffset })
    .from(bulkImportChunks)
    .where(eq(bulkImportChunks.jobId, next));
  if (left.length)
    await sendChunks(
      queue,
      left[0]!.jobId,
      left.map((c) => c.rowOffset),
    );
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
  const where = sql`EXISTS (SELECT 1 FROM ${bulkImportJobs} WHERE ${bulkImportJobs.id} = ${job.id} AND ${bulkImportJobs.status} = ${status})
    AND NOT EXISTS (SELECT 1 FROM ${webhookEvents} WHERE ${webhookEvents.platformId} = ${job.platformId} AND ${webhookEvents.type} = ${type}
      AND json_extract(${webhookEvents.data}, '$.id') = ${job.id})`;
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

/** GET /customers/bulk/jobs/{jobId}: progress, error entries by row, completedAt only once finished. */
/** GET /customers/bulk/jobs/{jobId} as loads (`platformId` SQL: see `RouteSpec.load`): the job and its row errors. */
export function bulkJobLoads(db: Db, platformId: SQL, jobId: string) {
  const mine = and(eq(bulkImportJobs.id, jobId), eq(bulkImportJobs.platformId, platformId));
  return {
    job: db.select().from(bulkImportJobs).where(mine).limit(1),
    errors: db
      .select()
      .from(bulkImportErrors)
      .where(eq(bulkImportErrors.jobId, db.select({ id: bulkImportJobs.id }).from(bulkImportJobs).where(mine)))
      .orderBy(bulkImportErrors.rowNumber),
  };
}

export function bulkJobFrom(loaded: Loaded<ReturnType<typeof bulkJobLoads>>): BulkCustomerImportJobView {
  const [jobs, errors] = [loaded.job, loaded.errors];
  const job = jobs[0];
  if (!job) throw notFound('BULK_UPLOAD_JOB_NOT_FOUND', 'Bulk upload job not found');
  const finished = job.status === 'COMPLETED' || job.status === 'FAILED';
  return {
    id: job.id,
    status: job.status,
    progress: { total: job.total, processed: job.processed, successful: job.successful, failed: job.failed },
    errors: errors.map((e) => ({
      code: e.code,
      message: e.message,
      ...(e.details && Object.keys(e.details).length ? { details: e.details } : {}),
      correlationId: e.correlationId,
    })),
    ...(finished && job.completedAt !== null ? { completedAt: iso(job.completedAt) } : {}),
  };
}

/** Cron backstop: re-queues the remaining chunks of imports idle for `idleMs` (a lost message, a failed send). */
export async function resumeStalledImports(db: Db, queue: Queue<unknown>, now: number, idleMs = 10 * 60_000): Promise<number> {
  const stalled = await db
    .select({ id: bulkImportJobs.id })
    .from(bulkImportJobs)
    .where(
      and(
        // A PENDING job waiting for its platform's slot is not stalled: the job holding the slot starts it.
        or(eq(bulkImportJobs.status, 'PROCESSING'), and(eq(bulkImportJobs.status, 'PENDING'), slotFree(bulkImportJobs.platformId, now))),
        lt(bulkImportJobs.updatedAt, now - idleMs),
      ),
    )
    .limit(20);
  for (const { id } of stalled) {
    const [job] = await db.select().from(bulkImportJobs).where(eq(bulkImportJobs.id, id));
    const left = await db.select({ rowOffset: bulkImportChunks.rowOffset }).from(bulkImportChunks).where(eq(bulkImportChunks.jobId, id));
    await db.update(bulkImportJobs).set({ updatedAt: now }).where(eq(bulkImportJobs.id, id));
    await sendChunks(queue, id, job?.fileError || left.length === 0 ? [0] : left.map((c) => c.rowOffset));
  }
  return stalled.length;
}
