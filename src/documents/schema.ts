// The document schemas: types, sides, upload and replace fields, the document and its list.
import * as z from 'zod';
import { CountryCode, text } from '../common/fields';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';

const DocumentType = z
  .enum([
    'PASSPORT',
    'DRIVERS_LICENSE',
    'NATIONAL_ID',
    'PROOF_OF_ADDRESS',
    'BANK_STATEMENT',
    'TAX_RETURN',
    'CERTIFICATE_OF_INCORPORATION',
    'ARTICLES_OF_INCORPORATION',
    'ARTICLES_OF_ASSOCIATION',
    'STATE_REGISTRY_EXCERPT',
    'GOOD_STANDING_CERTIFICATE',
    'INFORMATION_STATEMENT',
    'INCUMBENCY_CERTIFICATE',
    'BUSINESS_LICENSE',
    'SHAREHOLDER_REGISTER',
    'POWER_OF_ATTORNEY',
    'UTILITY_BILL',
    'ELECTRICITY_BILL',
    'RENT_OR_LEASE_AGREEMENT',
    'DIRECTOR_REGISTRY',
    'TRUST_AGREEMENT',
    'STATE_COMPANY_REGISTRY',
    'PARTNERSHIP_CONTROL_AGREEMENT',
    'PARTNERSHIP_AGREEMENT',
    'SELFIE',
    'OTHER',
  ])
  .meta({ id: 'DocumentType' });

const DocumentSide = z.enum(['FRONT', 'BACK']);

/** The metadata fields of a multipart upload (the `file` part comes with them). */
export const DocumentUploadFields = z.strictObject({
  documentHolder: z.string().max(128),
  documentType: DocumentType,
  country: CountryCode,
  side: DocumentSide.optional(),
  documentNumber: text(64).optional(),
  issuingAuthority: text().optional(),
});
export type DocumentUploadFields = z.infer<typeof DocumentUploadFields>;
/** PUT /documents/{id} (reference `DocumentReplaceRequest`): the same fields but the holder, which never changes. */
export const DocumentReplaceFields = DocumentUploadFields.omit({ documentHolder: true });
export type DocumentReplaceFields = z.infer<typeof DocumentReplaceFields>;
export const DOCUMENT_FIELD_NAMES = new Set(Object.keys(DocumentUploadFields.shape));

export const Document = z
  .object({
    id: z.string().meta({ example: 'Document:019542f5-b3e7-1d02-0000-000000000001' }),
    documentHolder: z.string(),
    documentType: DocumentType,
    side: DocumentSide.optional(),
    country: z.string(),
    documentNumber: z.string().optional(),
    issuingAuthority: z.string().optional(),
    fileName: z.string(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'Document' });
export type DocumentView = z.infer<typeof Document>;

export const DocumentList = pageOf(Document, 'DocumentListResponse');
export const DocumentListQuery = z.object({
  documentHolder: z.string().max(128).optional().meta({ description: 'A Customer or BeneficialOwner id' }),
  limit: limitParam,
  cursor: cursorParam,
});
export const DocumentIdParams = z.object({ documentId: z.string().max(128) });
