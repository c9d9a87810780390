import { base58, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * Valid identifiers whose sandbox suffix is chosen, computed here independently of the code
 * under test: IBAN and CLABE check digits, CPF check digits, and encoded addresses whose decoded value
 * ends in the suffix.
 */

/** A BOLT 11 invoice with a valid checksum (the reference's example). */
export const INVOICE =
  'lnbc15u1p3xnhl2pp5jptserfk3zk4qy42tlucycrfwxhydvlemu9pqr93tuzlv9cc7g3sdqsvfhkcap3xyhx7un8cqzpgxqzjcsp5f8c52y2stc300gl6s4xswtjpc37hrnnr3c9wvtgjfuvqmpm35evq9qyyssqy4lgd8tj637qcjp05rdpxxykjenthxftej7a2zzmwrmrl70fyj9hvj0rewhzj7jfyuwkwcg9g2jpwtk3wkjtwnkdks84hsnu8xps5vsq4gj5hs';

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
const mod1000 = (values: ArrayLike<number>, radix: number) => Array.from(values).reduce((n, v) => (n * radix + v) % 1000, 0);

/** Sets the last two digits (in `radix`) of `values` so that the whole number ends in `suffix` (decimal). */
function endIn<T extends number[] | Uint8Array>(values: T, radix: number, suffix: string): T {
  const n = values.length;
  for (let hi = 0; hi < radix; hi++) {
    for (let lo = 0; lo < radix; lo++) {
      values[n - 2] = hi;
      values[n - 1] = lo;
      if (mod1000(values, radix) === Number(suffix)) return values;
    }
  }
  throw new Error(`no value ends in ${suffix}`);
}

/** A Spark address: bech32m of a 33-byte identity key in its protobuf envelope. */
export function sparkWithSuffix(suffix: string): string {
  const words = bech32m.toWords(Uint8Array.from([0x0a, 0x21, 0x02, ...random(32)]));
  return bech32m.encode('spark', endIn(words, 32, suffix), false);
}
export const SPARK = sparkWithSuffix('321');

export function solanaWithSuffix(suffix: string): string {
  const key = random(32);
  key[0] = 1 + (key[0]! % 200);
  return base58.encode(endIn(key, 256, suffix));
}

export function tronWithSuffix(suffix: string): string {
  return createBase58check(sha256).encode(endIn(Uint8Array.from([0x41, ...random(20)]), 256, suffix));
}

export function iban(country: string, bban: string): string {
  const numeric = [...`${bban}${country}00`].map((c) => parseInt(c, 36)).join('');
  const check = 98 - Number(BigInt(numeric) % 97n);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}

const clabeDigit = (first17: string) => {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * [3, 7, 1][i % 3]!) % 10;
  return (10 - (sum % 10)) % 10;
};

/** A CLABE ending in `suffix`: its 15th digit (weight 1) is chosen so the control digit is the last one. */
export function clabeWithSuffix(suffix: string): string {
  const account = [...random(7)].map((b) => b % 10).join('');
  for (let d = 0; d < 10; d++) {
    const first17 = `0321800${account}${d}${suffix.slice(0, 2)}`;
    if (clabeDigit(first17) === Number(suffix[2])) return `${first17}${suffix[2]}`;
  }
  throw new Error('unreachable');
}

const cpfDigit = (digits: number[]) => {
  const r = digits.reduce((s, d, i) => s + d * (digits.length + 1 - i), 0) % 11;
  return r < 2 ? 0 : 11 - r;
};

/** A CPF ending in `suffix` (its 9th digit, then the two check digits). */
export function cpfWithSuffix(suffix: string): string {
  for (;;) {
    const d = [...random(8)].map((b) => b % 10);
    d.push(Number(suffix[0]));
    d.push(cpfDigit(d));
    d.push(cpfDigit(d));
    const cpf = d.join('');
    if (cpf.endsWith(suffix) && !/^(\d)\1+$/.test(cpf)) return cpf;
  }
}
