// The 404 of every resource through the HTTP API: a code of the reference's 404 enum, the finer case in details.reason.
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/router';
import { api, expectError, newPlatform, OPERATOR, type CallOptions } from '../support/api';
import { policy, newAgent } from '../support/agents';
import { MINIMAL_PDF, multipart } from '../support/customers';
import { undeclared } from '../support/responses';
import { solanaWithSuffix } from '../support/identifiers';
import { newWalletClient } from '../support/wallet-client';
import { DEFAULT_SANDBOX_UMA_DOMAIN } from '../../src/env';
import reference from './reference-errors.json';

/** An id of `type` that no record has (ids are `<Type>:<uuid>`). */
const none = (type: string) => `${type}:00000000-0000-7000-8000-000000000000`;

interface Case {
  method: string;
  path: string;
  code: string;
  /** The finer case `details.reason` names (every REFERENCE_NOT_FOUND has one but a webhook's resourceId). */
  reason?: string;
  auth?: 'platform' | 'agent' | 'none' | 'operator';
  body?: unknown;
  form?: { name: string; value?: string; filename?: string; contentType?: string; data?: Uint8Array }[];
}

const clientPublicKey = newWalletClient().clientPublicKey;
const ref = (reason: string) => ({ code: 'REFERENCE_NOT_FOUND', reason });

