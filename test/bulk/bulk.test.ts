import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { api, expectError, failingFields, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import { createCustomer, individualBody, multipart, postForm, workerApi } from '../support/customers';
import sampleCsv from '../../docs/samples/customers.csv?raw';

const HEADER =
  'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,email,businessLegalName,businessRegistrationNumber,businessTaxId';
const person = (id: string, extra: Partial<Record<'uma' | 'name' | 'line2', string>> = {}) =>
  `${extra.uma ?? `$${id}@platform.test`},${id},INDIVIDUAL,${extra.name ?? 'Jane Doe'},1990-01-15,1 Main St,${extra.line2 ?? ''},San Francisco,CA,94105,US,${id}@example.com,,,`;
const company = (id: string) => `$${id}@platform.test,${id},BUSINESS,,,400 Commerce Way,,Austin,TX,78701,US,,${id} LLC,REG-${id},TAX-1`;
const csvOf = (rows: string[], header = HEADER) => `${header}\n${rows.join('\n')}\n`;
/** Rows name the platform's UMA domain `platform.test`; `upload` puts the uploading platform's own domain there. */
const onDomainOf = (p: TestPlatform, csv: string) => csv.replaceAll('@platform.test,', `@${p.umaDomain},`);

/** A stand-in for the JOBS producer that keeps the messages, so a test delivers them itself. */
function capture() {
  const sent: any[] = [];
  const queue = {
    send: async (body: unknown) => void sent.push(body),
    sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)),
  };
  return { queue: queue as unknown as Queue<unknown>, sent };
}

