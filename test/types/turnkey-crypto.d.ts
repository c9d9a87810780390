// Typings of the few @turnkey/crypto functions the tests use. The package's own .d.ts pulls in
// `lib="dom"`, whose globals clash with @cloudflare/workers-types, so tsconfig `paths` points here.
export declare function generateP256KeyPair(): { privateKey: string; publicKey: string; publicKeyUncompressed: string };
export declare function getPublicKey(privateKey: Uint8Array | string, isCompressed?: boolean): Uint8Array;
export declare function decryptCredentialBundle(credentialBundle: string, embeddedKey: string): string;
