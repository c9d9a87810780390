// Canonical JSON and the hash of a body's canonical form (signed retries bind it).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** JSON with object keys sorted at every level and no whitespace: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    // Keys sorted; undefined members dropped, as JSON.stringify does.
    const entries = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 hex of the canonical form of a JSON body (`''` hashes an absent body). */
export function bodyHash(raw: string): string {
  const text = raw.trim() === '' ? '' : canonicalJson(JSON.parse(raw));
  return bytesToHex(sha256(utf8ToBytes(text)));
}