async function upload(p: TestPlatform, file: string | Uint8Array) {
  const { queue, sent } = capture();
  const form = multipart([
    {
      name: 'file',
      filename: 'customers.csv',
      contentType: 'text/csv',
      data: typeof file === 'string' ? new TextEncoder().encode(onDomainOf(p, file)) : file,
    },
  ]);
  const res = await workerApi(
    'POST',
    '/customers/bulk/csv',
    { JOBS: queue },
    { auth: p.auth, raw: form.body, headers: { 'Content-Type': form.contentType } },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toEqual({ jobId: expect.stringMatching(/^Job:[0-9a-f-]{36}$/), status: 'PENDING' });
  return { jobId: res.body.jobId as string, messages: sent };
}

let seq = 0;
/** Delivers message bodies to the Worker's real queue consumer; every message must be acked. */
async function deliver(bodies: unknown[]) {
  const messages = bodies.map((body) => ({ id: `msg-${seq++}`, timestamp: new Date(), attempts: 1, body }));
  const batch = createMessageBatch('payments-platform-jobs', messages);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual([]);
  expect([...result.explicitAcks].sort()).toEqual(messages.map((m) => m.id).sort());
}

const job = async (p: TestPlatform, id: string) => {
  const res = await api('GET', `/customers/bulk/jobs/${id}`, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const customerCount = async (p: TestPlatform) => (await api('GET', '/customers?limit=1', { auth: p.auth })).body.totalCount;

describe('bulk CSV import', () => {
  it("imports the documentation's sample file (docs/samples/customers.csv) whole", async () => {
    const p = await newPlatform();
    // The sample names a fresh `npm start`'s UMA domain; this platform has its own.
    const { jobId, messages } = await upload(p, sampleCsv.replaceAll('@sandbox.local.test,', '@platform.test,'));
    await deliver(messages);
    expect(await job(p, jobId)).toEqual({
      id: jobId,
      status: 'COMPLETED',
      progress: { total: 3, processed: 3, successful: 3, failed: 0 },
      completedAt: expect.stringMatching(/Z$/),
      errors: [],
    });
    const business = await api('GET', '/customers?platformCustomerId=csv-acme-003', { auth: p.auth });
    expect(business.status).toBe(200);
    expect(business.body.data[0]).toMatchObject({
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Acme Supplies LLC', taxId: '12-3456789' },
    });
  });

  it('imports good rows and records one exact error entry per bad row', async () => {
    const p = await newPlatform();
    await createCustomer(p, individualBody({ platformCustomerId: 'taken-by-api' }));
    const rows = [
      person('good-1', { line2: '"Apt 4, ""Rear"""' }),
      company('good-biz'),
      person('no-name', { name: '' }),
      '$anon@platform.test,,INDIVIDUAL,Ann Onymous,1990-01-15,1 Main St,,SF,CA,94105,US,,,,',
      person('good-1'),
      person('wrong-domain', { uma: '$wrong@elsewhere.test' }),
      person('taken-by-api'),
      person('uma-clash', { uma: '$good-biz@platform.test' }),
      'only,three,fields',
      `$robot@platform.test,robot,ROBOT,,,,,,,,,,,,`,
      person('good-2', { line2: '"Line one\nline two"' }),
      person('bad-date').replace('1990-01-15', '15/01/1990'),
    ];
    const { jobId, messages } = await upload(p, csvOf(rows));
    expect(messages).toEqual([{ type: 'bulk.import', jobId, offset: 0 }]);
    expect(await job(p, jobId)).toEqual({
      id: jobId,
      status: 'PENDING',
      progress: { total: 12, processed: 0, successful: 0, failed: 0 },
      errors: [],
    });
    await deliver(messages);
    const done = await job(p, jobId);
    expect(done).toEqual({
      id: jobId,
      status: 'COMPLETED',
      progress: { total: 12, processed: 12, successful: 3, failed: 9 },
      completedAt: expect.stringMatching(/Z$/),
      errors: [
        {
          code: 'INVALID_INPUT',
          message: 'Invalid row: fullName',
          details: { row: 3, fields: [{ field: 'fullName', message: 'Required' }] },
          correlationId: 'no-name',
        },
        {
          code: 'INVALID_INPUT',
          message: 'Invalid row: platformCustomerId',
          details: { row: 4, fields: [{ field: 'platformCustomerId', message: 'Required' }] },
          correlationId: '4',
        },
        { code: 'CONFLICT', message: 'platformCustomerId good-1 is already used by row 1', details: { row: 5 }, correlationId: 'good-1' },
        {
          code: 'INVALID_INPUT',
          message: 'Invalid row: umaAddress',
          details: { row: 6, fields: [{ field: 'umaAddress', message: `Must be on the platform's UMA domain ${p.umaDomain}` }] },
          correlationId: 'wrong-domain',
        },
        {
          code: 'CONFLICT',
          message: 'platformCustomerId taken-by-api is already used by an existing customer',
          details: { row: 7 },
          correlationId: 'taken-by-api',
        },
        {
          code: 'UMA_ADDRESS_EXISTS',
          message: `UMA address $good-biz@${p.umaDomain} is already used by row 2`,
          details: { row: 8 },
          correlationId: 'uma-clash',
        },
        {
          code: 'INVALID_INPUT',
          message: 'Invalid row: (row)',
          details: { row: 9, fields: [{ field: '(row)', message: 'The row has 3 fields; the header has 15' }] },
          correlationId: 'three',
        },
        {
          code: 'INVALID_INPUT',
          message: 'Invalid row: customerType',
          details: { row: 10, fields: [expect.objectContaining({ field: 'customerType' })] },
          correlationId: 'robot',
        },
        {
          code: 'INVALID_INPUT',
          message: 'Invalid row: birthDate',
          details: { row: 12, fields: [expect.objectContaining({ field: 'birthDate' })] },
          correlationId: 'bad-date',
        },
      ],
    });
    expect(await customerCount(p)).toBe(4);
    const good = (await api('GET', '/customers?platformCustomerId=good-1', { auth: p.auth })).body.data[0];
    expect(good).toMatchObject({
      customerType: 'INDIVIDUAL',
      umaAddress: `$good-1@${p.umaDomain}`,
      email: 'good-1@example.com',
      fullName: 'Jane Doe',
      birthDate: '1990-01-15',
      kycStatus: 'UNVERIFIED',
      address: { line1: '1 Main St', line2: 'Apt 4, "Rear"', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
    });
    expect((await api('GET', '/customers?platformCustomerId=good-2', { auth: p.auth })).body.data[0].address.line2).toBe(
      'Line one\nline two',
    );
    const biz = (await api('GET', '/customers?platformCustomerId=good-biz', { auth: p.auth })).body.data[0];
    expect(biz.businessInfo).toEqual({ legalName: 'good-biz LLC', registrationNumber: 'REG-good-biz', taxId: 'TAX-1' });
    // Imported customers get their internal accounts like API-created ones.
    expect((await api('GET', `/customers/internal-accounts?customerId=${biz.id}`, { auth: p.auth })).body.totalCount).toBe(6);
  });

  it('refuses a UMA address differing only in case from an existing customer or an earlier row, as that row’s error', async () => {
    const p = await newPlatform();
    await createCustomer(p, individualBody({ umaAddress: `$Kim@${p.umaDomain}` }));
    const rows = [person('kim-row', { uma: '$KIM@platform.test' }), person('lee'), person('lee-row', { uma: '$LEE@platform.test' })];
    const { jobId, messages } = await upload(p, csvOf(rows));
    await deliver(messages);
    expect(await job(p, jobId)).toMatchObject({
      status: 'COMPLETED',
      progress: { total: 3, processed: 3, successful: 1, failed: 2 },
      errors: [
        {
          code: 'UMA_ADDRESS_EXISTS',
          message: `UMA address $KIM@${p.umaDomain} is already used by an existing customer`,
          details: { row: 1 },
          correlationId: 'kim-row',
        },
        {
          code: 'UMA_ADDRESS_EXISTS',
          message: `UMA address $LEE@${p.umaDomain} is already used by row 2`,
          details: { row: 3 },
          correlationId: 'lee-row',
        },
      ],
    });
    expect(await customerCount(p)).toBe(2);
  });

  it('goes PENDING -> PROCESSING -> COMPLETED chunk by chunk; completedAt only at the end', async () => {
    const p = await newPlatform();
    const rows = Array.from({ length: 1200 }, (_, i) => person(`r${i}`));
    const { jobId, messages } = await upload(p, csvOf(rows));
    expect(messages.map((m) => m.offset)).toEqual([0, 500, 1000]);
    await deliver([messages[1]]);
    expect(await job(p, jobId)).toEqual({
      id: jobId,
      status: 'PROCESSING',
      progress: { total: 1200, processed: 500, successful: 500, failed: 0 },
      errors: [],
    });
    await deliver([messages[2]]);
    expect(await job(p, jobId)).toMatchObject({ status: 'PROCESSING', progress: { processed: 700, successful: 700 } });
    await deliver([messages[0]]);
    const done = await job(p, jobId);
    expect(done).toEqual({
      id: jobId,
      status: 'COMPLETED',
      progress: { total: 1200, processed: 1200, successful: 1200, failed: 0 },
      errors: [],
      completedAt: expect.any(String),
    });
    expect(await customerCount(p)).toBe(1200);
  });

  it('creates no customer twice when a message is redelivered, in turn or concurrently', async () => {
    const p = await newPlatform();
    const rows = Array.from({ length: 700 }, (_, i) => (i === 3 ? person('dup', { name: '' }) : person(`d${i}`)));
    const { jobId, messages } = await upload(p, csvOf(rows));
    await Promise.all([deliver([messages[0]]), deliver([messages[0]]), deliver([messages[0], messages[0]])]);
    const mid = await job(p, jobId);
    expect(mid.progress).toEqual({ total: 700, processed: 500, successful: 499, failed: 1 });
    expect(mid.errors).toHaveLength(1);
    await deliver([messages[1]]);
    await deliver([messages[1], messages[0]]);
    const done = await job(p, jobId);
    expect(done.status).toBe('COMPLETED');
    expect(done.progress).toEqual({ total: 700, processed: 700, successful: 699, failed: 1 });
    expect(done.errors).toEqual([expect.objectContaining({ correlationId: 'dup', details: expect.objectContaining({ row: 4 }) })]);
    expect(await customerCount(p)).toBe(699);
    expect((await api('GET', '/customers/internal-accounts?limit=1', { auth: p.auth })).body.totalCount).toBe(699 * 6);
  });

  it('fails the job (FAILED, completedAt, one file error) when the file itself is unusable', async () => {
    const p = await newPlatform();
    const cases: [string | Uint8Array, RegExp][] = [
      ['', /empty/],
      [new Uint8Array([0xff, 0xfe, 0x00, 0x41]), /UTF-8/],
      ['platformCustomerId,customerType\nx,INDIVIDUAL\n', /umaAddress/],
      [`${HEADER},shoeSize\n`, /Unknown column.*shoeSize/],
      ['umaAddress,platformCustomerId,customerType,umaAddress\n', /twice/],
      [`${HEADER}\n"unterminated,x\n`, /not valid CSV/],
      [`${HEADER}\n`, /no data rows/],
      // Counted while parsing: the parser stops at the first row past the limit.
      [`${HEADER}\n${',\n'.repeat(100_001)}`, /more than 100000 rows/],
    ];
    for (const [file, message] of cases) {
      const { jobId, messages } = await upload(p, file);
      expect(messages).toEqual([{ type: 'bulk.import', jobId, offset: 0 }]);
      await deliver(messages);
      await deliver(messages);
      const failed = await job(p, jobId);
      expect(failed).toEqual({
        id: jobId,
        status: 'FAILED',
        progress: { total: 0, processed: 0, successful: 0, failed: 0 },
        errors: [{ code: 'INVALID_FILE', message: expect.stringMatching(message), correlationId: '0' }],
        completedAt: expect.any(String),
      });
    }
    expect(await customerCount(p)).toBe(0);
  });

  it('fails the job naming the row and column of a quote RFC 4180 refuses, importing nothing', async () => {
    const p = await newPlatform();
    const cases: [string, string][] = [
      // `"Jane"Doe` once read as `JaneDoe`: a character after a closing quote.
      [csvOf([person('q1'), person('q2', { name: '"Jane"Doe' })]), `row 2, column fullName: "D" after a quoted field's closing quote`],
      [csvOf([person('q3', { line2: '"Apt 4" ' })]), `row 1, column addressLine2: " " after a quoted field's closing quote`],
      [csvOf([person('q4', { name: 'Jane "JD" Doe' })]), 'row 1, column fullName: a quote inside an unquoted field'],
      [`"umaAddress"x,${HEADER.slice('umaAddress,'.length)}\n${person('q5')}\n`, `the header, column 1: "x" after`],
      [csvOf([person('q6'), `"$q7@platform.test,q7`]), 'row 2, column umaAddress: a quoted field is never closed'],
    ];
    for (const [file, message] of cases) {
      const { jobId, messages } = await upload(p, file);
      await deliver(messages);
      expect(await job(p, jobId)).toEqual({
        id: jobId,
        status: 'FAILED',
        progress: { total: 0, processed: 0, successful: 0, failed: 0 },
        errors: [{ code: 'INVALID_FILE', message: expect.stringContaining(`The file is not valid CSV: ${message}`), correlationId: '0' }],
        completedAt: expect.any(String),
      });
    }
    expect(await customerCount(p)).toBe(0);
  });

  it('completes a 10,000-row file through the real queue, then ignores redeliveries', { timeout: 120_000 }, async () => {
    const p = await newPlatform();
    const rows = Array.from({ length: 10_000 }, (_, i) => person(`big-${i}`));
    const form = multipart([
      { name: 'file', filename: 'big.csv', contentType: 'text/csv', data: new TextEncoder().encode(onDomainOf(p, csvOf(rows))) },
    ]);
    const res = await api('POST', '/customers/bulk/csv', { auth: p.auth, raw: form.body, headers: { 'Content-Type': form.contentType } });
    expect(res.status).toBe(202);
    const jobId = res.body.jobId;
    let state = await job(p, jobId);
    // The queue delivers on its own schedule (batching up to 1 s); wait for it, then check the outcome exactly.
    for (let i = 0; i < 1000 && state.status !== 'COMPLETED' && state.status !== 'FAILED'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = await job(p, jobId);
    }
    expect(state).toEqual({
      id: jobId,
      status: 'COMPLETED',
      progress: { total: 10_000, processed: 10_000, successful: 10_000, failed: 0 },
      errors: [],
      completedAt: expect.any(String),
    });
    expect(await customerCount(p)).toBe(10_000);
    await deliver([0, 500, 9500].map((offset) => ({ type: 'bulk.import', jobId, offset })));
    expect(await job(p, jobId)).toEqual(state);
    expect(await customerCount(p)).toBe(10_000);
  });

  it('re-queues a stalled import from the cron sweep', async () => {
    const p = await newPlatform();
    const { jobId } = await upload(p, csvOf(Array.from({ length: 600 }, (_, i) => person(`s${i}`))));
    const { queue, sent } = capture();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() }), { ...env, JOBS: queue });
    expect(sent).toEqual([]);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + 11 * 60_000 }), { ...env, JOBS: queue });
    expect(
      sent
        .filter((m) => m.jobId === jobId)
        .map((m) => m.offset)
        .sort(),
    ).toEqual([0, 500]);
    await deliver(sent.filter((m) => m.jobId === jobId));
    expect((await job(p, jobId)).status).toBe('COMPLETED');
  });

  it('acks a message of an unknown job without doing anything', async () => {
    await deliver([{ type: 'bulk.import', jobId: 'Job:00000000-0000-7000-8000-000000000000', offset: 0 }]);
  });
});

