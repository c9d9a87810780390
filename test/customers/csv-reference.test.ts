import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/customers/csv';

// The bulk import's CSV parser against a well-kept RFC 4180 reader (csv-parse), on generated text full of
// quotes, commas, CR and LF: the same rows for every text one accepts, and a refusal wherever the other refuses.

/** No size limit gets in the way here: those have their own tests (test/bulk/bulk.test.ts). */
const UNLIMITED = { maxFieldChars: Infinity, maxRecordChars: Infinity, maxRecords: Infinity };

/** csv-parse configured to our dialect: a leading BOM dropped, blank lines skipped, CRLF, LF or CR line ends, rows of any width. */
const REFERENCE = { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: ['\r\n', '\n', '\r'] };

type Outcome = { ok: true; records: string[][] } | { ok: false };

function ours(text: string): Outcome {
  const result = parseCsv(text, UNLIMITED);
  return result.ok ? result : { ok: false };
}

function reference(text: string): Outcome {
  try {
    return { ok: true, records: parse(text, REFERENCE) as string[][] };
  } catch (e) {
    // Only the reader's refusals of the text count; anything else is a broken test.
    expect((e as { code?: string }).code).toMatch(/^(CSV_|INVALID_)/);
    return { ok: false };
  }
}

const SEED = 20261125;
const RUNS = 3000;

/** Field text weighted towards the characters CSV treats specially. */
const fieldText = fc.string({ unit: fc.constantFrom('"', ',', '\r', '\n', 'a', 'b', ' ', 'é', '😀'), maxLength: 8 });
const lineEnd = fc.constantFrom('\r\n', '\n', '\r');

/** Records and one way of writing them: each field quoted when it must be (and sometimes when it need not). */
const written = fc
  .record({
    records: fc.array(fc.array(fc.tuple(fieldText, fc.boolean()), { minLength: 1, maxLength: 5 }), { maxLength: 6 }),
    ends: fc.array(fc.tuple(lineEnd, fc.boolean()), { minLength: 6, maxLength: 6 }),
    bom: fc.boolean(),
    finalEnd: fc.boolean(),
  })
  .map(({ records, ends, bom, finalEnd }) => {
    const field = (text: string, quote: boolean, alone: boolean) =>
      // A record of one empty field is written `""`, else it would be a blank line (skipped).
      /[",\r\n]/.test(text) || quote || (alone && text === '') ? `"${text.replaceAll('"', '""')}"` : text;
    const lines = records.map((r, i) => {
      const [end, blankAfter] = ends[i]!;
      const line = r.map(([text, quote]) => field(text, quote, r.length === 1)).join(',');
      return i < records.length - 1 || finalEnd ? line + end + (blankAfter ? end : '') : line;
    });
    return { rows: records.map((r) => r.map(([text]) => text)), text: (bom ? '\ufeff' : '') + lines.join('') };
  });

describe('parseCsv against csv-parse', () => {
  it('reads back every generated file as written, as the reference does', () => {
    fc.assert(
      fc.property(written, ({ rows, text }) => {
        expect(reference(text)).toEqual({ ok: true, records: rows });
        expect(ours(text)).toEqual({ ok: true, records: rows });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('accepts and refuses the same arbitrary texts, with the same rows when accepted', () => {
    const text = fc.string({ unit: fc.constantFrom('"', '"', ',', '\r', '\n', 'a', ' '), maxLength: 30 });
    fc.assert(
      fc.property(text, (t) => {
        expect(ours(t)).toEqual(reference(t));
      }),
      { seed: SEED, numRuns: RUNS * 3 },
    );
  });

  it('agrees with the reference on a valid file with a character put after one of its quotes (after a closing quote: both refuse)', () => {
    let refused = 0;
    const broken = written
      .filter(({ text }) => text.includes('"'))
      .chain(({ text }) => {
        const closing = [...text.matchAll(/"/g)].map((m) => m.index);
        return fc.tuple(fc.constant(text), fc.constantFrom(...closing), fc.constantFrom('a', ' ', '"', 'é'));
      })
      .map(([text, at, ch]) => text.slice(0, at + 1) + ch + text.slice(at + 1));
    fc.assert(
      fc.property(broken, (t) => {
        const expected = reference(t);
        expect(ours(t)).toEqual(expected);
        if (!expected.ok) refused++;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // Most insertions land after a closing quote (quoted fields have one opening quote and one closing).
    expect(refused).toBeGreaterThan(RUNS / 4);
  });

  it.each([
    ['"a"b,c\n', 0, 0, /"b" after a quoted field's closing quote/],
    ['x,y\nz,"a" ,c\n', 1, 1, /" " after a quoted field's closing quote/],
    ['x,y\nz,a"b\n', 1, 1, /quote inside an unquoted field/],
    ['x,y\nz,"open\n', 1, 1, /never closed/],
  ])('refuses %j at record %i, field %i', (text, record, field, reason) => {
    expect(reference(text)).toEqual({ ok: false });
    const result = parseCsv(text, UNLIMITED);
    expect(result).toEqual({
      ok: false,
      malformed: { record, field, reason: expect.stringMatching(reason), header: record ? ['x', 'y'] : undefined },
    });
  });
});
