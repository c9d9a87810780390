// Where the service may POST a webhook (a platform's webhookEndpoint), and where a hosted page may send a browser back, by the mode's rules.
/**
 * Where the service may POST (a platform's `webhookEndpoint`), judged from the URL alone: host names are
 * not resolved here. The WHATWG URL parser has already turned every IPv4 notation (decimal, octal, hex,
 * short forms, full-width digits) into dotted decimal and IPv6 into its compressed hex form.
 */

/** What a host is, as far as reaching it from the service goes. */
type HostKind = 'public' | 'loopback' | 'local-name' | 'internal';

/** Cloud metadata services reached by name (their addresses are in the internal ranges below). */
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** Suffixes of names that only ever resolve inside a local network (RFC 6762, RFC 8375, ICANN `.internal`). */
const LOCAL_SUFFIXES = ['.local', '.internal', '.home.arpa', '.lan'];

/** IPv4 ranges that are not loopback and not the public internet: [first address, prefix length]. */
const INTERNAL_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on many systems
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (and some clouds' metadata, e.g. 100.100.100.200)
  ['169.254.0.0', 16], // link-local, with the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1, RFC 5737)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, with the broadcast address 255.255.255.255
];

/**
 * Why `value` may not be a webhook endpoint in this mode, or undefined when it may. Both modes refuse
 * credentials in the URL (they would show in GET /config and in delivery records) and internal addresses;
 * production also requires https and a public host, while sandbox allows http and loopback, where a
 * developer's receiver runs.
 */
export function endpointProblem(value: string, production: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be an absolute URL';
  }
  if (production ? url.protocol !== 'https:' : url.protocol !== 'https:' && url.protocol !== 'http:') {
    return production ? 'Must be an https URL' : 'Must be an http(s) URL';
  }
  if (url.username || url.password) return 'Must not carry credentials (user:password@)';
  const kind = hostKind(url.hostname);
  if (kind === 'internal') return 'Must not point to a private, link-local, metadata or reserved address';
  if (production && kind !== 'public') return 'Must point to a public host (not loopback, localhost or a local-network name)';
  return undefined;
}

/**
 * Why `value` may not be where a hosted page sends the browser back (a KYC link's `redirectUri`), or undefined
 * when it may: an absolute https URL without credentials; in the sandbox also http to a loopback host (a
 * developer's app). Nothing else, so no `javascript:`, `data:` or scheme-relative target.
 */
export function redirectUriProblem(value: string, sandbox: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Must be an absolute URL';
  }
  if (url.username || url.password) return 'Must not carry credentials (user:password@)';
  if (url.protocol === 'https:') return undefined;
  if (sandbox && url.protocol === 'http:' && hostKind(url.hostname) === 'loopback') return undefined;
  return sandbox ? 'Must be an https URL (or http to localhost or 127.0.0.1 in the sandbox)' : 'Must be an https URL';
}

function hostKind(hostname: string): HostKind {
  if (hostname.startsWith('[')) return ipv6Kind(hostname.slice(1, -1));
  if (/^\d+\.\d+\.\d+\.\d+$/.test(hostname)) return ipv4Kind(ipv4Number(hostname));
  const name = hostname.replace(/\.+$/, '');
  if (METADATA_NAMES.has(name)) return 'internal';
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  if (!name.includes('.') || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))) return 'local-name';
  return 'public';
}

function ipv4Number(dotted: string): number {
  return dotted.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function ipv4Kind(address: number): HostKind {
  if (address >>> 24 === 127) return 'loopback';
  for (const [first, bits] of INTERNAL_V4) {
    const mask = (~0 << (32 - bits)) >>> 0;
    if ((address & mask) >>> 0 === ipv4Number(first)) return 'internal';
  }
  return 'public';
}

function ipv6Kind(text: string): HostKind {
  const groups = ipv6Groups(text);
  // The URL parser only serialises valid addresses; anything else is refused rather than guessed at.
  if (!groups) return 'internal';
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const v4 = (hi: number, lo: number) => ipv4Kind(hi * 65536 + lo);
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroPrefix && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  if (zeroPrefix && g5 === 0 && g6 === 0 && g7 === 0) return 'internal'; // unspecified
  if (zeroPrefix && (g5 === 0xffff || g5 === 0)) return v4(g6, g7); // IPv4-mapped, IPv4-compatible
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4(g6, g7); // NAT64
  if (g0 === 0x64 && g1 === 0xff9b) return 'internal'; // local-use NAT64 (64:ff9b:1::/48)
  if (g0 === 0x2002) return v4(g1, g2); // 6to4
  if ((g0 & 0xfe00) === 0xfc00) return 'internal'; // unique local, with fd00:ec2::254 (metadata)
  if ((g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0) return 'internal'; // link-local, site-local
  if ((g0 & 0xff00) === 0xff00) return 'internal'; // multicast
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'internal'; // discard-only
  if (g0 === 0x2001 && g1 === 0xdb8) return 'internal'; // documentation (RFC 3849)
  // Teredo tunnels to an IPv4 address carried (obfuscated) inside the address: no telling where it leads.
  if (g0 === 0x2001 && g1 === 0) return 'internal';
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address in hex notation (with at most one `::`), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.some(Number.isNaN) ? undefined : groups;
}
