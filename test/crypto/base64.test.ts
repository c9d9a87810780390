import { describe, expect, it } from 'vitest';
import { fromBase64, fromBase64url, textFromBase64url, toBase64, toBase64url } from '../../src/crypto/base64';

// The previous release's hand-rolled codecs, kept here to pin the wire formats byte for byte.
const binary = (bytes: Uint8Array) => String.fromCharCode(...bytes);
const oldBase64 = (bytes: Uint8Array) => btoa(binary(bytes));
const oldBase64url = (bytes: Uint8Array) => oldBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

function randomBytes(n: number) {
  return crypto.getRandomValues(new Uint8Array(n));
}

describe('crypto/base64', () => {
  it('writes what the previous codecs wrote and reads it back, padded or not, in either alphabet', () => {
    for (let n = 0; n <= 70; n++) {
      const bytes = randomBytes(n);
      expect(toBase64(bytes)).toBe(oldBase64(bytes));
      expect(toBase64url(bytes)).toBe(oldBase64url(bytes));
      expect(fromBase64url(toBase64url(bytes))).toEqual(bytes);
      expect(fromBase64url(toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_'))).toEqual(bytes);
      expect(fromBase64(toBase64(bytes))).toEqual(bytes);
      expect(fromBase64(toBase64url(bytes))).toEqual(bytes);
    }
  });

  it('reads UTF-8 text, which atob alone garbles', () => {
    const text = JSON.stringify({ k: 'Zürich Pay · Ångström · 東京ペイ · 🚀', id: 'x' });
    const encoded = toBase64url(new TextEncoder().encode(text));
    expect(textFromBase64url(encoded)).toBe(text);
    expect(atob(encoded.replace(/-/g, '+').replace(/_/g, '/'))).not.toBe(text);
    expect(() => textFromBase64url(toBase64url(Uint8Array.of(0xff, 0xfe)))).toThrow();
  });

  it('refuses what is not base64: whitespace, foreign characters, misplaced padding, a loose tail, non-zero pad bits', () => {
    for (const bad of ['ab cd', 'ab\ncd', 'ab.c', 'a', 'abcde', 'ab=', 'a===', 'ab=c', 'abc==', 'ab==cd', 'QR', 'QUJ', 'é']) {
      expect(() => fromBase64url(bad), bad).toThrow();
      expect(() => fromBase64(bad), bad).toThrow();
    }
    expect(() => fromBase64url('a+b/')).toThrow();
    expect(fromBase64('a+b/')).toEqual(fromBase64url('a-b_'));
  });
});
