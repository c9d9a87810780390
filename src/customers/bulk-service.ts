// Bulk import: upload and chunking, the platform's processing slot, the job's view, resumption of stalled jobs
// (a chunk's processing: bulk-chunks.ts).
import { and, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded, Statement } from '../db/client';
import { bulkImportChunks, bulkImportErrors, bulkImportJobs, platforms, type BulkImportJobRow } from '../db/schema';
import { MAX_JSON_BYTES } from '../db/json-rows';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { badRequest, notFound } from '../http/errors';
import { parseCsv, type CsvOversize } from './csv';
import { headerProblem } from './bulk-rows';
import type { BulkCustomerImportJobView } from './bulk-schema';

/**
 * Rows per queue message: one D1 batch of customers and accounts, well inside a Worker invocation's limits.
 * A chunk holding wide rows ends sooner, so its stored JSON stays within `MAX_JSON_BYTES`.
 */
export const BULK_CHUNK_ROWS = 500;
const BULK_MAX_ROWS = 100_000;
export const BULK_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Several times the longest value any column accepts; a longer field cannot be a customer. */
const BULK_MAX_FIELD_CHARS = 1024;
/** A row of every column at its longest still fits; the header counts as a row. */
const BULK_MAX_ROW_CHARS = 16 * 1024;
/** Imports of one platform PROCESSING at once; the others wait as PENDING (one platform cannot fill D1's queue). */
export const BULK_JOBS_PER_PLATFORM = 1;
/**
 * The longest a job holds its slot: one stuck on a chunk that always fails (the cron re-queues it every ten
 * minutes) must not keep its platform's other imports waiting for ever.
 */
const BULK_SLOT_MS = 60 * 60_000;

/** The JOBS queue message that processes one chunk of a bulk import. */
export interface BulkImportMessage {
  type: 'bulk.import';
  jobId: string;
  /** Index of the chunk's first data row (0-based). */
  offset: number;
}

/** A stored chunk of a file: its rows, and where they start in it. */
export type Chunk = { rowOffset: number; rows: string[][] };

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

/** SQL: the platform has fewer than `BULK_JOBS_PER_PLATFORM` imports processing (within `BULK_SLOT_MS` of their start). */
export function slotFree(platformId: string | typeof bulkImportJobs.platformId, now: number): SQL {
  return sql`(SELECT count(*) FROM ${bulkImportJobs} AS running WHERE running.platform_id = ${platformId}
    AND running.status = 'PROCESSING' AND running.started_at > ${now - BULK_SLOT_MS}) < ${BULK_JOBS_PER_PLATFORM}`;
}

/** After a job ends: queues the remaining chunks of the platform's oldest waiting import, which then claims the slot. */
export async function startNextImport(db: Db, queue: Queue<unknown>, platformId: string): Promise<void> {
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