/** One request per operation that answers 404 for a record it names, with a record no platform has. */
const CASES: Case[] = [
  // Customers, KYC and documents
  { method: 'GET', path: `/customers/${none('Customer')}`, code: 'USER_NOT_FOUND' },
  { method: 'PATCH', path: `/customers/${none('Customer')}`, body: { customerType: 'INDIVIDUAL', fullName: 'X' }, code: 'USER_NOT_FOUND' },
  { method: 'DELETE', path: `/customers/${none('Customer')}`, code: 'USER_NOT_FOUND' },
  { method: 'GET', path: `/customers/bulk/jobs/${none('BulkCustomerImportJob')}`, code: 'BULK_UPLOAD_JOB_NOT_FOUND' },
  { method: 'GET', path: `/beneficial-owners/${none('BeneficialOwner')}`, ...ref('BENEFICIAL_OWNER_NOT_FOUND') },
  {
    method: 'PATCH',
    path: `/beneficial-owners/${none('BeneficialOwner')}`,
    body: { ownershipPercentage: 1 },
    ...ref('BENEFICIAL_OWNER_NOT_FOUND'),
  },
  { method: 'GET', path: `/verifications/${none('Verification')}`, ...ref('VERIFICATION_NOT_FOUND') },
  { method: 'GET', path: `/documents/${none('Document')}`, ...ref('DOCUMENT_NOT_FOUND') },
  {
    method: 'PUT',
    path: `/documents/${none('Document')}`,
    form: [
      { name: 'documentType', value: 'PASSPORT' },
      { name: 'country', value: 'US' },
      { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: MINIMAL_PDF },
    ],
    ...ref('DOCUMENT_NOT_FOUND'),
  },
  { method: 'DELETE', path: `/documents/${none('Document')}`, ...ref('DOCUMENT_NOT_FOUND') },
  { method: 'POST', path: `/customers/${none('Customer')}/kyc-link`, body: {}, code: 'USER_NOT_FOUND' },
  // Invitations: a code no platform has
  { method: 'GET', path: '/invitations/0000000000000000', code: 'INVITATION_NOT_FOUND' },
  {
    method: 'POST',
    path: '/invitations/0000000000000000/claim',
    body: { inviteeUma: '$nobody@sandbox.test' },
    code: 'INVITATION_NOT_FOUND',
  },
  { method: 'POST', path: '/invitations/0000000000000000/cancel', code: 'INVITATION_NOT_FOUND' },
  // Accounts
  { method: 'GET', path: `/customers/external-accounts/${none('ExternalAccount')}`, ...ref('EXTERNAL_ACCOUNT_NOT_FOUND') },
  { method: 'DELETE', path: `/customers/external-accounts/${none('ExternalAccount')}`, ...ref('EXTERNAL_ACCOUNT_NOT_FOUND') },
  { method: 'GET', path: `/platform/external-accounts/${none('ExternalAccount')}`, ...ref('EXTERNAL_ACCOUNT_NOT_FOUND') },
  { method: 'DELETE', path: `/platform/external-accounts/${none('ExternalAccount')}`, ...ref('EXTERNAL_ACCOUNT_NOT_FOUND') },
  {
    method: 'PATCH',
    path: `/internal-accounts/${none('InternalAccount')}`,
    body: { privateEnabled: true },
    ...ref('INTERNAL_ACCOUNT_NOT_FOUND'),
  },
  {
    method: 'POST',
    path: `/internal-accounts/${none('InternalAccount')}/export`,
    body: { clientPublicKey },
    ...ref('INTERNAL_ACCOUNT_NOT_FOUND'),
  },
  // Embedded wallets
  { method: 'DELETE', path: `/auth/credentials/${none('AuthMethod')}`, ...ref('CREDENTIAL_NOT_FOUND') },
  { method: 'POST', path: `/auth/credentials/${none('AuthMethod')}/challenge`, body: {}, ...ref('CREDENTIAL_NOT_FOUND') },
  {
    method: 'POST',
    path: `/auth/credentials/${none('AuthMethod')}/verify`,
    body: { type: 'EMAIL_OTP', otp: '000000', clientPublicKey },
    ...ref('CREDENTIAL_NOT_FOUND'),
  },
  { method: 'DELETE', path: `/auth/sessions/${none('Session')}`, ...ref('SESSION_NOT_FOUND') },
  { method: 'POST', path: `/auth/sessions/${none('Session')}/refresh`, body: { clientPublicKey }, ...ref('SESSION_NOT_FOUND') },
  // Money
  { method: 'GET', path: `/quotes/${none('Quote')}`, code: 'QUOTE_NOT_FOUND' },
  { method: 'POST', path: `/quotes/${none('Quote')}/execute`, code: 'QUOTE_NOT_FOUND' },
  { method: 'GET', path: `/transactions/${none('Transaction')}`, code: 'TRANSACTION_NOT_FOUND' },
  { method: 'GET', path: `/transactions/${none('Transaction')}/history`, code: 'TRANSACTION_NOT_FOUND' },
  { method: 'POST', path: `/transactions/${none('Transaction')}/approve`, code: 'TRANSACTION_NOT_FOUND' },
  { method: 'POST', path: `/transactions/${none('Transaction')}/reject`, code: 'TRANSACTION_NOT_FOUND' },
  {
    method: 'POST',
    path: '/transfer-out',
    body: { source: { accountId: none('InternalAccount') }, destination: { accountId: none('ExternalAccount') }, amount: 1 },
    ...ref('INTERNAL_ACCOUNT_NOT_FOUND'),
  },
  {
    method: 'POST',
    path: '/quotes',
    body: {
      lookupId: none('LookupRequest'),
      source: { sourceType: 'ACCOUNT', accountId: none('InternalAccount') },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: `$success.usd@${DEFAULT_SANDBOX_UMA_DOMAIN}` },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100,
    },
    code: 'LOOKUP_REQUEST_NOT_FOUND',
  },
  {
    method: 'POST',
    path: '/crypto/estimate-withdrawal-fee',
    body: {
      internalAccountId: none('InternalAccount'),
      currency: 'USDC',
      cryptoNetwork: 'SOLANA',
      amount: 1_000_000,
      destinationAddress: solanaWithSuffix('1'),
    },
    ...ref('INTERNAL_ACCOUNT_NOT_FOUND'),
  },
  // Receiver look-ups: `{platformId}` sends as the platform itself, so the receiver is what is missing.
  { method: 'GET', path: `/receiver/uma/$nobody@${DEFAULT_SANDBOX_UMA_DOMAIN}?customerId={platformId}`, code: 'UMA_NOT_FOUND' },
  {
    method: 'GET',
    path: `/receiver/uma/$success.usd@${DEFAULT_SANDBOX_UMA_DOMAIN}?customerId=${none('Customer')}`,
    code: 'USER_NOT_FOUND',
  },
  {
    method: 'GET',
    path: `/receiver/external-account/${none('ExternalAccount')}?customerId={platformId}`,
    ...ref('EXTERNAL_ACCOUNT_NOT_FOUND'),
  },
  // Platform: tokens, agents, webhooks
  { method: 'GET', path: `/tokens/${none('Token')}`, code: 'TOKEN_NOT_FOUND' },
  { method: 'DELETE', path: `/tokens/${none('Token')}`, code: 'TOKEN_NOT_FOUND' },
  { method: 'GET', path: `/agents/${none('Agent')}`, ...ref('AGENT_NOT_FOUND') },
  { method: 'PATCH', path: `/agents/${none('Agent')}`, body: { name: 'X' }, ...ref('AGENT_NOT_FOUND') },
  { method: 'DELETE', path: `/agents/${none('Agent')}`, ...ref('AGENT_NOT_FOUND') },
  { method: 'PATCH', path: `/agents/${none('Agent')}/policy`, body: policy(), ...ref('AGENT_NOT_FOUND') },
  { method: 'POST', path: `/agents/${none('Agent')}/device-codes`, ...ref('AGENT_NOT_FOUND') },
  { method: 'POST', path: `/agents/${none('Agent')}/actions/${none('AgentAction')}/approve`, ...ref('AGENT_NOT_FOUND') },
  // `{agentId}`: the test's own agent, so the action is what is missing.
  { method: 'POST', path: `/agents/{agentId}/actions/${none('AgentAction')}/approve`, ...ref('AGENT_ACTION_NOT_FOUND') },
  { method: 'POST', path: `/agents/{agentId}/actions/${none('AgentAction')}/reject`, body: {}, ...ref('AGENT_ACTION_NOT_FOUND') },
  { method: 'GET', path: '/agents/device-codes/no-such-code/status', ...ref('DEVICE_CODE_NOT_FOUND') },
  { method: 'POST', path: '/agents/device-codes/no-such-code/redeem', auth: 'none', ...ref('DEVICE_CODE_NOT_FOUND') },
  { method: 'GET', path: `/webhooks/deliveries/${none('WebhookDelivery')}`, ...ref('WEBHOOK_DELIVERY_NOT_FOUND') },
  { method: 'POST', path: `/webhooks/deliveries/${none('WebhookDelivery')}/resend`, ...ref('WEBHOOK_DELIVERY_NOT_FOUND') },
  // An agent's own view
  { method: 'GET', path: `/agents/me/quotes/${none('Quote')}`, auth: 'agent', code: 'QUOTE_NOT_FOUND' },
  { method: 'POST', path: `/agents/me/quotes/${none('Quote')}/execute`, auth: 'agent', code: 'QUOTE_NOT_FOUND' },
  { method: 'GET', path: `/agents/me/transactions/${none('Transaction')}`, auth: 'agent', code: 'TRANSACTION_NOT_FOUND' },
  { method: 'GET', path: `/agents/me/actions/${none('AgentAction')}`, auth: 'agent', ...ref('AGENT_ACTION_NOT_FOUND') },
  {
    method: 'GET',
    path: `/agents/me/external-accounts/${none('ExternalAccount')}`,
    auth: 'agent',
    ...ref('EXTERNAL_ACCOUNT_NOT_FOUND'),
  },
  {
    method: 'DELETE',
    path: `/agents/me/external-accounts/${none('ExternalAccount')}`,
    auth: 'agent',
    ...ref('EXTERNAL_ACCOUNT_NOT_FOUND'),
  },
  // Sandbox
  {
    method: 'POST',
    path: `/sandbox/internal-accounts/${none('InternalAccount')}/fund`,
    body: { amount: 1 },
    ...ref('INTERNAL_ACCOUNT_NOT_FOUND'),
  },
  { method: 'GET', path: `/sandbox/faults/${none('SandboxFault')}`, ...ref('SANDBOX_FAULT_NOT_FOUND') },
  { method: 'DELETE', path: `/sandbox/faults/${none('SandboxFault')}`, ...ref('SANDBOX_FAULT_NOT_FOUND') },
  { method: 'GET', path: `/sandbox/snapshots/${none('SandboxSnapshot')}`, ...ref('SANDBOX_SNAPSHOT_NOT_FOUND') },
  { method: 'POST', path: `/sandbox/snapshots/${none('SandboxSnapshot')}/restore`, ...ref('SANDBOX_SNAPSHOT_NOT_FOUND') },
  { method: 'DELETE', path: `/sandbox/snapshots/${none('SandboxSnapshot')}`, ...ref('SANDBOX_SNAPSHOT_NOT_FOUND') },
  // The operator's
  {
    method: 'POST',
    path: `/operator/platforms/${none('Platform')}/move`,
    auth: 'operator',
    body: { home: 'DB_2' },
    ...ref('PLATFORM_NOT_FOUND'),
  },
  // The hosted KYC page's calls: the secret is the credential
  { method: 'POST', path: '/sandbox/kyc-links/open', auth: 'none', body: { secret: 'no-such-secret' }, ...ref('KYC_LINK_NOT_FOUND') },
  {
    method: 'POST',
    path: '/sandbox/kyc-links/complete',
    auth: 'none',
    body: { secret: 'no-such-secret', outcome: 'APPROVED' },
    ...ref('KYC_LINK_NOT_FOUND'),
  },
  { method: 'POST', path: '/sandbox/send', body: { quoteId: none('Quote'), currencyCode: 'USD' }, code: 'QUOTE_NOT_FOUND' },
  {
    method: 'POST',
    path: '/sandbox/uma/receive',
    body: {
      senderUmaAddress: '$a@b.test',
      receiverUmaAddress: '$nobody@sandbox.test',
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1,
    },
    code: 'UMA_NOT_FOUND',
  },
  {
    method: 'POST',
    path: '/sandbox/webhooks/send',
    body: { type: 'CUSTOMER.KYC_APPROVED', resourceId: none('Customer') },
    code: 'REFERENCE_NOT_FOUND',
  },
];

