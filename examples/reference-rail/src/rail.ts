// The reference rail: takes the service's signed instructions, shows them to a person, reports the outcome chosen.
import {
  PROVIDER_SIGNATURE_HEADER,
  signProviderMessage,
  verifyProviderMessage,
  type SignaturePurpose,
} from '../../../src/crypto/provider-signature';

/**
 * What an operator's rail and identity provider do, at their smallest: every instruction the payments service
 * sends (signed with the shared secret) is checked and recorded once by its id, and answered 2xx; a person
 * then settles it on the page, which reports the outcome to the service, signed the same way. A real
 * integration replaces the person with the bank's, network's or identity vendor's answers. The logic here
 * takes its storage and its way to the service as arguments, so the service's own tests run it as is.
 */

/** One instruction as received, and what was reported for it so far. */
export interface Instruction {
  key: string;
  provider: Provider;
  type: string;
  body: Record<string, unknown>;
  receivedAt: string;
  settlements: Settlement[];
}

export interface Settlement {
  status: string;
  at: string;
  /** The service's answer: its HTTP status and body. */
  answer: number;
  response: string;
}

/** Where instructions are kept (a Durable Object in the Worker, a Map in tests). */
export interface Store {
  get(key: string): Promise<Instruction | undefined>;
  put(item: Instruction): Promise<void>;
  /** The newest first. */
  list(limit: number): Promise<Instruction[]>;
}

export interface RailConfig {
  /** RAIL_SECRET and IDENTITY_PROVIDER_SECRET: the values the service has. */
  railSecret?: string;
  identitySecret?: string;
  /** The service's API base, version included (https://payments.example.com/2025-10-13). */
  serviceUrl: string;
  /** How an outcome reaches the service (a service binding's fetch, or fetch). */
  send: (request: Request) => Promise<Response>;
  /** The page's password (user `operator`); without one the page is off. */
  adminPassword?: string;
  /** Collection accounts by currency, given as payment instructions for real-time funding. */
  fundingInstructions: Record<string, Record<string, unknown>>;
}

type Provider = 'rail' | 'identity';

const PROVIDERS: Record<Provider, { path: string; instruction: SignaturePurpose; outcome: SignaturePurpose; outcomes: string }> = {
  rail: { path: '/rail/instructions', instruction: 'rail-instruction', outcome: 'rail-outcome', outcomes: '/providers/rail/outcomes' },
  identity: {
    path: '/identity/instructions',
    instruction: 'identity-instruction',
    outcome: 'identity-outcome',
    outcomes: '/providers/identity/outcomes',
  },
};

/** What a person may report, by instruction type. */
export const CHOICES: Record<string, string[]> = {
  PAYOUT: ['COMPLETED', 'FAILED', 'REJECTED', 'RETURNED', 'REFUNDED'],
  COLLECTION: ['COMPLETED', 'FAILED', 'REJECTED'],
  REFUND: ['REFUND_COMPLETED', 'REFUND_FAILED'],
  FUNDING: ['FUNDED'],
  VERIFICATION: ['APPROVED', 'REJECTED', 'DOCUMENTS_REQUESTED'],
  BENEFICIAL_OWNER: ['APPROVED', 'REJECTED'],
  KYC_LINK: ['APPROVED', 'REJECTED'],
};

const secretOf = (config: RailConfig, provider: Provider) => (provider === 'rail' ? config.railSecret : config.identitySecret);
const json = (status: number, body: unknown) => Response.json(body, { status });

/** The Worker's whole surface: instructions in, the page, settling. */
export async function handleRail(request: Request, store: Store, config: RailConfig): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (request.method === 'POST') {
    for (const provider of ['rail', 'identity'] as const)
      if (pathname === PROVIDERS[provider].path) return receive(provider, request, store, config);
  }
  if (pathname === '/' || pathname === '/settle') {
    const refused = await admin(request, config);
    if (refused) return refused;
    if (pathname === '/' && request.method === 'GET') return page(await store.list(100));
    if (pathname === '/settle' && request.method === 'POST') {
      // The page's own form only (a page of another site would carry the browser's Basic credentials).
      const site = request.headers.get('Sec-Fetch-Site');
      if (site && site !== 'same-origin') return json(403, { message: 'Cross-site form posts are refused' });
      const form = await request.formData();
      const field = (name: string) => (typeof form.get(name) === 'string' ? (form.get(name) as string) : '');
      const done = await settle(store, config, field('key'), field('status'), {
        failureReason: field('failureReason'),
        reason: field('reason'),
      });
      return 'error' in done
        ? json(done.error, { message: done.message })
        : new Response(null, { status: 303, headers: { Location: '/' } });
    }
  }
  return json(404, { message: 'Not found' });
}

