// A document's file stored in R2, and the document types accepted.
import { badRequest } from '../http/errors';
import { payloadTooLarge } from '../http/body';

// R2 multipart parts must all have one size (at least 5 MiB) except the last.
const PART_SIZE = 5 * 1024 * 1024;

/** File types accepted for verification documents, each recognised by its leading bytes. */
const DOCUMENT_TYPES: Record<string, number[]> = {
  'application/pdf': [0x25, 0x50, 0x44, 0x46], // %PDF
  'image/jpeg': [0xff, 0xd8, 0xff],
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
};

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const unsupported = (message: string) => badRequest(message, { fields: [{ field: 'file', message }] });

/**
 * Streams a file into R2 holding at most one 5 MiB part in memory: small files are one `put`, larger ones an
 * R2 multipart upload. Refuses (413) past `limit` bytes and (400) content whose leading bytes are not of
 * `contentType`; a refused upload leaves nothing behind. Returns the size.
 */
export async function storeFile(
  bucket: R2Bucket,
  key: string,
  chunks: AsyncIterable<Uint8Array>,
  contentType: string,
  limit: number,
): Promise<number> {
  const magic = DOCUMENT_TYPES[contentType];
  if (!magic) throw unsupported(`Unsupported file type ${contentType}; use PDF, JPEG or PNG`);
  let pending: Uint8Array[] = [];
  let pendingSize = 0;
  let total = 0;
  let sniffed = false;
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  const sniff = () => {
    const head = concat(pending, pendingSize).subarray(0, magic.length);
    if (head.length < magic.length || !magic.every((b, i) => head[i] === b)) throw unsupported(`The file content is not ${contentType}`);
    sniffed = true;
  };
  try {
    for await (const chunk of chunks) {
      total += chunk.byteLength;
      if (total > limit) throw payloadTooLarge(limit);
      pending.push(chunk);
      pendingSize += chunk.byteLength;
      if (!sniffed && pendingSize >= magic.length) sniff();
      while (pendingSize >= PART_SIZE) {
        const all = concat(pending, pendingSize);
        upload ??= await bucket.createMultipartUpload(key, { httpMetadata: { contentType } });
        parts.push(await upload.uploadPart(parts.length + 1, all.subarray(0, PART_SIZE)));
        pending = [all.subarray(PART_SIZE)];
        pendingSize = all.byteLength - PART_SIZE;
      }
    }
    if (!sniffed) sniff();
    if (!upload) {
      await bucket.put(key, concat(pending, pendingSize), { httpMetadata: { contentType } });
    } else {
      if (pendingSize > 0) parts.push(await upload.uploadPart(parts.length + 1, concat(pending, pendingSize)));
      await upload.complete(parts);
    }
    return total;
  } catch (error) {
    await upload?.abort().catch(() => {});
    throw error;
  }
}
