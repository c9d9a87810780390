// The embedded wallets' sandbox magic values and the OIDC time bounds, read by the checks and by GET /sandbox/magic-values.

/** Each value the sandbox accepts in place of a real proof, and the refusal a wrong one gets (401 `UNAUTHORIZED`, `reason`). */
export const WALLET_SANDBOX_VALUES = {
  /** EMAIL_OTP verify `otp`: a real code from the outbox also works. */
  otp: { value: '000000', refusal: 'Invalid OTP code' },
  /** PASSKEY verify `assertion.signature`: the challenge still needs `clientPublicKey`, the verify its `Request-Id`. */
  passkeySignature: { value: 'sandbox-valid-passkey-signature', refusal: 'Invalid passkey signature' },
  /** `Service-Wallet-Signature` on any signed retry: a real stamp also works. */
  walletSignature: { value: 'sandbox-valid-signature', refusal: 'Invalid Service-Wallet-Signature' },
} as const;

/** The fixed sandbox OIDC token of older sandboxes (no longer accepted). */
export const RETIRED_SANDBOX_OIDC_TOKEN = 'sandbox-valid-oidc-token';
/** `iat` at most 60 s before the request. */
export const OIDC_MAX_AGE_MS = 60_000;
/** Sandbox allows 5 s of clock skew; the same margin bounds an `iat` ahead of our clock in both modes. */
export const OIDC_CLOCK_SKEW_MS = 5_000;
