/** Result of parsing CSV text: its records, or why the text is not CSV. */
export type CsvResult = { ok: true; records: string[][] } | { ok: false; error: string };

/**
 * RFC 4180 CSV: comma-separated, fields optionally double-quoted (`""` escapes a quote, quoted fields may span
 * lines), CRLF or LF line ends, a leading BOM ignored. Blank lines are skipped.
 */
export function parseCsv(text: string): CsvResult {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    record.push(field);
    if (!(record.length === 1 && record[0] === '' && !fieldStarted)) records.push(record);
    record = [];
    field = '';
    fieldStarted = false;
  };
  for (; i < text.length; i++) {
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
  if (quoted) return { ok: false, error: 'Unterminated quoted field at the end of the file' };
  if (field !== '' || record.length > 0 || fieldStarted) endRecord();
  return { ok: true, records };
}
