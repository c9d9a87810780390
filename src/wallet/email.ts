// E-mail sending (a real provider in production, the sandbox outbox otherwise), OTP messages, and reading the outbox.
import { and, eq, type SQL } from 'drizzle-orm';
import type { Settings } from '../env';
import type { Db } from '../db/client';
import { sandboxEmails } from '../db/schema';
import { iso } from '../common/time';
import { keysetList } from '../http/pagination';
import { toBase64 } from '../crypto/base64';
import { newId } from '../crypto/ids';
import { ApiError } from '../http/errors';

interface EmailMessage {
  platformId: string;
  to: string;
  /** A mailbox header value: `mailbox()` encodes its display name. */
  from: string;
  replyTo?: string;
  subject: string;
  text: string;
}

/** Where OTP e-mails go: the platform's real provider in production, a readable local outbox in sandbox. */
interface EmailSender {
  send(message: EmailMessage, now: number): Promise<void>;
}

export function emailSender(settings: Settings, db: Db): EmailSender {
  if (settings.mode === 'sandbox') return sandboxOutbox(db);
  return httpProvider(settings.email.apiUrl, settings.email.apiKey);
}

function sandboxOutbox(db: Db): EmailSender {
  return {
    async send(m, now) {
      const { platformId, to, from, subject, text } = m;
      await db.insert(sandboxEmails).values({ id: newId('Email', now), platformId, to, from, subject, text, createdAt: now });
    },
  };
}

/** A JSON e-mail API (`POST {from, to, subject, text, reply_to?}` with a Bearer key), as Resend and similar providers take. */
function httpProvider(url: string, apiKey: string | undefined): EmailSender {
  return {
    async send(m) {
      if (!apiKey) throw new ApiError('INTERNAL_ERROR', 'E-mail delivery is not configured (EMAIL_API_KEY)');
      const res = await fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ from: m.from, to: [m.to], subject: m.subject, text: m.text, ...(m.replyTo ? { reply_to: m.replyTo } : {}) }),
      });
      if (!res.ok) throw new ApiError('INTERNAL_ERROR', `E-mail provider answered ${res.status}`);
    },
  };
}

/** The OTP e-mail, branded with the platform's embedded-wallet settings. */
export function otpEmail(
  platformId: string,
  to: string,
  otp: string,
  expiresInSeconds: number,
  config: { appName?: string; sendFromEmailAddress?: string; sendFromEmailSenderName?: string; replyToEmailAddress?: string },
): EmailMessage {
  const app = oneLine(config.appName ?? '') || 'your wallet';
  const sender = config.sendFromEmailSenderName ?? 'Notifications';
  const address = config.sendFromEmailAddress ?? 'no-reply@service.invalid';
  const minutes = Math.max(1, Math.round(expiresInSeconds / 60));
  return {
    platformId,
    to,
    from: mailbox(sender, address),
    ...(config.replyToEmailAddress ? { replyTo: config.replyToEmailAddress } : {}),
    subject: `Your ${app} verification code`,
    text: `Your ${app} verification code is ${otp}. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask for it, ignore this e-mail.`,
  };
}

const CONTROL = /[\p{Cc}\u2028\u2029]+/gu;
/** Settings stored before control characters were refused must not break a header line either. */
const oneLine = (text: string) => text.replace(CONTROL, ' ').trim();

/** An RFC 2047 encoded word holds at most 75 characters: 45 bytes of UTF-8 make 60 of base64. */
const WORD_BYTES = 45;

/**
 * `name <address>` with the display name encoded so that nothing in it reads as another address or header:
 * printable ASCII as an RFC 5322 quoted string, anything else as RFC 2047 UTF-8 encoded words.
 */
export function mailbox(name: string, address: string): string {
  const text = oneLine(name);
  if (!text) return address;
  if (/^[\x20-\x7e]*$/.test(text)) return `"${text.replace(/[\\"]/g, '\\$&')}" <${address}>`;
  const utf8 = new TextEncoder();
  const words: string[] = [];
  let chunk = '';
  for (const ch of text) {
    if (chunk && utf8.encode(chunk + ch).length > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  words.push(chunk);
  const encoded = words.map((w) => `=?UTF-8?B?${toBase64(utf8.encode(w))}?=`);
  return `${encoded.join(' ')} <${address}>`;
}

/** GET /sandbox/emails: the sandbox outbox, newest first. */
export const sandboxEmailList = keysetList(
  (platformId: SQL, q: { to?: string; limit: number; cursor?: string }) => ({
    table: sandboxEmails,
    idColumn: sandboxEmails.id,
    where: and(eq(sandboxEmails.platformId, platformId), q.to ? eq(sandboxEmails.to, q.to) : undefined),
    order: 'desc' as const,
    limit: q.limit,
    cursor: q.cursor,
  }),
  ({ id, to, from, subject, text, createdAt }: typeof sandboxEmails.$inferSelect) => ({
    id,
    to,
    from,
    subject,
    text,
    createdAt: iso(createdAt),
  }),
);
