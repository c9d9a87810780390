// Documents: upload, replace, read, list and delete (files in R2, metadata in D1).
import { and, eq, type SQL } from 'drizzle-orm';
import type * as z from 'zod';
import type { Db, Loaded } from '../db/client';
import { documents, type DocumentRow } from '../db/schema';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { badRequest, conflict, invalidFields, notFound, zodIssues } from '../http/errors';
import { readField, type Part } from '../http/multipart';
import { keysetList } from '../http/pagination';
import { loadActiveCustomer } from '../customers/service';
import { loadBeneficialOwner } from '../kyc/owners-service';
import { DOCUMENT_FIELD_NAMES, DocumentReplaceFields, DocumentUploadFields, type DocumentView } from './schema';
import { storeFile } from './storage';

/** Largest accepted document (reference: 10 MB). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

function documentView(row: DocumentRow): DocumentView {
  return {
    id: row.id,
    documentHolder: row.documentHolder,
    documentType: row.documentType as DocumentView['documentType'],
    ...(row.side ? { side: row.side as 'FRONT' | 'BACK' } : {}),
    country: row.country,
    ...(row.documentNumber ? { documentNumber: row.documentNumber } : {}),
    ...(row.issuingAuthority ? { issuingAuthority: row.issuingAuthority } : {}),
    fileName: row.fileName,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** The holder must be a live Customer or a BeneficialOwner of this platform. */
async function checkHolder(db: Db, platformId: string, holder: string): Promise<void> {
  if (holder.startsWith('Customer:')) await loadActiveCustomer(db, platformId, holder);
  else if (holder.startsWith('BeneficialOwner:')) await loadBeneficialOwner(db, platformId, holder);
  else throw invalidFields('form fields', [{ field: 'documentHolder', message: 'Must be a Customer or BeneficialOwner id' }]);
}

function safeFileName(name: string | undefined): string {
  // Keep the client's name for display, without path components or control characters.
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return base.slice(0, 255) || 'document';
}

interface StoredFile {
  fileName: string;
  contentType: string;
  size: number;
}

/**
 * Reads a document form in order, streaming the `file` part into R2 at `objectKey` (never whole in memory),
 * and validates the metadata against `schema`. Any refusal here or in `then` removes the stored bytes.
 */
async function withDocumentForm<F, T>(
  bucket: R2Bucket,
  objectKey: string,
  parts: AsyncIterable<Part>,
  schema: z.ZodType<F>,
  then: (fields: F, file: StoredFile) => Promise<T>,
): Promise<T> {
  const fields: Record<string, string> = {};
  let file: StoredFile | null = null;
  try {
    for await (const part of parts) {
      if (part.name === 'file') {
        if (file) throw badRequest('Only one file per document', { fields: [{ field: 'file', message: 'Sent more than once' }] });
        const contentType = part.contentType ?? 'application/octet-stream';
        const size = await storeFile(bucket, objectKey, part.body, contentType, MAX_DOCUMENT_BYTES);
        file = { fileName: safeFileName(part.filename), contentType, size };
      } else if (DOCUMENT_FIELD_NAMES.has(part.name)) {
        if (part.name in fields)
          throw badRequest(`Form field ${part.name} sent more than once`, { fields: [{ field: part.name, message: 'Duplicate' }] });
        fields[part.name] = await readField(part);
      } else {
        throw invalidFields('form fields', [{ field: part.name, message: 'Unknown field' }]);
      }
    }
    const parsed = schema.safeParse(fields);
    const issues = parsed.success ? [] : zodIssues(parsed.error);
    if (!file) issues.push({ field: 'file', message: 'A PDF, JPEG or PNG file is required' });
    if (!parsed.success || !file) throw invalidFields('form fields', issues);
    return await then(parsed.data, file);
  } catch (error) {
    if (file) await bucket.delete(objectKey).catch(() => {});
    throw error;
  }
}

/** The columns a form sets: all of them, so a replacement clears the optional fields it leaves out. */
function formColumns(fields: DocumentReplaceFields, file: StoredFile) {
  return {
    documentType: fields.documentType,
    side: fields.side ?? null,
    country: fields.country,
    documentNumber: fields.documentNumber ?? null,
    issuingAuthority: fields.issuingAuthority ?? null,
    fileName: file.fileName,
    contentType: file.contentType,
    size: file.size,
  };
}

