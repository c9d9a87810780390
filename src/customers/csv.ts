// A CSV parser (RFC 4180) with size limits per field, record and file.
/** Sizes a CSV text must keep to, in characters; `maxRecords` stops a file of countless tiny records early. */
interface CsvLimits {
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

/** Where a CSV text is not CSV, counted as in `CsvOversize`, and why. */
interface CsvMalformed {
  record: number;
  field: number;
  reason: string;
  header?: string[];
}

/** Result of parsing CSV text: its records, where and why the text is not CSV, or where it breaks a size limit. */
type CsvResult = { ok: true; records: string[][] } | { ok: false; malformed: CsvMalformed } | { ok: false; oversize: CsvOversize };

/**
 * RFC 4180 CSV: comma-separated, fields optionally double-quoted (`""` escapes a quote, quoted fields may span
 * lines), CRLF, LF or CR line ends, a leading BOM ignored. Blank lines are skipped. As RFC 4180 readers do, a
 * quote inside an unquoted field or anything but a comma or line end after a closing quote (`"a"b`) is refused,
 * never guessed at. Parsing stops at the first field, record or record count over `limits`.
 */
export function parseCsv(text: string, limits: CsvLimits): CsvResult {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  /** Just past a quoted field's closing quote: only a comma, a line end or the end of the text may follow. */
  let closed = false;
  /** Where the open quoted field began, for an unterminated one. */
  let opened = { record: 0, field: 0 };
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let recordStart = i;
  const endRecord = () => {
    record.push(field);
    if (!(record.length === 1 && record[0] === '' && !fieldStarted)) records.push(record);
    record = [];
    field = '';
    fieldStarted = false;
    closed = false;
    recordStart = i + 1;
  };
  const malformed = (at: { record: number; field: number }, reason: string): CsvResult => ({
    ok: false,
    malformed: { ...at, reason, header: records[0] },
  });
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
        } else {
          quoted = false;
          closed = true;
        }
      } else field += ch;
      continue;
    }
    const here = { record: records.length, field: record.length };
    if (closed && ch !== ',' && ch !== '\n' && ch !== '\r') {
      return malformed(
        here,
        `${JSON.stringify(String.fromCodePoint(text.codePointAt(i)!))} after a quoted field's closing quote, where only a comma or line end may follow`,
      );
    }
    if (ch === '"') {
      if (field !== '') return malformed(here, 'a quote inside an unquoted field (quote the whole field and double its quotes)');
      quoted = true;
      opened = here;
      fieldStarted = true;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      fieldStarted = true;
      closed = false;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else {
      field += ch;
    }
  }
  if (field.length > limits.maxFieldChars) return oversize('field');
  if (text.length - recordStart > limits.maxRecordChars) return oversize('record');
  if (quoted) return malformed(opened, 'a quoted field is never closed');
  if (field !== '' || record.length > 0 || fieldStarted) endRecord();
  if (records.length > limits.maxRecords) return oversize('records');
  return { ok: true, records };
}