describe('bulk import endpoints', () => {
  it('answers 415 for a JSON body, 400 without a multipart file, 413 above 10 MB', async () => {
    const p = await newPlatform();
    expectError(await api('POST', '/customers/bulk/csv', { auth: p.auth, body: { file: 'x' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const noFile = await postForm('/customers/bulk/csv', p.auth, [{ name: 'notes', value: 'x' }]);
    expectError(noFile, 400, 'INVALID_INPUT');
    expect(failingFields(noFile)).toEqual(['notes']);
    expect(failingFields(await postForm('/customers/bulk/csv', p.auth, []))).toEqual(['file']);
    const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x41);
    expectError(
      await postForm('/customers/bulk/csv', p.auth, [{ name: 'file', filename: 'big.csv', contentType: 'text/csv', data: big }]),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('refuses a field or a row over the size limits with 400 naming where it is', async () => {
    const p = await newPlatform();
    const huge = 'x'.repeat(9 * 1024 * 1024);
    const cases: [string, RegExp][] = [
      [csvOf([person('a'), person('b', { name: huge })]), /row 2, column fullName/],
      // A field of nothing but (escaped) quotes.
      [csvOf([person('a', { name: `"${'""'.repeat(4 * 1024 * 1024)}"` })]), /row 1, column fullName/],
      // A quote opened and never closed swallows the rest of the file.
      [csvOf([person('a'), `"${huge}`]), /row 2, column umaAddress/],
      [`${HEADER},${'y'.repeat(2000)}\n${person('a')}\n`, /the header, column 16/],
      // Short fields, too many of them: the row is over the limit.
      [csvOf([Array.from({ length: 20 }, () => 'z'.repeat(1000)).join(',')]), /row 1 is longer/],
    ];
    for (const [file, where] of cases) {
      const res = await postForm('/customers/bulk/csv', p.auth, [
        { name: 'file', filename: 'c.csv', contentType: 'text/csv', data: new TextEncoder().encode(file) },
      ]);
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res)).toEqual(['file']);
      expect(res.body.message).toMatch(where);
    }
    expect(await customerCount(p)).toBe(0);
  });

  it('keeps rows of many empty fields in chunks the database holds; each such row fails on its own', async () => {
    const p = await newPlatform();
    // 15,001 fields per row: 45 KB of JSON each, 22 MB for 500 rows if they were stored as one chunk.
    const rows = [person('kept'), ...Array.from({ length: 499 }, () => ','.repeat(15_000))];
    const { jobId, messages } = await upload(p, csvOf(rows));
    expect(messages.length).toBeGreaterThan(1);
    await deliver(messages);
    const done = await job(p, jobId);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total: 500, processed: 500, successful: 1, failed: 499 } });
    expect(done.errors[0]).toEqual({
      code: 'INVALID_INPUT',
      message: 'Invalid row: (row)',
      details: { row: 2, fields: [{ field: '(row)', message: 'The row has 15001 fields; the header has 15' }] },
      correlationId: '2',
    });
    expect(await customerCount(p)).toBe(1);
  });

  it('404s unknown and other-platform jobs with BULK_UPLOAD_JOB_NOT_FOUND; permissions; Basic only', async () => {
    const p = await newPlatform();
    const { jobId } = await upload(p, csvOf([person('t1')]));
    expectError(
      await api('GET', '/customers/bulk/jobs/Job:00000000-0000-7000-8000-000000000000', { auth: p.auth }),
      404,
      'BULK_UPLOAD_JOB_NOT_FOUND',
    );
    const q = await newPlatform();
    expectError(await api('GET', `/customers/bulk/jobs/${jobId}`, { auth: q.auth }), 404, 'BULK_UPLOAD_JOB_NOT_FOUND');
    expectError(await api('GET', `/customers/bulk/jobs/${jobId}`, { auth: await tokenWith(p, ['MANAGE']) }), 403);
    expect((await api('GET', `/customers/bulk/jobs/${jobId}`, { auth: await tokenWith(p, ['VIEW']) })).status).toBe(200);
    expectError(await api('GET', `/customers/bulk/jobs/${jobId}`, { auth: 'Bearer something' }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', `/customers/bulk/jobs/${jobId}`), 401);
    const form = [{ name: 'file', filename: 'c.csv', contentType: 'text/csv', data: new TextEncoder().encode(csvOf([person('t2')])) }];
    expectError(await postForm('/customers/bulk/csv', await tokenWith(p, ['VIEW', 'TRANSACT']), form), 403);
  });
});