/** POST /documents: the file and its metadata; the holder must be a live Customer or BeneficialOwner. */
export async function uploadDocument(
  db: Db,
  bucket: R2Bucket,
  platformId: string,
  parts: AsyncIterable<Part>,
  now: number,
): Promise<DocumentView> {
  const id = newId('Document', now);
  const objectKey = `documents/${platformId}/${id}`;
  return withDocumentForm(bucket, objectKey, parts, DocumentUploadFields, async (fields, file) => {
    await checkHolder(db, platformId, fields.documentHolder);
    const row: DocumentRow = {
      id,
      platformId,
      documentHolder: fields.documentHolder,
      ...formColumns(fields, file),
      objectKey,
      createdAt: now,
      updatedAt: now,
    };
    await db.insert(documents).values(row);
    return documentView(row);
  });
}

/**
 * PUT /documents/{id}: a new file and new metadata for the same document and holder. The file goes to a new
 * object, the record switches to it only if no other replacement or a delete got there first (409/404, the
 * new bytes removed), and the old object is deleted after: a failure at any step leaves the document as it was.
 */
export async function replaceDocument(
  db: Db,
  bucket: R2Bucket,
  platformId: string,
  id: string,
  parts: AsyncIterable<Part>,
  now: number,
): Promise<DocumentView> {
  const current = await db.query.documents.findFirst({ where: and(eq(documents.id, id), eq(documents.platformId, platformId)) });
  if (!current) throw documentNotFound();
  const objectKey = `documents/${platformId}/${id}/${crypto.randomUUID()}`;
  const row = await withDocumentForm(bucket, objectKey, parts, DocumentReplaceFields, async (fields, file) => {
    await checkHolder(db, platformId, current.documentHolder);
    const [updated] = await db
      .update(documents)
      .set({ ...formColumns(fields, file), objectKey, updatedAt: now })
      .where(and(eq(documents.id, id), eq(documents.platformId, platformId), eq(documents.objectKey, current.objectKey)))
      .returning();
    if (updated) return updated;
    const still = await db.query.documents.findFirst({
      where: and(eq(documents.id, id), eq(documents.platformId, platformId)),
      columns: { id: true },
    });
    throw still ? conflict('The document was replaced by another request meanwhile; fetch it and retry') : documentNotFound();
  });
  await bucket.delete(current.objectKey);
  return documentView(row);
}

const documentNotFound = () => notFound('DOCUMENT_NOT_FOUND', 'Document not found');

/** GET /documents/{id} as a load (`platformId` SQL: see `RouteSpec.load`); `documentFrom` reads it. */
export function documentLoads(db: Db, platformId: SQL, id: string) {
  return {
    document: db
      .select()
      .from(documents)
      .where(and(eq(documents.id, id), eq(documents.platformId, platformId)))
      .limit(1),
  };
}

export function documentFrom(loaded: Loaded<ReturnType<typeof documentLoads>>): DocumentView {
  const row = loaded.document[0];
  if (!row) throw documentNotFound();
  return documentView(row);
}

/** GET /documents: by id, optionally of one holder; the total from the platform's, or the holder's, maintained count. */
export const documentList = keysetList((platformId: SQL, q: { documentHolder?: string; limit: number; cursor?: string }) => {
  const where: SQL[] = [eq(documents.platformId, platformId)];
  if (q.documentHolder) where.push(eq(documents.documentHolder, q.documentHolder));
  const counted = { platformId, list: q.documentHolder ? `documents:${q.documentHolder}` : 'documents' };
  return { table: documents, idColumn: documents.id, where: and(...where), limit: q.limit, cursor: q.cursor, counted };
}, documentView);

/** Deletes the record, then its bytes. */
export async function deleteDocument(db: Db, bucket: R2Bucket, platformId: string, id: string): Promise<void> {
  const [row] = await db
    .delete(documents)
    .where(and(eq(documents.id, id), eq(documents.platformId, platformId)))
    .returning({ objectKey: documents.objectKey });
  if (!row) throw documentNotFound();
  await bucket.delete(row.objectKey);
}
