import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { ADDRESS, businessBody, createCustomer, multipart, postForm, walk, type FormPart } from '../support/customers';

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

const fields = (holder: string, extra: Record<string, string> = {}): FormPart[] =>
  Object.entries({ documentHolder: holder, documentType: 'PASSPORT', country: 'US', ...extra }).map(([name, value]) => ({ name, value }));
const pdf = (data = PDF, filename = 'passport_scan.pdf', contentType = 'application/pdf'): FormPart => ({
  name: 'file',
  filename,
  contentType,
  data,
});

const digest = async (b: Uint8Array) =>
  [...new Uint8Array(await crypto.subtle.digest('SHA-256', b))].map((x) => x.toString(16).padStart(2, '0')).join('');

const upload = (p: TestPlatform, parts: FormPart[]) => postForm('/documents', p.auth, parts);
const replace = (auth: string, id: string, parts: FormPart[]) => {
  const form = multipart(parts);
  return api('PUT', `/documents/${id}`, { auth, raw: form.body, headers: { 'Content-Type': form.contentType } });
};
/** The reference's replace form: the upload's fields without documentHolder. */
const replaceFields = (extra: Record<string, string> = {}): FormPart[] =>
  Object.entries({ documentType: 'PASSPORT', country: 'US', ...extra }).map(([name, value]) => ({ name, value }));
