/** Sizes a CSV text must keep to, in characters; `maxRecords` stops a file of countless tiny records early. */
export interface CsvLimits {
  maxFieldChars: number;
  maxRecordChars: number;
  maxRecords: number;
}

/** Where a CSV text first breaks a size limit: its record (0 = the first) and, for a field, the field's index. */
export interface CsvOversize {
  record: number;
  field?: number;
  limit: 'field' | 'record' | 'records';
  /** The first record, when it was read whole (so a caller can name columns). */
  header?: string[];
}

/** Result of parsing CSV text: its records, why the text is not CSV, or where it breaks a size limit. */
export type CsvResult = { ok: true; records: string[][] } | { ok: false; error: string } | { ok: false; oversize: CsvOversize };

/**
 * RFC 4180 CSV: comma-separated, fields optionally double-quoted (`""` escapes a quote, quoted fields may span
 * lines), CRLF or LF line ends, a leading BOM ignored. Blank lines are skipped. Parsing stops at the first
 * field, record or record count over `limits`.
 */
export function parseCsv(text: string, limits: CsvLimits): CsvResult {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let recordStart = i;
  const endRecord = () => {
    record.push(field);
    if (!(record.length === 1 && record[0] === '' && !fieldStarted)) records.push(record);
    record = [];
    field = '';
    fieldStarted = false;
    recordStart = i + 1;
  };
  const oversize = (limit: CsvOversize['limit']): CsvResult => ({
    ok: false,
    oversize: { record: records.length, limit, header: records[0], ...(limit === 'field' ? { field: record.length } : {}) },
  });
  for (; i < text.length; i++) {
    if (field.length > limits.maxFieldChars) return oversize('field');
    if (i - recordStart > limits.maxRecordChars) return oversize('record');
    if (records.length > limits.maxRecords) return oversize('records');
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
      continue;
    }
    if (ch === '"') {
      if (field !== '') return { ok: false, error: `Unexpected quote inside an unquoted field (record ${records.length + 1})` };
      quoted = true;
      fieldStarted = true;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      fieldStarted = true;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else {
      field += ch;
    }
  }
  if (field.length > limits.maxFieldChars) return oversize('field');
  if (text.length - recordStart > limits.maxRecordChars) return oversize('record');
  if (quoted) return { ok: false, error: 'Unterminated quoted field at the end of the file' };
  if (field !== '' || record.length > 0 || fieldStarted) endRecord();
  if (records.length > limits.maxRecords) return oversize('records');
  return { ok: true, records };
}