/** An instruction from the service: checked, kept once (a redelivery is answered as the first), acknowledged. */
async function receive(provider: Provider, request: Request, store: Store, config: RailConfig): Promise<Response> {
  const secret = secretOf(config, provider);
  if (!secret) return json(503, { message: `Set ${provider === 'rail' ? 'RAIL_SECRET' : 'IDENTITY_PROVIDER_SECRET'}` });
  const raw = await request.text();
  const check = await verifyProviderMessage(
    secret,
    PROVIDERS[provider].instruction,
    request.headers.get(PROVIDER_SIGNATURE_HEADER),
    raw,
    Date.now(),
  );
  if (!check.ok) return json(401, { message: `Signature refused: ${check.problem}` });
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return json(400, { message: 'Not JSON' });
  }
  const { id, type } = body;
  if (typeof id !== 'string' || typeof type !== 'string' || !CHOICES[type]) return json(400, { message: 'Unknown instruction' });
  const known = await store.get(id);
  if (!known) await store.put({ key: id, provider, type, body, receivedAt: new Date().toISOString(), settlements: [] });
  if (type === 'FUNDING') {
    // Asked at once, while the quote is created: where its payer pays.
    const account = config.fundingInstructions[String(body.currency)];
    if (!account) return json(422, { message: `No collection account for ${String(body.currency)}` });
    const memo = String(body.reference);
    return json(200, {
      paymentInstructions: [
        {
          instructionsNotes: `Pay exactly ${String(body.amount)} (smallest unit) ${String(body.currency)} with the reference ${memo} in the memo.`,
          accountOrWalletInfo: { ...account, reference: memo },
        },
      ],
    });
  }
  return json(202, { received: id, repeat: known !== undefined });
}

/**
 * Reports `status` for the instruction `key` to the service, signed, and records the service's answer.
 * `failureReason` (FAILED, REJECTED) and `reason` (an identity rejection or the document asked for) refine it.
 */
