// The JSON-lines logger, and request paths with their secret parameters redacted.
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

/** A route's pattern (itty syntax, `:name` parameters) and which of its parameters are secrets. */
interface PathPattern {
  path: string;
  secretParams?: readonly string[];
}

/**
 * What a log line may show of a request path: wherever the segments of a route up to its last secret
 * parameter appear (under any prefix, with any suffix or method, so a 404 or 405 near the route is covered
 * too), each secret value is replaced by its `:name`.
 */
export function pathRedactor(routes: readonly PathPattern[]): (path: string) => string {
  const rules = new Map<string, { pattern: RegExp; head: (string | null)[] }>();
  for (const { path, secretParams = [] } of routes) {
    if (secretParams.length === 0) continue;
    const segments = path.split('/').filter(Boolean);
    if (secretParams.some((name) => !segments.includes(`:${name}`)))
      throw new Error(`${path} has no parameter among ${secretParams.join(', ')}`);
    const last = Math.max(...secretParams.map((name) => segments.indexOf(`:${name}`)));
    // The segments as logged: secret parameters by name, everything else as sent (null).
    const head = segments.slice(0, last + 1).map((s) => (s.startsWith(':') && secretParams.includes(s.slice(1)) ? s : null));
    const source = segments
      .slice(0, last + 1)
      .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    rules.set(source, { pattern: new RegExp(`/${source}`, 'gi'), head });
  }
  return (path) => {
    let out = path;
    for (const { pattern, head } of rules.values()) {
      out = out.replace(pattern, (match) => {
        let i = 0;
        return match.replace(/[^/]+/g, (sent) => head[i++] ?? sent);
      });
    }
    return out;
  };
}
