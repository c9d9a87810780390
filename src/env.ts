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
  /** Production e-mail provider (HTTP JSON API, Resend-compatible): endpoint and secret key. */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
}

export type ServiceMode = 'sandbox' | 'production';

export interface Settings {
  mode: ServiceMode;
  apiPrefix: string;
  logLevel: LogLevel;
  operatorToken: string | undefined;
  email: { apiUrl: string; apiKey: string | undefined };
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
    email: { apiUrl: env.EMAIL_API_URL || 'https://api.resend.com/emails', apiKey: env.EMAIL_API_KEY || undefined },
  };
}