export async function settle(
  store: Store,
  config: RailConfig,
  key: string,
  status: string,
  extra: { failureReason?: string; reason?: string } = {},
): Promise<Settlement | { error: number; message: string }> {
  const item = await store.get(key);
  if (!item) return { error: 404, message: 'No such instruction' };
  if (!CHOICES[item.type]?.includes(status)) return { error: 400, message: `${item.type} takes ${CHOICES[item.type]?.join(', ')}` };
  const secret = secretOf(config, item.provider);
  if (!secret) return { error: 503, message: 'No secret to sign with' };
  const raw = JSON.stringify(outcomeOf(item, status, extra));
  const signature = await signProviderMessage(secret, PROVIDERS[item.provider].outcome, raw, Date.now());
  const response = await config.send(
    new Request(`${config.serviceUrl}${PROVIDERS[item.provider].outcomes}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [PROVIDER_SIGNATURE_HEADER]: signature },
      body: raw,
    }),
  );
  const settlement: Settlement = {
    status,
    at: new Date().toISOString(),
    answer: response.status,
    response: (await response.text()).slice(0, 1000),
  };
  await store.put({ ...item, settlements: [...item.settlements, settlement] });
  return settlement;
}

/** The outcome body the service takes for this instruction. */
function outcomeOf(item: Instruction, status: string, extra: { failureReason?: string; reason?: string }): Record<string, unknown> {
  const { body } = item;
  const platformId = body.platformId;
  if (item.provider === 'rail') {
    const failed = status === 'FAILED' || status === 'REJECTED';
    const failureReason = extra.failureReason || (item.type === 'COLLECTION' ? 'PAY_REQUEST_FAILED' : 'OFFRAMP_FAILED');
    return { paymentId: body.paymentId, platformId, status, ...(failed ? { failureReason } : {}) };
  }
  if (item.type === 'BENEFICIAL_OWNER') return { beneficialOwnerId: body.beneficialOwnerId, platformId, status };
  const reason = extra.reason || (status === 'REJECTED' ? 'Rejected by the identity review' : 'An identity document is needed');
  // A hosted KYC link: the person here stands in for the customer on the provider's page.
  if (item.type === 'KYC_LINK') {
    return {
      kycLinkId: body.kycLinkId,
      platformId,
      status,
      ...(status === 'REJECTED' ? { errors: [{ type: 'APPLICANT_REJECTED', reason }] } : {}),
    };
  }
  const errors =
    status === 'REJECTED'
      ? [{ type: 'APPLICANT_REJECTED', reason }]
      : status === 'DOCUMENTS_REQUESTED'
        ? [{ type: 'MISSING_IDENTITY_DOCUMENT', acceptedDocumentTypes: ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'], reason }]
        : undefined;
  return { verificationId: body.verificationId, platformId, status, ...(errors ? { errors } : {}) };
}

/** The page's Basic credentials (user `operator`), or the refusal. */
async function admin(request: Request, config: RailConfig): Promise<Response | null> {
  if (!config.adminPassword) return json(404, { message: 'Set ADMIN_PASSWORD to open the page' });
  const expected = new TextEncoder().encode(`Basic ${btoa(`operator:${config.adminPassword}`)}`);
  const sent = new TextEncoder().encode(request.headers.get('Authorization') ?? '');
  if (sent.length === expected.length && crypto.subtle.timingSafeEqual(sent, expected)) return null;
  return new Response('Sign in as operator', { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="reference-rail"' } });
}

const escape = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** One line about what the instruction asks. */
function summary(item: Instruction): string {
  const b = item.body;
  if (item.provider === 'identity') return `${item.type} ${String(b.verificationId ?? b.beneficialOwnerId ?? b.kycLinkId)}`;
  const end = (b.destination ?? b.source) as { id?: string } | undefined;
  return `${item.type} ${String(b.amount)} ${String(b.currency)} ${end?.id ? `(${end.id}) ` : ''}for ${String(b.paymentId)}`;
}

/** What a failure field defaults to when left empty. */
const placeholder = (item: Instruction) =>
  item.provider === 'identity' ? 'reason' : item.type === 'COLLECTION' ? 'PAY_REQUEST_FAILED' : 'OFFRAMP_FAILED';

function page(items: Instruction[]): Response {
  const rows = items.map((item) => {
    const last = item.settlements.at(-1);
    const buttons = CHOICES[item.type]!.map(
      (status) =>
        `<form method="post" action="/settle"><input type="hidden" name="key" value="${escape(item.key)}"><input type="hidden" name="status" value="${status}">${
          status === 'FAILED' || status === 'REJECTED'
            ? `<input name="${item.provider === 'rail' ? 'failureReason' : 'reason'}" placeholder="${placeholder(item)}" size="16">`
            : ''
        }<button>${status}</button></form>`,
    );
    return `<tr><td>${escape(item.receivedAt)}</td><td>${escape(summary(item))}</td><td>${
      last ? `${escape(last.status)} → ${last.answer} <code>${escape(last.response.slice(0, 200))}</code>` : 'waiting'
    }</td><td>${buttons.join('')}</td></tr>`;
  });
  const html = `<!doctype html><meta charset="utf-8"><title>Reference rail</title>
<style>body{font:14px system-ui;margin:2em}td{border-top:1px solid #ddd;padding:.4em;vertical-align:top}form{display:inline-block;margin:0 .3em .3em 0}</style>
<h1>Reference rail</h1><p>Instructions from the payments service, newest first. Settling one reports its outcome to the service.</p>
<table><tr><th>Received</th><th>Instruction</th><th>Last report</th><th>Settle</th></tr>${rows.join('')}</table>`;
  return new Response(html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    },
  });
}
