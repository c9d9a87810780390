// Record ids: UUIDv7, the spec's `<Type>:<uuid>` shape, and telling internal account ids apart.
let lastMs = 0;
let counter = 0;

/** UUIDv7 (RFC 9562): 48-bit ms timestamp, then a 12-bit per-isolate counter, so ids sort by creation. */
function uuidv7(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = Math.floor(Math.random() * 0x400); // random start leaves room to count up within the ms
  } else {
    counter++;
    if (counter > 0xfff) {
      lastMs++; // borrow the next millisecond rather than break the order
      counter = 0;
    }
  }
  const ms = lastMs;
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | (counter >>> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A record id of the spec's shape `<Type>:<uuid>`. */
export function newId(type: string, now?: number): string {
  return `${type}:${uuidv7(now)}`;
}

/** The id of type `type` that shares `id`'s UUID (a quote's transaction: `Quote:<u>` pays as `Transaction:<u>`). */
export function sameUuidId(type: string, id: string): string {
  return `${type}:${id.slice(id.indexOf(':') + 1)}`;
}

/** The creation time (ms) a `<Type>:<uuidv7>` id carries in its first 48 bits. */
export function idTime(id: string): number {
  const hex = id
    .slice(id.indexOf(':') + 1)
    .replace(/-/g, '')
    .slice(0, 12);
  return parseInt(hex, 16);
}

/** True when `id` names an internal account; any other account id is an external account (or a pseudo account). */
export function isInternalAccountId(id: string): boolean {
  return id.startsWith('InternalAccount:');
}
