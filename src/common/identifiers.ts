// Account, wallet and record identifiers checked by their public rules (check digits, checksums, lengths, prefixes).
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * Account and wallet identifiers checked by their public rules (check digits, checksums, lengths), as
 * the receiving systems check them. Pure functions: true when the identifier is well formed.
 */

/** IBAN length per country (ISO 13616 registry). */
const IBAN_LENGTH: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/** ISO 7064 mod 97-10 over the IBAN rearranged (country and check digits moved to the end). */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban) || IBAN_LENGTH[iban.slice(0, 2)] !== iban.length) return false;
  let rem = 0;
  for (const ch of iban.slice(4) + iban.slice(0, 4)) {
    const v = ch >= 'A' ? ch.charCodeAt(0) - 55 : Number(ch);
    rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/** Mexican CLABE: 18 digits, the last a control digit over weights 3, 7, 1. */
export function clabeValid(clabe: string): boolean {
  if (!/^[0-9]{18}$/.test(clabe)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(clabe[i]) * weights[i % 3]!) % 10;
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

/** Check digit of one block of an Argentine CBU/CVU: weights 7, 1, 3, 9 repeating from the block's last digit. */
function cbuBlockDigit(block: string): number {
  const weights = [3, 1, 7, 9];
  let sum = 0;
  for (let i = 0; i < block.length; i++) sum += Number(block[block.length - 1 - i]) * weights[i % 4]!;
  return (10 - (sum % 10)) % 10;
}

/** `bank7` (7 digits) and `account13` (13 digits) with their check digits: a 22-digit Argentine CBU or CVU. */
export function withCbuCheckDigits(bank7: string, account13: string): string {
  return `${bank7}${cbuBlockDigit(bank7)}${account13}${cbuBlockDigit(account13)}`;
}

/** US ABA routing transit number: 9 digits, 3-7-1 weighted sum divisible by 10. */
export function abaRoutingValid(routing: string): boolean {
  if (!/^[0-9]{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  return (3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!)) % 10 === 0;
}

/** Mod-11 check digit of Brazilian tax numbers with the given weights. */
function mod11(digits: number[], weights: number[]): number {
  const r = digits.reduce((s, d, i) => s + d * weights[i]!, 0) % 11;
  return r < 2 ? 0 : 11 - r;
}

/** Brazilian CPF (individual tax number): 11 digits, two mod-11 check digits; repeated digits are invalid. */
export function cpfValid(cpf: string): boolean {
  if (!/^[0-9]{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const d = [...cpf].map(Number);
  return mod11(d.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]) === d[9] && mod11(d.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) === d[10];
}

/**
 * Brazilian CNPJ (company tax number): 12 characters (digits, or since July 2026 also capital letters) and two
 * mod-11 check digits over their values (ASCII code minus 48, so a digit is worth itself and `A` 17); one
 * digit repeated 14 times is invalid.
 */
export function cnpjValid(cnpj: string): boolean {
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(cnpj) || /^(.)\1{13}$/.test(cnpj)) return false;
  const d = [...cnpj].map((c) => c.charCodeAt(0) - 48);
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  return mod11(d.slice(0, 12), w1) === d[12] && mod11(d.slice(0, 13), [6, ...w1]) === d[13];
}

/** E.164: `+`, a country code that does not start with 0, 6 to 15 digits in all (the shortest national numbers have 4). */
export const E164 = /^\+[1-9][0-9]{5,14}$/;

/** UPI virtual payment address: a handle and a provider, `name@bank`. */
export const UPI_VPA = /^[a-zA-Z0-9.\-_]{2,256}@[a-zA-Z0-9]{2,64}$/;

/** SWIFT/BIC: bank (4 letters), country (2 letters), location (2), optional branch (3). */
export const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

export const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

/** A random PIX key (EVP): a UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** EVM address: 20 bytes hex; a mixed-case address must match its EIP-55 checksum. */
export function evmAddressValid(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex.toLowerCase())));
  return [...hex].every((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c === c.toUpperCase() : c === c.toLowerCase()));
}

/** The bytes of a base58 string, or null. */
export function base58Bytes(s: string): Uint8Array | null {
  try {
    return base58.decode(s);
  } catch {
    return null;
  }
}

/** Solana address: base58 of a 32-byte public key (no checksum by design). */
export function solanaAddressValid(address: string): boolean {
  return address.length >= 32 && address.length <= 44 && base58Bytes(address)?.length === 32;
}

const base58check = createBase58check(sha256);

/** The 21-byte payload (0x41 and the account) of a Tron address, or null when its checksum fails. */
export function tronPayload(address: string): Uint8Array | null {
  try {
    const bytes = base58check.decode(address);
    return bytes.length === 21 && bytes[0] === 0x41 ? bytes : null;
  } catch {
    return null;
  }
}

/** The 5-bit words of a bech32 (or bech32m) string with one of the given prefixes, or null. */
function bech32Words(s: string, prefixes: RegExp, variant: 'bech32' | 'bech32m'): number[] | null {
  try {
    const { prefix, words } = (variant === 'bech32' ? bech32 : bech32m).decode(s.toLowerCase() as `${string}1${string}`, false);
    return prefixes.test(prefix) ? words : null;
  } catch {
    return null;
  }
}

/** Spark address: bech32m, prefix `spark` (mainnet) or a test network's (`sparkt`, `sparkrt`, `sparks`, `sparkl`). */
export const sparkWords = (address: string) => bech32Words(address, /^spark(t|rt|s|l)?$/, 'bech32m');

/** BOLT 11 invoice: bech32 with an `ln` + network prefix (and amount). */
export const bolt11Words = (invoice: string) => bech32Words(invoice, /^ln(bc|tb|bcrt|tbs|sb)[0-9]*[munp]?$/, 'bech32');

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** BOLT 12 offer: `lno1` and bech32 characters, without checksum (BOLT 12 drops it). */
export function bolt12Words(offer: string): number[] | null {
  const m = /^lno1([qpzry9x8gf2tvdw0s3jn54khce6mua7l]+)$/.exec(offer.toLowerCase());
  return m ? [...m[1]!].map((c) => BECH32_CHARSET.indexOf(c)) : null;
}
