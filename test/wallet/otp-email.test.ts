import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api } from '../support/api';
import { call, emailCredential, newWallet } from '../support/wallets';

interface ProviderMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  reply_to?: string;
}

/** The e-mail provider at the network edge: records what the Worker asks it to send. */
function fakeProvider() {
  const mails: ProviderMail[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url !== 'https://api.resend.com/emails') return new Response('not found', { status: 404 });
    mails.push(JSON.parse(String(init?.body)));
    return Response.json({ id: 'email-1' });
  });
  return mails;
}

afterEach(() => vi.restoreAllMocks());

async function otpMailWith(config: Record<string, unknown>) {
  const mails = fakeProvider();
  const w = await newWallet('production');
  const res = await api('PATCH', '/config', { auth: w.p.auth, body: { embeddedWalletConfig: config } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const email = await emailCredential(w);
  expect((await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth })).status).toBe(200);
  expect(mails).toHaveLength(1);
  return mails[0]!;
}

describe('the OTP e-mail as the provider receives it', () => {
  it('the sender name is a quoted display name: its commas, quotes and brackets cannot add an address', async () => {
    const mail = await otpMailWith({
      sendFromEmailSenderName: 'Acme, Inc. "Payments" <ceo@evil.test>',
      sendFromEmailAddress: 'noreply@acme.com',
      replyToEmailAddress: 'support@acme.com',
    });
    expect(mail.from).toBe('"Acme, Inc. \\"Payments\\" <ceo@evil.test>" <noreply@acme.com>');
    expect(mail.reply_to).toBe('support@acme.com');
  });

  it('a non-ASCII sender name is an RFC 2047 encoded word', async () => {
    const mail = await otpMailWith({ sendFromEmailSenderName: 'Zoë Pay', sendFromEmailAddress: 'noreply@acme.com' });
    expect(mail.from).toBe(`=?UTF-8?B?${btoa(String.fromCharCode(...new TextEncoder().encode('Zoë Pay')))}?= <noreply@acme.com>`);
  });

  it('names stored before control characters were refused are sent on one line', async () => {
    const mails = fakeProvider();
    const w = await newWallet('production');
    await env.DB.prepare('UPDATE platforms SET embedded_wallet_config = ? WHERE id = ?')
      .bind(
        JSON.stringify({ appName: 'Acme\r\nBcc: victim@example.com', sendFromEmailSenderName: 'Acme\r\nBcc: victim@example.com' }),
        w.p.id,
      )
      .run();
    const email = await emailCredential(w);
    expect((await call(w.mode, 'POST', `/auth/credentials/${email.id}/challenge`, { auth: w.p.auth })).status).toBe(200);
    const mail = mails[0]!;
    expect(mail.to).toEqual([w.email]);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.from).not.toMatch(/[\r\n]/);
    expect(mail.from).toMatch(/^"Acme Bcc: victim@example\.com" <[^<>]+>$/);
  });
});
