import type { AccountDO } from './wallet/account-do';

/** Bindings and variables the Worker receives (wrangler.toml, secrets). */
export interface Env {
  DB: D1Database;
  ACCOUNT: DurableObjectNamespace<AccountDO>;
  JOBS: Queue<unknown>;
  DOCUMENTS: R2Bucket;
  SERVICE_ENV?: string;
  API_PREFIX?: string;
  LOG_LEVEL?: string;
  /** Secret: bearer token of the operator endpoints; without it they answer 404. */
  OPERATOR_TOKEN?: string;
  /** Secret: base64 PKCS#8 DER of the P-256 key that signs webhooks (`X-Service-Signature`). */
  WEBHOOK_SIGNING_KEY?: string;
  /** Domain of the sandbox UMA counterparty (spec 4.9); default `sandbox.uma.test`. */
  SANDBOX_UMA_DOMAIN?: string;
}

export type ServiceMode = 'sandbox' | 'production';

export interface Settings {
  mode: ServiceMode;
  apiPrefix: string;
  logLevel: LogLevel;
  operatorToken: string | undefined;
  webhookSigningKey: string | undefined;
  sandboxUmaDomain: string;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LOG_LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Reads the settings from the environment; unknown values fall back to safe defaults. */
export function settings(env: Env): Settings {
  const prefix = (env.API_PREFIX ?? '').replace(/^\/+|\/+$/g, '');
  const level = (env.LOG_LEVEL ?? 'info') as LogLevel;
  return {
    // Anything but an explicit "sandbox" runs with production rules: magic values are never honoured by accident.
    mode: (env.SERVICE_ENV ?? 'sandbox') === 'sandbox' ? 'sandbox' : 'production',
    apiPrefix: prefix,
    logLevel: LOG_LEVELS.includes(level) ? level : 'info',
    operatorToken: env.OPERATOR_TOKEN || undefined,
    webhookSigningKey: env.WEBHOOK_SIGNING_KEY || undefined,
    sandboxUmaDomain: (env.SANDBOX_UMA_DOMAIN || 'sandbox.uma.test').toLowerCase(),
  };
}
