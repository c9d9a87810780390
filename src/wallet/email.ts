import type { Settings } from '../env';
import type { Db } from '../db/client';
import { sandboxEmails } from '../db/schema';
import { newId } from '../crypto/ids';
import { ApiError } from '../http/errors';

export interface EmailMessage {
  platformId: string;
  to: string;
  from: string;
  subject: string;
  text: string;
}

/** Where OTP e-mails go: the platform's real provider in production, a readable local outbox in sandbox. */
export interface EmailSender {
  send(message: EmailMessage, now: number): Promise<void>;
}

export function emailSender(settings: Settings, db: Db): EmailSender {
  if (settings.mode === 'sandbox') return sandboxOutbox(db);
  return httpProvider(settings.email.apiUrl, settings.email.apiKey);
}

function sandboxOutbox(db: Db): EmailSender {
  return {
    async send(m, now) {
      await db.insert(sandboxEmails).values({ id: newId('Email', now), ...m, createdAt: now });
    },
  };
}

/** A JSON e-mail API (`POST {from, to, subject, text}` with a Bearer key), as Resend and similar providers take. */
function httpProvider(url: string, apiKey: string | undefined): EmailSender {
  return {
    async send(m) {
      if (!apiKey) throw new ApiError('INTERNAL_ERROR', 'E-mail delivery is not configured (EMAIL_API_KEY)');
      const res = await fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ from: m.from, to: [m.to], subject: m.subject, text: m.text }),
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
  config: { appName?: string; sendFromEmailAddress?: string; sendFromEmailSenderName?: string },
): EmailMessage {
  const app = config.appName ?? 'your wallet';
  const sender = config.sendFromEmailSenderName ?? 'Notifications';
  const address = config.sendFromEmailAddress ?? 'no-reply@service.invalid';
  const minutes = Math.max(1, Math.round(expiresInSeconds / 60));
  return {
    platformId,
    to,
    from: `${sender} <${address}>`,
    subject: `Your ${app} verification code`,
    text: `Your ${app} verification code is ${otp}. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}. If you did not ask for it, ignore this e-mail.`,
  };
}
