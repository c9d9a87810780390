// Base64 and base64url, read and written in one place (RFC 4648).
import { base64, base64urlnopad } from '@scure/base';

/**
 * The one place base64 is read and written (RFC 4648). Writers give the canonical form; readers take
 * padded or unpadded text but refuse anything else (whitespace, a loose tail, non-zero pad bits): throws.
 */

/** Standard alphabet, padded: webhook signatures, PEM bodies, MIME encoded words. */
export function toBase64(bytes: Uint8Array): string {
  return base64.encode(bytes);
}

/** URL-safe alphabet, unpadded: tokens, cursors. */
export function toBase64url(bytes: Uint8Array): string {
  return base64urlnopad.encode(bytes);
}

/** Bytes of URL-safe base64, padded or not. */
export function fromBase64url(text: string): Uint8Array {
  // Padding is only due on a whole number of 4-character groups; elsewhere an '=' fails as a foreign character.
  return base64urlnopad.decode(text.length % 4 === 0 ? text.replace(/={1,2}$/, '') : text);
}

/** Bytes of base64 in either alphabet, padded or not (Basic credentials and keys come from many tools). */
export function fromBase64(text: string): Uint8Array {
  return fromBase64url(text.replaceAll('+', '-').replaceAll('/', '_'));
}

/** UTF-8 text of URL-safe base64, padded or not; throws on bytes that are not UTF-8. */
export function textFromBase64url(text: string): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(text));
}
