import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlnopad as b64url } from '@scure/base';
import { isoCBOR } from '@simplewebauthn/server/helpers';

export const TEST_RP_ID = 'localhost';
export const TEST_ORIGIN = 'http://localhost:3000';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

/** The PASSKEY create `attestation`. */
export interface Attestation {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports: string[];
}

/** The PASSKEY verify `assertion`. */
export interface Assertion {
  credentialId: string;
  clientDataJson: string;
  authenticatorData: string;
  signature: string;
  userHandle?: string;
}

/**
 * A software ES256 authenticator: it produces real WebAuthn registration ('none' attestation, CBOR
 * attestation object with a COSE key) and assertion responses, counting signatures like a security key.
 */
export class SoftPasskey {
  readonly credentialId: string;
  readonly userHandle: string;
  counter = 0;
  private readonly privateKey = p256.utils.randomSecretKey();

  constructor(
    readonly rpId = TEST_RP_ID,
    readonly origin = TEST_ORIGIN,
  ) {
    this.credentialId = b64url.encode(crypto.getRandomValues(new Uint8Array(16)));
    this.userHandle = b64url.encode(crypto.getRandomValues(new Uint8Array(16)));
  }

  /** navigator.credentials.create() answering `challenge` (base64url). */
  register(challenge: string, opts: { origin?: string } = {}): Attestation {
    const clientDataJson = this.clientData('webauthn.create', challenge, opts.origin);
    const point = p256.getPublicKey(this.privateKey, false);
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, point.slice(1, 33)],
      [-3, point.slice(33, 65)],
    ]);
    const credId = b64url.decode(this.credentialId);
    const authData = concat(
      this.authDataHeader(FLAG_UP | FLAG_UV | FLAG_AT),
      new Uint8Array(16), // aaguid: zero for 'none' attestation
      new Uint8Array([credId.length >> 8, credId.length & 0xff]),
      credId,
      isoCBOR.encode(coseKey),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      credentialId: this.credentialId,
      clientDataJson: b64url.encode(clientDataJson),
      attestationObject: b64url.encode(attestationObject),
      transports: ['internal'],
    };
  }

  /** navigator.credentials.get() answering `challenge`; each call counts once unless `counter` is forced. */
  assert(challenge: string, opts: { origin?: string; counter?: number; rpId?: string } = {}): Assertion {
    this.counter = opts.counter ?? this.counter + 1;
    const clientDataJson = this.clientData('webauthn.get', challenge, opts.origin);
    const authData = this.authDataHeader(FLAG_UP | FLAG_UV, opts.rpId);
    const signed = concat(authData, sha256(clientDataJson));
    const signature = p256.sign(sha256(signed), this.privateKey, { prehash: false, lowS: true, format: 'der' });
    return {
      credentialId: this.credentialId,
      clientDataJson: b64url.encode(clientDataJson),
      authenticatorData: b64url.encode(authData),
      signature: b64url.encode(signature),
      userHandle: this.userHandle,
    };
  }

  private clientData(type: string, challenge: string, origin = this.origin): Uint8Array {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private authDataHeader(flags: number, rpId = this.rpId): Uint8Array {
    const c = this.counter;
    return concat(sha256(new TextEncoder().encode(rpId)), new Uint8Array([flags, c >>> 24, (c >>> 16) & 0xff, (c >>> 8) & 0xff, c & 0xff]));
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
