import { expect } from 'vitest';
import { api, type TestPlatform } from './api';

let counter = 0;
/** A platformCustomerId unique within the test run. */
export const uniqueId = (prefix = 'cust') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export const ADDRESS = { line1: '123 Main Street', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };

/** A beneficial owner's `personalInfo`, with `overrides`. */
export const personalInfo = (overrides: Record<string, unknown> = {}) => ({
  firstName: 'Jane',
  lastName: 'Smith',
  birthDate: '1978-06-15',
  nationality: 'US',
  email: 'jane.smith@acmecorp.com',
  phoneNumber: '+14155550192',
  address: ADDRESS,
  idType: 'SSN',
  identifier: '123-45-6789',
  ...overrides,
});

export const individualBody = (overrides: Record<string, unknown> = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: uniqueId('ind'),
  fullName: 'Jane Smith',
  birthDate: '1990-01-15',
  nationality: 'US',
  address: ADDRESS,
  ...overrides,
});

export const businessBody = (overrides: Record<string, unknown> = {}, info: Record<string, unknown> = {}) => ({
  customerType: 'BUSINESS',
  platformCustomerId: uniqueId('biz'),
  address: ADDRESS,
  businessInfo: {
    legalName: 'Acme Corporation',
    taxId: '47-1234567',
    incorporatedOn: '2018-03-14',
    registrationNumber: '5523041',
    ...info,
  },
  ...overrides,
});

export async function createCustomer(p: TestPlatform, body: Record<string, unknown> = individualBody()) {
  const res = await api('POST', '/customers', { auth: p.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The customer's internal accounts, by currency (and 'WALLET' for the embedded wallet). */
export async function accountsOf(p: TestPlatform, customerId: string) {
  const res = await api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`, { auth: p.auth });
  expect(res.status).toBe(200);
  return res.body.data as any[];
}

export interface FormPart {
  name: string;
  value?: string;
  filename?: string;
  contentType?: string;
  data?: Uint8Array;
}

/** A multipart/form-data body built by hand, so tests control every byte. */
export function multipart(parts: FormPart[], boundary = `----test${Math.random().toString(16).slice(2)}`) {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
    chunks.push(enc.encode(`${head}\r\n`), p.data ?? enc.encode(p.value ?? ''), enc.encode('\r\n'));
  }
  chunks.push(enc.encode(`--${boundary}--\r\n`));
  const size = chunks.reduce((n, c) => n + c.byteLength, 0);
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function postForm(path: string, auth: string, parts: FormPart[]) {
  const form = multipart(parts);
  return api('POST', path, { auth, raw: form.body, headers: { 'Content-Type': form.contentType } });
}

export { productionApi, workerApi } from './api';

/** Every page of a list, following nextCursor; `between` runs after each page fetch. */
export async function walk(path: string, auth: string, between?: () => Promise<void>) {
  const seen: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api('GET', `${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, { auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body.data);
    if (between) await between();
    if (!res.body.hasMore) {
      expect(res.body).not.toHaveProperty('nextCursor');
      return seen;
    }
    expect(typeof res.body.nextCursor).toBe('string');
    cursor = res.body.nextCursor;
  }
  throw new Error('too many pages');
}

/** The smallest file the document checks accept as a PDF. */
export const MINIMAL_PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
