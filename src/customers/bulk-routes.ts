// The bulk import routes: upload a CSV (POST /customers/bulk/csv) and read a job.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { badRequest, invalidFields } from '../http/errors';
import { payloadTooLarge } from '../http/body';
import { multipartBoundary, parseMultipart, type Part } from '../http/multipart';
import { BulkCustomerCsvUpload, BulkCustomerImportJob, BulkCustomerImportJobAccepted, BulkJobIdParams } from './bulk-schema';
import { BULK_MAX_FILE_BYTES, bulkJobFrom, bulkJobLoads, startBulkImport } from './bulk-service';

const tag = 'Customers';

/** The `file` part, read whole (the file is parsed at once to split it into chunks); 413 past the limit. */
async function readCsvPart(parts: AsyncIterable<Part>): Promise<Uint8Array> {
  let file: Uint8Array | null = null;
  for await (const part of parts) {
    if (part.name !== 'file') throw invalidFields('form fields', [{ field: part.name, message: 'Unknown field; send the CSV as `file`' }]);
    if (file) throw badRequest('Only one file per import', { fields: [{ field: 'file', message: 'Sent more than once' }] });
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of part.body) {
      size += chunk.byteLength;
      if (size > BULK_MAX_FILE_BYTES) throw payloadTooLarge(BULK_MAX_FILE_BYTES);
      chunks.push(chunk);
    }
    file = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      file.set(c, at);
      at += c.byteLength;
    }
  }
  if (!file) throw invalidFields('form fields', [{ field: 'file', message: 'A CSV file is required' }]);
  return file;
}

export const bulkImportRoutes = [
  defineRoute({
    method: 'POST',
    path: '/customers/bulk/csv',
    operationId: 'uploadCustomersCsv',
    summary: 'Import customers from a CSV file (multipart `file`); processed in the background',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: 'multipart',
    form: BulkCustomerCsvUpload,
    expensive: true,
    responses: {
      202: { description: 'Accepted; follow the job', schema: BulkCustomerImportJobAccepted },
      ...errorResponses(400, 401, 403, 413),
    },
    handler: async (c) => {
      const boundary = multipartBoundary(c.request.headers.get('Content-Type'));
      const declared = Number(c.request.headers.get('Content-Length') ?? NaN);
      if (declared > BULK_MAX_FILE_BYTES + 64 * 1024) throw payloadTooLarge(BULK_MAX_FILE_BYTES);
      const file = await readCsvPart(parseMultipart(c.request.body, boundary, { maxParts: 2 }));
      return json(await startBulkImport(c.db, c.env.JOBS, c.auth.platform.id, file, c.now), 202);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/bulk/jobs/:jobId',
    operationId: 'getBulkCustomerImportJob',
    summary: 'Get the status, progress and row errors of a bulk import job',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: BulkJobIdParams,
    responses: { 200: { description: 'The job', schema: BulkCustomerImportJob }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => bulkJobLoads(db, platformId, params.jobId),
    handler: (c) => json(bulkJobFrom(c.loaded)),
  }),
];
