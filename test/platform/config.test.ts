import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, OPERATOR } from '../support/api';

const usd = {
  currencyCode: 'USD',
  minAmount: 100,
  maxAmount: 500000,
  enabledTransactionTypes: ['OUTGOING'],
  requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
};

describe('GET /config', () => {
  it('returns the platform configuration with read-only and derived fields', async () => {
    const p = await newPlatform({ proxyUmaSubdomain: 'acme', webhookEndpoint: 'https://hooks.example.com/uma' });
    const res = await api('GET', '/config', { auth: p.auth });
    expect(res.status).toBe(200);
    const c = res.body;
    expect(c.id).toMatch(/^PlatformConfig:[0-9a-f-]{36}$/);
    expect(c).toMatchObject({
      umaDomain: p.umaDomain,
      proxyUmaSubdomain: 'acme',
      webhookEndpoint: 'https://hooks.example.com/uma',
      isRegulatedFinancialInstitution: false,
      embeddedWalletConfig: { appName: 'Test Wallet', otpLength: 6, alphanumeric: false, expirationSeconds: 300 },
    });
    expect(c.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(c.updatedAt).toBe(c.createdAt);
    const mxn = c.supportedCurrencies.find((x: any) => x.currencyCode === 'MXN');
    expect(mxn).toEqual({
      currencyCode: 'MXN',
      minAmount: 1,
      maxAmount: 100000000,
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
      requiredCounterpartyFields: [],
      providerRequiredCustomerFields: ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY', 'POSTAL_ADDRESS'],
      providerRequiredCounterpartyCustomerFields: ['FULL_NAME', 'TAX_ID'],
    });
  });

  it('omits embeddedWalletConfig when the platform has none', async () => {
    const p = await newPlatform({ embeddedWalletConfig: undefined });
    const res = await api('GET', '/config', { auth: p.auth });
    expect(res.body).not.toHaveProperty('embeddedWalletConfig');
    expect(res.body).not.toHaveProperty('webhookEndpoint');
  });
});

describe('PATCH /config merge rules', () => {
  it('changes only the fields sent', async () => {
    const p = await newPlatform();
    const before = (await api('GET', '/config', { auth: p.auth })).body;

    const r1 = await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: 'new.example.com' } });
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ ...before, umaDomain: 'new.example.com', updatedAt: r1.body.updatedAt });

    const r2 = await api('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: 'https://example.com/hook' } });
    expect(r2.body).toEqual({ ...r1.body, webhookEndpoint: 'https://example.com/hook', updatedAt: r2.body.updatedAt });

    const r3 = await api('PATCH', '/config', { auth: p.auth, body: { supportedCurrencies: [usd] } });
    expect(r3.body.supportedCurrencies).toEqual([
      {
        ...usd,
        providerRequiredCustomerFields: ['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY', 'POSTAL_ADDRESS'],
        providerRequiredCounterpartyCustomerFields: ['FULL_NAME'],
      },
    ]);
    expect(r3.body.embeddedWalletConfig).toEqual(before.embeddedWalletConfig);
    expect(r3.body.umaDomain).toBe('new.example.com');

    const empty = await api('PATCH', '/config', { auth: p.auth, body: {} });
    expect({ ...empty.body, updatedAt: null }).toEqual({ ...r3.body, updatedAt: null });

    // GET reads back what PATCH answered.
    expect((await api('GET', '/config', { auth: p.auth })).body).toEqual(empty.body);
  });

  it('merges embeddedWalletConfig field by field and leaves it unchanged when omitted', async () => {
    const p = await newPlatform({ embeddedWalletConfig: { appName: 'Acme', sendFromEmailAddress: 'noreply@acme.com' } });
    const r1 = await api('PATCH', '/config', {
      auth: p.auth,
      body: { embeddedWalletConfig: { logoUrl: 'https://acme.com/logo.png', otpLength: 8 } },
    });
    expect(r1.body.embeddedWalletConfig).toEqual({
      appName: 'Acme',
      sendFromEmailAddress: 'noreply@acme.com',
      logoUrl: 'https://acme.com/logo.png',
      otpLength: 8,
      alphanumeric: false,
      expirationSeconds: 300,
    });
    const r2 = await api('PATCH', '/config', { auth: p.auth, body: { embeddedWalletConfig: { appName: 'Acme Pay' } } });
    expect(r2.body.embeddedWalletConfig).toEqual({ ...r1.body.embeddedWalletConfig, appName: 'Acme Pay' });
    const r3 = await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: 'acme.com' } });
    expect(r3.body.embeddedWalletConfig).toEqual(r2.body.embeddedWalletConfig);
    const r4 = await api('PATCH', '/config', { auth: p.auth, body: { embeddedWalletConfig: {} } });
    expect(r4.body.embeddedWalletConfig).toEqual(r2.body.embeddedWalletConfig);
  });

  it('creates embeddedWalletConfig when absent, with the OTP defaults', async () => {
    const p = await newPlatform({ embeddedWalletConfig: undefined });
    const res = await api('PATCH', '/config', { auth: p.auth, body: { embeddedWalletConfig: { appName: 'New' } } });
    expect(res.body.embeddedWalletConfig).toEqual({ appName: 'New', otpLength: 6, alphanumeric: false, expirationSeconds: 300 });
  });

  it('ignores the read-only fields sent back; refuses a change of an operator-set field by name, changing nothing', async () => {
    const p = await newPlatform();
    const before = (await api('GET', '/config', { auth: p.auth })).body;
    // What a GET answers and no request changes: accepted (a client sends back what it read), ignored.
    const ignored = await api('PATCH', '/config', {
      auth: p.auth,
      body: { id: 'x', createdAt: before.createdAt, updatedAt: 'x', webhookPublicKey: 'x', sandboxUmaDomain: 'x' },
    });
    expect(ignored.status, JSON.stringify(ignored.body)).toBe(200);
    expect({ ...ignored.body, updatedAt: before.updatedAt }).toEqual(before);
    // Set by the operator: the current value is accepted back, another one is refused.
    expect((await api('PATCH', '/config', { auth: p.auth, body: { isRegulatedFinancialInstitution: false } })).status).toBe(200);
    const current = (await api('GET', '/config', { auth: p.auth })).body;
    for (const [field, value] of [
      ['isRegulatedFinancialInstitution', true],
      ['proxyUmaSubdomain', 'x'],
    ] as const) {
      const res = await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: 'changed.example.com', [field]: value } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res)).toEqual([field]);
      expect(res.body.details.fields[0].message).toContain('set by the operator');
    }
    expect((await api('GET', '/config', { auth: p.auth })).body).toEqual(current);
  });

  it('validates every field', async () => {
    const p = await newPlatform();
    const bad: [unknown, string[]][] = [
      [{ umaDomain: 'not a domain' }, ['umaDomain']],
      [{ umaDomain: 42 }, ['umaDomain']],
      [{ webhookEndpoint: 'ftp://example.com' }, ['webhookEndpoint']],
      [{ webhookEndpoint: 'not a url' }, ['webhookEndpoint']],
      [{ supportedCurrencies: [{ ...usd, currencyCode: 'usd' }] }, ['supportedCurrencies.0.currencyCode']],
      [{ supportedCurrencies: [{ ...usd, currencyCode: 'XYZ' }] }, ['supportedCurrencies.0.currencyCode']],
      [{ supportedCurrencies: [{ ...usd, minAmount: 10, maxAmount: 5 }] }, ['supportedCurrencies.0.minAmount']],
      [{ supportedCurrencies: [{ ...usd, minAmount: -1 }] }, ['supportedCurrencies.0.minAmount']],
      [{ supportedCurrencies: [{ ...usd, maxAmount: 1.5 }] }, ['supportedCurrencies.0.maxAmount']],
      [{ supportedCurrencies: [{ ...usd, enabledTransactionTypes: ['SIDEWAYS'] }] }, ['supportedCurrencies.0.enabledTransactionTypes.0']],
      [
        { supportedCurrencies: [{ ...usd, requiredCounterpartyFields: [{ name: 'SHOE_SIZE', mandatory: true }] }] },
        ['supportedCurrencies.0.requiredCounterpartyFields.0.name'],
      ],
      [{ supportedCurrencies: [usd, usd] }, ['supportedCurrencies']],
      [
        { supportedCurrencies: [{ currencyCode: 'USD' }] },
        [
          'supportedCurrencies.0.minAmount',
          'supportedCurrencies.0.maxAmount',
          'supportedCurrencies.0.enabledTransactionTypes',
          'supportedCurrencies.0.requiredCounterpartyFields',
        ],
      ],
      [{ embeddedWalletConfig: { sendFromEmailAddress: 'nope' } }, ['embeddedWalletConfig.sendFromEmailAddress']],
      [{ embeddedWalletConfig: { replyToEmailAddress: 'a@' } }, ['embeddedWalletConfig.replyToEmailAddress']],
      [{ embeddedWalletConfig: { logoUrl: 'javascript:alert(1)' } }, ['embeddedWalletConfig.logoUrl']],
      [{ embeddedWalletConfig: { otpLength: 3 } }, ['embeddedWalletConfig.otpLength']],
      [{ embeddedWalletConfig: { expirationSeconds: 0 } }, ['embeddedWalletConfig.expirationSeconds']],
      [{ embeddedWalletConfig: { appName: 'x'.repeat(256) } }, ['embeddedWalletConfig.appName']],
      [{ embeddedWalletConfig: { colour: 'red' } }, ['embeddedWalletConfig.colour']],
      [{ embeddedWalletConfig: 'yes' }, ['embeddedWalletConfig']],
      [{ favouriteColour: 'red' }, ['favouriteColour']],
    ];
    for (const [body, fields] of bad) {
      const res = await api('PATCH', '/config', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).sort(), JSON.stringify(body)).toEqual([...fields].sort());
    }
  });

  it('e-mail branding: names without control characters, each address exactly one plain address (no header injection)', async () => {
    const p = await newPlatform({ embeddedWalletConfig: { appName: 'Acme', sendFromEmailAddress: 'noreply@acme.com' } });
    const before = (await api('GET', '/config', { auth: p.auth })).body;
    const bad: [Record<string, unknown>, string][] = [
      [{ appName: 'Acme\r\nBcc: victim@example.com' }, 'appName'],
      [{ appName: 'Acme\nPay' }, 'appName'],
      [{ appName: 'Acme\u0000' }, 'appName'],
      [{ appName: 'Acme\u2028Pay' }, 'appName'],
      [{ sendFromEmailSenderName: 'Acme\r\nBcc: victim@example.com' }, 'sendFromEmailSenderName'],
      [{ sendFromEmailSenderName: 'Acme\tPay' }, 'sendFromEmailSenderName'],
      [{ sendFromEmailSenderName: 'Acme\u0085Pay' }, 'sendFromEmailSenderName'],
      [{ sendFromEmailAddress: 'noreply@acme.com\r\nBcc: victim@example.com' }, 'sendFromEmailAddress'],
      [{ sendFromEmailAddress: 'noreply@acme.com, victim@example.com' }, 'sendFromEmailAddress'],
      [{ sendFromEmailAddress: 'Acme <noreply@acme.com>' }, 'sendFromEmailAddress'],
      [{ replyToEmailAddress: 'support@acme.com, victim@example.com' }, 'replyToEmailAddress'],
      [{ replyToEmailAddress: 'support@acme.com\nBcc: victim@example.com' }, 'replyToEmailAddress'],
      [{ replyToEmailAddress: 'support@acme.com;victim@example.com' }, 'replyToEmailAddress'],
    ];
    for (const [config, field] of bad) {
      const res = await api('PATCH', '/config', { auth: p.auth, body: { embeddedWalletConfig: config } });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(config)).toEqual([`embeddedWalletConfig.${field}`]);
      const created = await api('POST', '/operator/platforms', {
        auth: OPERATOR,
        body: { name: 'Acme', umaDomain: `${crypto.randomUUID()}.example.com`, embeddedWalletConfig: config },
      });
      expectError(created, 400, 'INVALID_INPUT');
    }
    expect((await api('GET', '/config', { auth: p.auth })).body).toEqual(before);
    // Names may hold any printable text, quotes and brackets included: they are encoded when e-mails are sent.
    const ok = await api('PATCH', '/config', {
      auth: p.auth,
      body: { embeddedWalletConfig: { appName: 'Ünïcode "Pay" <ok>', sendFromEmailSenderName: 'Acme, Inc. "Payments" <x@y.z>' } },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('one platform’s change never touches another platform', async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    const before = (await api('GET', '/config', { auth: b.auth })).body;
    await api('PATCH', '/config', { auth: a.auth, body: { umaDomain: 'a-only.example.com', embeddedWalletConfig: { appName: 'A' } } });
    expect((await api('GET', '/config', { auth: b.auth })).body).toEqual(before);
  });

  it('umaDomain is unique across platforms, case-insensitively: a taken one is 409 and changes nothing', async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    const before = (await api('GET', '/config', { auth: b.auth })).body;
    for (const domain of [a.umaDomain, a.umaDomain.toUpperCase()]) {
      const res = await api('PATCH', '/config', { auth: b.auth, body: { umaDomain: domain, embeddedWalletConfig: { appName: 'Taken' } } });
      expectError(res, 409, 'CONFLICT', 'UMA_DOMAIN_TAKEN');
      expect(res.body.message).toContain(domain);
    }
    expect((await api('GET', '/config', { auth: b.auth })).body).toEqual(before);

    // A platform may set its own domain again, in any case; a domain it gives up is free for others.
    expect((await api('PATCH', '/config', { auth: a.auth, body: { umaDomain: a.umaDomain.toUpperCase() } })).body.umaDomain).toBe(
      a.umaDomain.toUpperCase(),
    );
    expect((await api('PATCH', '/config', { auth: a.auth, body: { umaDomain: `moved.${a.umaDomain}` } })).status).toBe(200);
    expect((await api('PATCH', '/config', { auth: b.auth, body: { umaDomain: a.umaDomain } })).body.umaDomain).toBe(a.umaDomain);

    // The operator cannot create a platform on a taken domain either (b holds a's first one now).
    const total = async () => (await api('GET', '/operator/platforms?limit=1', { auth: OPERATOR })).body.totalCount;
    const count = await total();
    const created = await api('POST', '/operator/platforms', {
      auth: OPERATOR,
      body: { name: 'Squatter', umaDomain: a.umaDomain.toUpperCase() },
    });
    expectError(created, 409, 'CONFLICT', 'UMA_DOMAIN_TAKEN');
    expect(await total()).toBe(count);
  });

  it('of two platforms claiming one domain at once, exactly one gets it', async () => {
    const [a, b] = await Promise.all([newPlatform(), newPlatform()]);
    const domain = `${crypto.randomUUID()}.contested.test`;
    const answers = await Promise.all([a, b].map((p) => api('PATCH', '/config', { auth: p.auth, body: { umaDomain: domain } })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const owners = await Promise.all([a, b].map(async (p) => (await api('GET', '/config', { auth: p.auth })).body.umaDomain));
    expect(owners.filter((d) => d === domain)).toHaveLength(1);
  });
});

describe('clearing the webhook endpoint', () => {
  it('PATCH /config with webhookEndpoint null removes it; omitting it leaves it unchanged', async () => {
    const p = await newPlatform({ webhookEndpoint: 'https://hooks.example.com/a' });
    expect((await api('PATCH', '/config', { auth: p.auth, body: { umaDomain: `kept-${p.umaDomain}` } })).body.webhookEndpoint).toBe(
      'https://hooks.example.com/a',
    );
    const cleared = await api('PATCH', '/config', { auth: p.auth, body: { webhookEndpoint: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('webhookEndpoint');
    expect((await api('GET', '/config', { auth: p.auth })).body).not.toHaveProperty('webhookEndpoint');
  });
});
