import type { LogLevel } from '../env';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether lines of `level` are written (to skip building costly fields). */
  enabled(level: LogLevel): boolean;
}

/** JSON-lines logger; never pass secrets, keys or codes in `fields`. */
export function logger(level: LogLevel): Logger {
  const at = (l: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[l] < ORDER[level]) return;
    const line = JSON.stringify({ level: l, msg, ...fields });
    if (l === 'error') console.error(line);
    else if (l === 'warn') console.warn(line);
    else console.log(line);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), enabled: (l) => ORDER[l] >= ORDER[level] };
}
