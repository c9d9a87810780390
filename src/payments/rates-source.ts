// Where mid-market rates come from (the sandbox table or RATES_URL), cached per isolate.
import type { Settings } from '../env';
import { SUPPORTED_CURRENCY_CODES } from '../common/currencies';
import { RATE_WINDOW_MS, ratesUnavailable, type MidMarket } from './rates';
import { sandboxRates } from './rates-sandbox';

/** Where a request's mid-market rates come from; `now` is platform time (ms). */
export type RateSource = (now: number) => Promise<MidMarket>;

/** How long one fetch of `RATES_URL` may take, and how long a waiter waits for a shared one. */
const FETCH_TIMEOUT_MS = 3_000;

/**
 * The rate source of a mode: the sandbox prices with its deterministic table; production only with the
 * configured `RATES_URL` (never the sandbox table), and without one every price is 503 RATES_UNAVAILABLE.
 */
export function rateSource(s: Settings): RateSource {
  if (s.mode === 'sandbox') return async (now) => sandboxRates(now);
  const url = s.ratesUrl;
  if (!url) {
    return async () => {
      throw ratesUnavailable('No exchange-rate source is configured');
    };
  }
  return (now) => fetchedRates(url, now);
}

/**
 * Snapshots of each source, per isolate (module state is the isolate's memory): one fetch serves every
 * request for RATE_WINDOW_MS (rates are cached about 5 minutes), and requests arriving while it is in
 * flight share it, its failure included. A failed fetch is forgotten, so the next request tries again.
 */
interface Snapshot {
  fetch: Promise<MidMarket>;
  /** Set once the fetch succeeded. */
  rates?: MidMarket;
}
const snapshots = new Map<string, Snapshot>();

async function fetchedRates(url: string, now: number): Promise<MidMarket> {
  const held = snapshots.get(url);
  if (held?.rates && held.rates.updatedAt <= now && now < held.rates.expiresAt) return held.rates;
  if (held && !held.rates) return withDeadline(held, url);
  const next: Snapshot = { fetch: download(url, now) };
  next.fetch.then(
    (rates) => (next.rates = rates),
    () => snapshots.get(url) === next && snapshots.delete(url),
  );
  snapshots.set(url, next);
  return withDeadline(next, url);
}

/**
 * Waits for a shared fetch in the caller's own time: should the request that started it be cancelled,
 * its fetch may never settle, and it is dropped so the next request fetches again.
 */
function withDeadline(shared: Snapshot, url: string): Promise<MidMarket> {
  let timer = 0;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      if (snapshots.get(url) === shared) snapshots.delete(url);
      reject(ratesUnavailable('The exchange-rate source did not answer in time'));
    }, FETCH_TIMEOUT_MS + 500);
  });
  return Promise.race([shared.fetch, late]).finally(() => clearTimeout(timer));
}

/** Fetches and checks one snapshot; any failure is 503 RATES_UNAVAILABLE (the URL, which may hold a key, is never echoed). */
async function download(url: string, now: number): Promise<MidMarket> {
  let body: unknown;
  try {
    const res = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`status ${res.status}`);
    body = await res.json();
  } catch {
    throw ratesUnavailable('The exchange-rate source is unavailable');
  }
  const usd = parseRates(body);
  if (!usd) throw ratesUnavailable('The exchange-rate source answered with unusable rates');
  return { usd, updatedAt: now, expiresAt: now + RATE_WINDOW_MS };
}

/**
 * Reads `{"base":"USD","rates":{"EUR":0.92,…}}`, units of each currency per 1 USD (the shape of the
 * common rate APIs), into USD per major unit for the catalogue's currencies; codes outside the
 * catalogue are ignored. Anything else, or a catalogue rate that is not a positive number, is unusable.
 */
function parseRates(body: unknown): Record<string, number> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { base, rates } = body as { base?: unknown; rates?: unknown };
  if (base !== 'USD' || !rates || typeof rates !== 'object' || Array.isArray(rates)) return undefined;
  const usd: Record<string, number> = { USD: 1 };
  for (const code of SUPPORTED_CURRENCY_CODES) {
    if (code === 'USD' || !Object.hasOwn(rates, code)) continue;
    const perUsd = (rates as Record<string, unknown>)[code];
    if (typeof perUsd !== 'number' || !Number.isFinite(perUsd) || perUsd <= 0) return undefined;
    usd[code] = 1 / perUsd;
  }
  return usd;
}
