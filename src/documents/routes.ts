// The document routes: upload, list, read, replace and delete (multipart, stored in R2).
import { defineRoute, json, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
import { payloadTooLarge } from '../http/body';
import { multipartBoundary, parseMultipart } from '../http/multipart';
import { Document, DocumentIdParams, DocumentList, DocumentListQuery } from './schema';
import { deleteDocument, documentFrom, documentList, documentLoads, MAX_DOCUMENT_BYTES, replaceDocument, uploadDocument } from './service';

const tag = 'Documents';

// Room for the metadata fields and part headers around the file.
const FORM_OVERHEAD = 64 * 1024;

/** The parts of a document form, refusing (413) a declared size no document fits in before reading it. */
function documentForm(request: Request) {
  const boundary = multipartBoundary(request.headers.get('Content-Type'));
  const declared = Number(request.headers.get('Content-Length') ?? NaN);
  if (declared > MAX_DOCUMENT_BYTES + FORM_OVERHEAD) throw payloadTooLarge(MAX_DOCUMENT_BYTES);
  return parseMultipart(request.body, boundary);
}

export const documentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/documents',
    operationId: 'uploadDocument',
    summary: 'Upload a verification document (multipart: file + documentHolder, documentType, country, ...; PDF/JPEG/PNG up to 10 MB)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: 'multipart',
    responses: { 201: { description: 'Uploaded', schema: Document }, ...errorResponses(400, 401, 403, 404, 410, 413) },
    handler: async (c) => json(await uploadDocument(c.db, c.env.DOCUMENTS, c.auth.platform.id, documentForm(c.request), c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/documents',
    operationId: 'listDocuments',
    summary: 'List documents',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: DocumentListQuery,
    responses: { 200: { description: 'A page of documents', schema: DocumentList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => documentList.loads(db, platformId, query),
    handler: (c) => json(documentList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/documents/:documentId',
    operationId: 'getDocument',
    summary: 'Get a document',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: DocumentIdParams,
    responses: { 200: { description: 'The document', schema: Document }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => documentLoads(db, platformId, params.documentId),
    handler: (c) => json(documentFrom(c.loaded)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/documents/:documentId',
    operationId: 'replaceDocument',
    summary: 'Replace a document: a new file and metadata, as for upload (the holder stays); the old file is deleted',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: DocumentIdParams,
    body: 'multipart',
    responses: { 200: { description: 'Replaced', schema: Document }, ...errorResponses(400, 401, 403, 404, 409, 410, 413) },
    handler: async (c) =>
      json(await replaceDocument(c.db, c.env.DOCUMENTS, c.auth.platform.id, c.params.documentId, documentForm(c.request), c.now)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/documents/:documentId',
    operationId: 'deleteDocument',
    summary: 'Delete a document and its file',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: DocumentIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await deleteDocument(c.db, c.env.DOCUMENTS, c.auth.platform.id, c.params.documentId);
      return noContent();
    },
  }),
];