const objectsOf = async (p: TestPlatform) => (await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` })).objects.map((o) => o.key);

/** A PDF of `size` bytes, filled with a repeating pattern so corruption would show. */
function bigPdf(size: number): Uint8Array {
  const data = new Uint8Array(size);
  for (let i = 0; i < size; i++) data[i] = (i * 31 + 7) & 0xff;
  data.set(PDF.subarray(0, 8));
  return data;
}

describe('POST /documents', () => {
  it('stores the file in R2 and the metadata in D1 (reference Document shape)', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const res = await upload(p, [
      ...fields(c.id, { side: 'FRONT', documentNumber: 'A12345678', issuingAuthority: 'U.S. Department of State' }),
      pdf(),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^Document:[0-9a-f-]{36}$/),
      documentHolder: c.id,
      documentType: 'PASSPORT',
      side: 'FRONT',
      country: 'US',
      documentNumber: 'A12345678',
      issuingAuthority: 'U.S. Department of State',
      fileName: 'passport_scan.pdf',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const stored = await env.DOCUMENTS.get(`documents/${p.id}/${res.body.id}`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(PDF);
    expect(stored!.httpMetadata?.contentType).toBe('application/pdf');
    expect((await api('GET', `/documents/${res.body.id}`, { auth: p.auth })).body).toEqual(res.body);
  });

  it('accepts the file before the fields, PNG and JPEG, and beneficial owners as holders', async () => {
    const p = await newPlatform();
    const b = await createCustomer(p, businessBody());
    const owner = await api('POST', '/beneficial-owners', {
      auth: p.auth,
      body: {
        customerId: b.id,
        roles: ['UBO'],
        ownershipPercentage: 60,
        personalInfo: {
          firstName: 'A',
          lastName: 'B',
          birthDate: '1980-01-01',
          nationality: 'US',
          address: ADDRESS,
          idType: 'SSN',
          identifier: '1',
        },
      },
    });
    const res = await upload(p, [
      pdf(PNG, 'id-back.png', 'image/png'),
      ...fields(owner.body.id, { documentType: 'DRIVERS_LICENSE', side: 'BACK' }),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ documentHolder: owner.body.id, fileName: 'id-back.png', side: 'BACK' });
    const jpeg = await upload(p, [
      ...fields(b.id, { documentType: 'UTILITY_BILL' }),
      pdf(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2]), '../../etc/bill.jpg', 'image/jpeg'),
    ]);
    expect(jpeg.body.fileName).toBe('bill.jpg');
  });

  it('streams a file larger than one R2 part intact (multipart upload)', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const data = bigPdf(6 * 1024 * 1024 + 123);
    const res = await upload(p, [...fields(c.id), pdf(data, 'big.pdf')]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = await env.DOCUMENTS.get(`documents/${p.id}/${res.body.id}`);
    const bytes = new Uint8Array(await stored!.arrayBuffer());
    expect(bytes.byteLength).toBe(data.byteLength);
    expect(await digest(bytes)).toBe(await digest(data));
  });

  it('answers 413 above 10 MB, streamed or declared, and stores nothing', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const tooBig = bigPdf(10 * 1024 * 1024 + 1);
    const form = multipart([...fields(c.id), pdf(tooBig, 'huge.pdf')]);
    // Streamed without a Content-Length: refused while reading.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < form.body.byteLength; i += 65536) controller.enqueue(form.body.slice(i, i + 65536));
        controller.close();
      },
    });
    const streamed = await api('POST', '/documents', { auth: p.auth, raw: stream, headers: { 'Content-Type': form.contentType } });
    expectError(streamed, 413, 'PAYLOAD_TOO_LARGE');
    const declared = await api('POST', '/documents', { auth: p.auth, raw: form.body, headers: { 'Content-Type': form.contentType } });
    expectError(declared, 413, 'PAYLOAD_TOO_LARGE');
    // Exactly 10 MB is accepted.
    expect((await upload(p, [...fields(c.id), pdf(bigPdf(10 * 1024 * 1024), 'max.pdf')])).status).toBe(201);
    const listed = await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` });
    expect(listed.objects).toHaveLength(1);
    expect((await api('GET', '/documents', { auth: p.auth })).body.totalCount).toBe(1);
  });

  it('answers 400 for unsupported file types, content that does not match, bad fields and bodies; 415 for a JSON body', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const cases: [FormPart[], string[]][] = [
      [[...fields(c.id), pdf(new TextEncoder().encode('hello'), 'notes.txt', 'text/plain')], ['file']],
      [[...fields(c.id), pdf(new TextEncoder().encode('<html>'), 'fake.pdf', 'application/pdf')], ['file']],
      [[...fields(c.id), pdf(PDF, 'x.pdf', '')], ['file']],
      [fields(c.id), ['file']],
      [[...fields(c.id, { documentType: 'LIBRARY_CARD' }), pdf()], ['documentType']],
      [
        [...fields(c.id, { country: 'USA', side: 'TOP' }), pdf()],
        ['country', 'side'],
      ],
      [[{ name: 'documentType', value: 'PASSPORT' }, { name: 'country', value: 'US' }, pdf()], ['documentHolder']],
      [[...fields(c.id), { name: 'colour', value: 'blue' }, pdf()], ['colour']],
      [[...fields('Agent:123'), pdf()], ['documentHolder']],
      [[...fields(c.id), pdf(), pdf()], ['file']],
    ];
    for (const [parts, names] of cases) {
      const res = await upload(p, parts);
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort(), JSON.stringify(parts.map((x) => x.name))).toEqual([...names].sort());
    }
    expectError(await api('POST', '/documents', { auth: p.auth, body: { documentHolder: c.id } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const noClose = new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="country"\r\n\r\nUS');
    expectError(
      await api('POST', '/documents', { auth: p.auth, raw: noClose, headers: { 'Content-Type': 'multipart/form-data; boundary=b' } }),
      400,
      'INVALID_INPUT',
    );
    expect((await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` })).objects).toHaveLength(0);
  });

  it('404s a holder of another platform or unknown, 410s a deleted customer, needs MANAGE', async () => {
    const p = await newPlatform();
    const q = await newPlatform();
    const theirs = await createCustomer(q);
    expectError(await upload(p, [...fields(theirs.id), pdf()]), 404, 'USER_NOT_FOUND');
    expectError(
      await upload(p, [...fields('BeneficialOwner:00000000-0000-7000-8000-000000000000'), pdf()]),
      404,
      'REFERENCE_NOT_FOUND',
      'BENEFICIAL_OWNER_NOT_FOUND',
    );
    const gone = await createCustomer(p);
    await api('DELETE', `/customers/${gone.id}`, { auth: p.auth });
    expectError(await upload(p, [...fields(gone.id), pdf()]), 410, 'CUSTOMER_DELETED');
    expect((await env.DOCUMENTS.list({ prefix: `documents/${p.id}/` })).objects).toHaveLength(0);
    const mine = await createCustomer(p);
    expectError(await postForm('/documents', await tokenWith(p, ['VIEW', 'TRANSACT']), [...fields(mine.id), pdf()]), 403);
    expectError(await postForm('/documents', '', [...fields(mine.id), pdf()]), 401);
  });
});

describe('GET /documents', () => {
  it("filters by documentHolder and pages: limit 1..100 default 20, nextCursor only when hasMore, totalCount the platform's or the holder's", async () => {
    const p = await newPlatform();
    const a = await createCustomer(p);
    const b = await createCustomer(p);
    const ofA = [];
    for (let i = 0; i < 23; i++) ofA.push((await upload(p, [...fields(a.id), pdf()])).body.id);
    const ofB = (await upload(p, [...fields(b.id), pdf()])).body.id;
    const def = (await api('GET', '/documents', { auth: p.auth })).body;
    expect(def.data).toHaveLength(20);
    expect(def).toMatchObject({ hasMore: true, totalCount: 24, nextCursor: expect.any(String) });
    const last = (await api('GET', `/documents?cursor=${def.nextCursor}`, { auth: p.auth })).body;
    expect(last.data.map((d: any) => d.id)).toEqual([...ofA.slice(20), ofB]);
    expect(last).toEqual({ data: last.data, hasMore: false, totalCount: 24 });
    const holder = (await api('GET', `/documents?documentHolder=${a.id}&limit=10`, { auth: p.auth })).body;
    expect(holder.data.map((d: any) => d.id)).toEqual(ofA.slice(0, 10));
    expect(holder.hasMore).toBe(true);
    expect(holder.totalCount).toBe(23); // the holder's maintained count
    const middle = (await api('GET', `/documents?documentHolder=${a.id}&limit=10&cursor=${holder.nextCursor}`, { auth: p.auth })).body;
    expect(middle.data.map((d: any) => d.id)).toEqual(ofA.slice(10, 20));
    expect(middle.hasMore).toBe(true);
    expect((await api('GET', `/documents?documentHolder=${b.id}`, { auth: p.auth })).body).toEqual({
      data: [expect.objectContaining({ id: ofB })],
      hasMore: false,
      totalCount: 1,
    });
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'cursor=%%%'])
      expectError(await api('GET', `/documents?${bad}`, { auth: p.auth }), 400, 'INVALID_INPUT');
    expect((await api('GET', '/documents?limit=100', { auth: p.auth })).body.data).toHaveLength(24);
  });

  it('walks every pre-existing document once while new ones arrive', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const before = [];
    for (let i = 0; i < 5; i++) before.push((await upload(p, [...fields(c.id), pdf()])).body.id);
    const seen = (await walk('/documents?limit=2', p.auth, async () => void (await upload(p, [...fields(c.id), pdf()])))).map((d) => d.id);
    for (const id of before) expect(seen.filter((x) => x === id)).toHaveLength(1);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('is per platform and needs VIEW', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const doc = (await upload(p, [...fields(c.id), pdf()])).body;
    const q = await newPlatform();
    expect((await api('GET', '/documents', { auth: q.auth })).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
    expect((await api('GET', `/documents?documentHolder=${c.id}`, { auth: q.auth })).body).toEqual({
      data: [],
      hasMore: false,
      totalCount: 0,
    });
    expectError(await api('GET', `/documents/${doc.id}`, { auth: q.auth }), 404, 'REFERENCE_NOT_FOUND', 'DOCUMENT_NOT_FOUND');
    expectError(await api('GET', '/documents', { auth: await tokenWith(p, ['MANAGE']) }), 403);
    expectError(await api('GET', `/documents/${doc.id}`, { auth: await tokenWith(p, ['TRANSACT']) }), 403);
  });
});

describe('PUT /documents/{id} (reference replaceDocument)', () => {
  it('replaces the file and the fields (omitted optional ones cleared), keeps id, holder and createdAt, leaves no old object', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const doc = (await upload(p, [...fields(c.id, { side: 'FRONT', documentNumber: 'A1', issuingAuthority: 'DMV' }), pdf()])).body;
    const res = await replace(p.auth, doc.id, [
      ...replaceFields({ documentType: 'DRIVERS_LICENSE', country: 'CA', side: 'BACK' }),
      pdf(PNG, 'licence-back.png', 'image/png'),
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: doc.id,
      documentHolder: c.id,
      documentType: 'DRIVERS_LICENSE',
      side: 'BACK',
      country: 'CA',
      fileName: 'licence-back.png',
      createdAt: doc.createdAt,
      updatedAt: expect.any(String),
    });
    expect((await api('GET', `/documents/${doc.id}`, { auth: p.auth })).body).toEqual(res.body);
    const keys = await objectsOf(p);
    expect(keys).toHaveLength(1);
    const stored = await env.DOCUMENTS.get(keys[0]!);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(PNG);
    expect(stored!.httpMetadata?.contentType).toBe('image/png');

    // Replaced again, then deleted: nothing is left in R2.
    expect((await replace(p.auth, doc.id, [...replaceFields(), pdf()])).status).toBe(200);
    expect(await objectsOf(p)).toHaveLength(1);
    expect((await api('DELETE', `/documents/${doc.id}`, { auth: p.auth })).status).toBe(204);
    expect(await objectsOf(p)).toEqual([]);
  });

  it('validates as upload does and a refusal leaves the document and its file as they were', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const doc = (await upload(p, [...fields(c.id), pdf()])).body;
    const before = await objectsOf(p);
    const cases: [FormPart[], string[]][] = [
      [replaceFields(), ['file']],
      [[...replaceFields(), pdf(new TextEncoder().encode('<html>'), 'fake.pdf', 'application/pdf')], ['file']],
      [
        [...replaceFields({ documentType: 'LIBRARY_CARD', country: 'USA' }), pdf()],
        ['country', 'documentType'],
      ],
      [[{ name: 'country', value: 'US' }, pdf()], ['documentType']],
      [[...replaceFields({ documentHolder: c.id }), pdf()], ['documentHolder']],
      [[...replaceFields(), { name: 'colour', value: 'blue' }, pdf()], ['colour']],
    ];
    for (const [parts, names] of cases) {
      const res = await replace(p.auth, doc.id, parts);
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort(), JSON.stringify(parts.map((x) => x.name))).toEqual([...names].sort());
    }
    const tooBig = multipart([...replaceFields(), pdf(bigPdf(10 * 1024 * 1024 + 1), 'huge.pdf')]);
    expectError(
      await api('PUT', `/documents/${doc.id}`, { auth: p.auth, raw: tooBig.body, headers: { 'Content-Type': tooBig.contentType } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectError(
      await api('PUT', `/documents/${doc.id}`, { auth: p.auth, body: { documentType: 'PASSPORT' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect((await api('GET', `/documents/${doc.id}`, { auth: p.auth })).body).toEqual(doc);
    expect(await objectsOf(p)).toEqual(before);
    expect(new Uint8Array(await (await env.DOCUMENTS.get(before[0]!))!.arrayBuffer())).toEqual(PDF);
  });

  it('concurrent replacements leave one file, the one the record names', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const doc = (await upload(p, [...fields(c.id), pdf()])).body;
    const results = await Promise.all(
      [1, 2, 3].map((n) => replace(p.auth, doc.id, [...replaceFields({ documentNumber: `N${n}` }), pdf(PDF, `v${n}.pdf`)])),
    );
    for (const r of results) expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
    expect(results.some((r) => r.status === 200)).toBe(true);
    const now = (await api('GET', `/documents/${doc.id}`, { auth: p.auth })).body;
    expect(results.filter((r) => r.status === 200).map((r) => r.body)).toContainEqual(now);
    expect(await objectsOf(p)).toHaveLength(1);
  });

  it('404s another platform’s or an unknown document, 410s when the holder was deleted, needs MANAGE', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const doc = (await upload(p, [...fields(c.id), pdf()])).body;
    const q = await newPlatform();
    expectError(await replace(q.auth, doc.id, [...replaceFields(), pdf()]), 404, 'REFERENCE_NOT_FOUND', 'DOCUMENT_NOT_FOUND');
    expectError(
      await replace(p.auth, 'Document:00000000-0000-7000-8000-000000000000', [...replaceFields(), pdf()]),
      404,
      'REFERENCE_NOT_FOUND',
      'DOCUMENT_NOT_FOUND',
    );
    expectError(await replace(await tokenWith(p, ['VIEW', 'TRANSACT']), doc.id, [...replaceFields(), pdf()]), 403);
    expectError(await replace('', doc.id, [...replaceFields(), pdf()]), 401);
    await api('DELETE', `/customers/${c.id}`, { auth: p.auth });
    expectError(await replace(p.auth, doc.id, [...replaceFields({ documentType: 'UTILITY_BILL' }), pdf()]), 410, 'CUSTOMER_DELETED');
    expect((await api('GET', `/documents/${doc.id}`, { auth: p.auth })).body.documentType).toBe('PASSPORT');
    expect(await objectsOf(p)).toHaveLength(1);
    expect(await objectsOf(q)).toEqual([]);
  });
});

describe('DELETE /documents/{id}', () => {
  it('removes the record and the file; other platforms get 404; needs MANAGE', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const doc = (await upload(p, [...fields(c.id), pdf()])).body;
    const q = await newPlatform();
    expectError(await api('DELETE', `/documents/${doc.id}`, { auth: q.auth }), 404, 'REFERENCE_NOT_FOUND', 'DOCUMENT_NOT_FOUND');
    expectError(await api('DELETE', `/documents/${doc.id}`, { auth: await tokenWith(p, ['VIEW']) }), 403);
    const res = await api('DELETE', `/documents/${doc.id}`, { auth: p.auth });
    expect(res.status).toBe(204);
    expect(await env.DOCUMENTS.get(`documents/${p.id}/${doc.id}`)).toBeNull();
    expectError(await api('GET', `/documents/${doc.id}`, { auth: p.auth }), 404);
    expectError(await api('DELETE', `/documents/${doc.id}`, { auth: p.auth }), 404);
  });
});
