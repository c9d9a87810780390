import { and, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { documents, type DocumentRow } from '../db/schema';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { badRequest, invalidFields, notFound, zodIssues } from '../http/errors';
import { readField, type Part } from '../http/multipart';
import { keysetPage, mapPage } from '../http/pagination';
import { loadActiveCustomer } from '../customers/service';
import { loadBeneficialOwner } from '../kyc/owners-service';
import { DOCUMENT_FIELD_NAMES, DocumentUploadFields, type DocumentView } from './schema';
import { storeFile } from './storage';

/** Largest accepted document (reference: 10 MB). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

export function documentView(row: DocumentRow): DocumentView {
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
  const base = (name ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.slice(0, 255) || 'document';
}

/**
 * POST /documents: reads the multipart parts in order, streaming the `file` part into R2 (never whole in memory),
 * then validates the metadata and the holder and records the document. Any refusal removes the stored bytes.
 */
export async function uploadDocument(db: Db, bucket: R2Bucket, platformId: string, parts: AsyncIterable<Part>, now: number): Promise<DocumentView> {
  const id = newId('Document', now);
  const objectKey = `documents/${platformId}/${id}`;
  const fields: Record<string, string> = {};
  let file: { fileName: string; contentType: string; size: number } | null = null;
  try {
    for await (const part of parts) {
      if (part.name === 'file') {
        if (file) throw badRequest('Only one file per document', { fields: [{ field: 'file', message: 'Sent more than once' }] });
        const contentType = part.contentType ?? 'application/octet-stream';
        const size = await storeFile(bucket, objectKey, part.body, contentType, MAX_DOCUMENT_BYTES);
        file = { fileName: safeFileName(part.filename), contentType, size };
      } else if (DOCUMENT_FIELD_NAMES.has(part.name)) {
        if (part.name in fields) throw badRequest(`Form field ${part.name} sent more than once`, { fields: [{ field: part.name, message: 'Duplicate' }] });
        fields[part.name] = await readField(part);
      } else {
        throw invalidFields('form fields', [{ field: part.name, message: 'Unknown field' }]);
      }
    }
    const parsed = DocumentUploadFields.safeParse(fields);
    const issues = parsed.success ? [] : zodIssues(parsed.error);
    if (!file) issues.push({ field: 'file', message: 'A PDF, JPEG or PNG file is required' });
    if (!parsed.success || !file) throw invalidFields('form fields', issues);
    await checkHolder(db, platformId, parsed.data.documentHolder);
    const row: DocumentRow = {
      id,
      platformId,
      documentHolder: parsed.data.documentHolder,
      documentType: parsed.data.documentType,
      side: parsed.data.side ?? null,
      country: parsed.data.country,
      documentNumber: parsed.data.documentNumber ?? null,
      issuingAuthority: parsed.data.issuingAuthority ?? null,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.size,
      objectKey,
      createdAt: now,
      updatedAt: now,
    };
    await db.insert(documents).values(row);
    return documentView(row);
  } catch (error) {
    if (file) await bucket.delete(objectKey).catch(() => {});
    throw error;
  }
}

const documentNotFound = () => notFound('NOT_FOUND', 'Document not found');

export async function getDocument(db: Db, platformId: string, id: string): Promise<DocumentView> {
  const row = await db.query.documents.findFirst({ where: and(eq(documents.id, id), eq(documents.platformId, platformId)) });
  if (!row) throw documentNotFound();
  return documentView(row);
}

export async function listDocuments(db: Db, platformId: string, q: { documentHolder?: string; limit: number; cursor?: string }) {
  const where: SQL[] = [eq(documents.platformId, platformId)];
  if (q.documentHolder) where.push(eq(documents.documentHolder, q.documentHolder));
  const page = await keysetPage<DocumentRow>(db, {
    table: documents,
    idColumn: documents.id,
    where: and(...where),
    limit: q.limit,
    cursor: q.cursor,
    withTotal: true,
  });
  return mapPage(page, documentView);
}

/** Deletes the record, then its bytes. */
export async function deleteDocument(db: Db, bucket: R2Bucket, platformId: string, id: string): Promise<void> {
  const [row] = await db
    .delete(documents)
    .where(and(eq(documents.id, id), eq(documents.platformId, platformId)))
    .returning({ objectKey: documents.objectKey });
  if (!row) throw documentNotFound();
  await bucket.delete(row.objectKey);
}
