// The bulk import schemas: the accepted job, the job with its error entries.
import * as z from 'zod';
import { BulkJobStatus } from '../db/enums';
import { DateTime } from '../common/time';
import { KNOWN_COLUMNS, REQUIRED_BY_TYPE, REQUIRED_COLUMNS } from './bulk-rows';

export const BulkCustomerImportJobAccepted = z
  .object({
    jobId: z.string().meta({ example: 'Job:019542f5-b3e7-1d02-0000-000000000006' }),
    status: BulkJobStatus.extract(['PENDING', 'PROCESSING']),
  })
  .meta({ id: 'BulkCustomerImportJobAccepted' });

const BulkCustomerImportErrorEntry = z
  .object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    correlationId: z
      .string()
      .meta({ description: "The row's platformCustomerId, else its row number (first data row = 1; 0 = the file itself)" }),
  })
  .meta({ id: 'BulkCustomerImportErrorEntry' });

export const BulkCustomerImportJob = z
  .object({
    id: z.string().meta({ example: 'Job:019542f5-b3e7-1d02-0000-000000000006' }),
    status: BulkJobStatus,
    progress: z.object({ total: z.int(), processed: z.int(), successful: z.int(), failed: z.int() }),
    errors: z.array(BulkCustomerImportErrorEntry),
    completedAt: DateTime.optional().meta({ description: 'Only when COMPLETED or FAILED' }),
  })
  .meta({ id: 'BulkCustomerImportJob' });
export type BulkCustomerImportJobView = z.infer<typeof BulkCustomerImportJob>;

export const BulkJobIdParams = z.object({ jobId: z.string().max(128) });

/** The upload's form, for the OpenAPI document: its columns come from the importer's own lists (bulk-rows.ts). */
export const BulkCustomerCsvUpload = z
  .object({
    file: z.string().meta({
      format: 'binary',
      contentMediaType: 'text/csv',
      description:
        `A CSV file (UTF-8, comma-separated, its first row the header naming the columns, in any order). ` +
        `Required columns: ${REQUIRED_COLUMNS.join(', ')} (customerType INDIVIDUAL or BUSINESS). ` +
        Object.entries(REQUIRED_BY_TYPE)
          .map(([type, columns]) => `Required values for ${type} rows: ${columns.join(', ')}. `)
          .join('') +
        `Optional columns: ${[...KNOWN_COLUMNS].filter((c) => !REQUIRED_COLUMNS.includes(c)).join(', ')}. ` +
        "Any other column makes the whole file invalid (400); a row that does not validate is reported in the job's errors.",
    }),
  })
  .meta({ id: 'BulkCustomerCsvUpload' });
