// Typings of @turnkey/api-key-stamper's ApiKeyStamper. The package's own .d.ts pulls in `lib="dom"`,
// whose globals clash with @cloudflare/workers-types, so tsconfig `paths` points here.
export type Runtime = 'browser' | 'node' | 'purejs';
export declare class ApiKeyStamper {
  constructor(config: { apiPublicKey: string; apiPrivateKey: string; runtimeOverride?: Runtime });
  stamp(payload: string): Promise<{ stampHeaderName: string; stampHeaderValue: string }>;
}