/** The route that serves `method path` (ROUTES is in matching order: a literal path before a parameter beside it). */
function routeOf(method: string, path: string) {
  return ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`).test(path.split('?')[0]!));
}

describe('404 of every resource', () => {
  it('answers a record no platform has with a code of the reference 404 enum and the finer case, as each operation declares', async () => {
    const agent = await newAgent();
    const p = agent.p;
    const problems: string[] = [];
    for (const c of CASES) {
      const path = c.path.replace('{agentId}', agent.agentId).replace('{platformId}', p.id);
      const route = routeOf(c.method, path);
      expect(route, `${c.method} ${path}: a route`).toBeDefined();
      const auth = { none: undefined, agent: agent.bearer, operator: OPERATOR, platform: p.auth }[c.auth ?? 'platform'];
      const opts: CallOptions = { auth, body: c.body };
      if (route!.idempotent) opts.headers = { 'Idempotency-Key': crypto.randomUUID() };
      if (c.form) {
        const form = multipart(c.form);
        Object.assign(opts, { raw: form.body, headers: { ...opts.headers, 'Content-Type': form.contentType } });
      }
      const res = await api(c.method, path, opts);
      const where = `${c.method} ${path}`;
      if (res.status !== 404 || res.body.code !== c.code || res.body.details?.reason !== c.reason) {
        problems.push(`${where}: ${res.status} ${JSON.stringify(res.body)}`);
        continue;
      }
      expectError(res, 404, c.code, c.reason);
      expect(reference['404'], where).toContain(res.body.code);
      if (c.code === 'REFERENCE_NOT_FOUND' && c.path !== '/sandbox/webhooks/send') expect(c.reason, where).toBeDefined();
      const drift = undeclared(route!.operationId, 404, res.body);
      if (drift) problems.push(drift);
    }
    expect(problems).toEqual([]);
  });

  it('covers every operation whose path names a record', () => {
    const covered = new Set(CASES.map((c) => routeOf(c.method, c.path)?.operationId));
    const missing = ROUTES.filter((r) => r.path.includes('/:') && r.responses[404] && !covered.has(r.operationId)).map(
      (r) => `${r.method} ${r.path}`,
    );
    expect(missing).toEqual([]);
  });

  it('answers a path no operation serves with REFERENCE_NOT_FOUND, ROUTE_NOT_FOUND', async () => {
    const p = await newPlatform();
    expectError(await api('GET', '/no-such-resource', { auth: p.auth }), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
    expectError(
      await api('GET', `/customers/${none('Customer')}/no-such-thing`, { auth: p.auth }),
      404,
      'REFERENCE_NOT_FOUND',
      'ROUTE_NOT_FOUND',
    );
  });
});
