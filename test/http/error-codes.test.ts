// The errors table (src/http/errors.ts) against the reference's closed enums, /openapi.json and the errors table of docs/conventions.md.
import { describe, expect, it } from 'vitest';
import { CLOSED_STATUSES, ERRORS, REASONS, type ErrorCode, type Reason } from '../../src/http/errors';
import readme from '../../docs/conventions.md?raw';
import { api } from '../support/api';
import reference from './reference-errors.json';

/** The reference's `code` enum of each error status it defines (scripts/reference-operations.py). */
const closed = reference as Record<string, string[]>;
const codes = Object.keys(ERRORS) as ErrorCode[];
const reasons = Object.keys(REASONS) as Reason[];

describe('the errors table', () => {
  it('answers every status the reference closes with a code of its enum', () => {
    expect(Object.keys(closed).length).toBeGreaterThan(8);
    const outside = codes.filter((code) => closed[ERRORS[code]] && !closed[ERRORS[code]]!.includes(code)).map((c) => `${ERRORS[c]} ${c}`);
    expect(outside, 'codes outside the reference enum of their status').toEqual([]);
  });

  it('knows which statuses the reference closes', () => {
    expect([...CLOSED_STATUSES].sort()).toEqual(Object.keys(closed).map(Number).sort());
  });

  it('keeps the codes of statuses the reference leaves open to the ones docs/conventions.md lists', () => {
    const open = codes.filter((code) => !closed[ERRORS[code]]).map((c) => `${ERRORS[c]} ${c}`);
    expect(open.sort()).toEqual(
      [
        '413 PAYLOAD_TOO_LARGE',
        '415 UNSUPPORTED_MEDIA_TYPE',
        '422 IDEMPOTENCY_KEY_REUSED',
        '503 RATES_UNAVAILABLE',
        '503 SERVICE_NOT_CONFIGURED',
        '503 SERVICE_UNAVAILABLE',
      ].sort(),
    );
  });

  it('names each finer case apart from every code, so `details.reason` never reads as a code of the contract', () => {
    const everyCode = new Set([...codes, ...Object.values(closed).flat()]);
    expect(reasons.filter((r) => everyCode.has(r))).toEqual([]);
    expect(reasons.length).toBeGreaterThan(10);
  });
});

type Schema = { $ref?: string; properties?: Record<string, Schema>; enum?: unknown[]; const?: unknown };

describe('/openapi.json', () => {
  it("declares each operation's error codes as the table's enum of that status", async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const components = res.body.components.schemas as Record<string, Schema>;
    const problems: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, { responses: Record<string, any> }>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const ref = response.content?.['application/json']?.schema?.$ref as string | undefined;
          if (ref !== `#/components/schemas/Error${status}`) {
            problems.push(`${where}: answered with ${ref ?? 'no schema'}`);
            continue;
          }
          checked++;
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(300);
    // One schema per status, generated from the table: its codes, and nothing outside the reference's enum.
    const statuses = [...new Set(codes.map((c) => ERRORS[c]))];
    for (const status of statuses) {
      const schema = components[`Error${status}`];
      if (!schema) continue; // a status no operation declares (the 500s of unexpected failures)
      expect(schema.properties!.status!.const, `Error${status}`).toBe(status);
      const declared = schema.properties!.code!.enum as string[];
      expect(declared, `Error${status}`).toEqual(codes.filter((c) => ERRORS[c] === status));
      if (closed[status])
        expect(
          declared.filter((c) => !closed[status]!.includes(c)),
          `Error${status}`,
        ).toEqual([]);
    }
    expect(components.Error404!.properties!.code!.enum).toContain('REFERENCE_NOT_FOUND');
  });
});

/** The errors table of docs/conventions.md: status, code and the finer cases of each row. */
function readmeTable(): { status: number; code: string; reasons: string[] }[] {
  const begin = readme.indexOf('<!-- errors table');
  const end = readme.indexOf('<!-- end of errors table -->');
  expect(begin, 'docs/conventions.md has the errors table markers').toBeGreaterThan(0);
  return readme
    .slice(begin, end)
    .split('\n')
    .filter((line) => /^\| \d{3} \|/.test(line))
    .map((line) => {
      const [, status, code, why] = line.split('|').map((cell) => cell.trim());
      return {
        status: Number(status),
        code: code!.replace(/`/g, ''),
        reasons: [...why!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!),
      };
    });
}

describe('the errors table of docs/conventions.md', () => {
  it('is the table: every code once, with its status and finer cases', () => {
    const rows = readmeTable();
    expect(rows.map((r) => `${r.status} ${r.code}`)).toEqual(codes.map((c) => `${ERRORS[c]} ${c}`));
    for (const row of rows) {
      expect(row.reasons, row.code).toEqual(reasons.filter((r) => REASONS[r] === row.code));
    }
  });
});
