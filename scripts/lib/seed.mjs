// Seeds one platform with `n` rows in each of its lists, fast: a few INSERT ... SELECT statements over a
// recursive counter, no request per row. Rows are what the service itself writes (the shapes of
// src/db/*.ts and of the row -> view functions), so every list, filter and read of the API serves them.
// Inserting through SQL fires the tables' triggers, so maintained counts (list_counts) and search indexes
// stay right. Used by test/perf/route-budgets.test.ts (rows-read budgets) and the scale benchmark.

const DAY = 86_400_000;
/** How many customers the per-customer rows (transactions, quotes, accounts, agents) are spread over. */
export const SEED_CUSTOMERS = 50;

/** Lists (id namespaces) of a seed; each has its own bits in the ids so ids never collide between lists. */
const LISTS = {
  customer: ['Customer', 1],
  internalAccount: ['InternalAccount', 2],
  beneficialOwner: ['BeneficialOwner', 3],
  verification: ['Verification', 4],
  document: ['Document', 5],
  externalAccount: ['ExternalAccount', 6],
  transaction: ['Transaction', 7],
  quoteTransaction: ['Transaction', 8],
  quote: ['Quote', 9],
  event: ['Webhook', 10],
  delivery: ['WebhookDelivery', 11],
  agent: ['Agent', 12],
  action: ['AgentAction', 13],
  token: ['Token', 14],
  email: ['SandboxEmail', 15],
  kycLink: ['KycLink', 16],
};

const q = (s) => `'${String(s).replaceAll("'", "''")}'`;

/**
 * The statements that seed one platform (run them in order, e.g. as one D1 batch).
 * - `platformId`: the platform; with `createPlatform` its row is inserted too (else it must exist).
 * - `umaDomain`: the platform's UMA domain (customers' addresses are `$seed-<i>@<umaDomain>`).
 * - `n`: rows per list (customers, transactions, quotes, webhook events and deliveries, external accounts,
 *   agents and their actions, tokens, documents, verifications, beneficial owners, sandbox e-mails, invitations,
 *   hosted KYC links).
 * - `now`: epoch ms; rows are dated over the 30 days before it, so anything created later sorts after them.
 * - `tag`: 0 to 2^40, distinguishing this seed's ids and names from another's (random by default).
 * Returns the statements and `sample`: ids and values of seeded rows, for requests that need one.
 */
export function seedPlatform({ platformId, umaDomain, n, now = Date.now(), tag, createPlatform = false }) {
  if (!Number.isInteger(n) || n < SEED_CUSTOMERS) throw new Error(`n must be an integer >= ${SEED_CUSTOMERS}`);
  tag ??= Math.floor(Math.random() * 2 ** 40);
  const t0 = now - 30 * DAY;
  const step = Math.max(1, Math.floor((30 * DAY) / n));
  const tagA = tag % 256;
  const tagHex = tag.toString(16).padStart(10, '0');
  // A UUIDv7 whose time is the row's created_at (t0 + i * step), so ids sort by creation like the service's.
  const idSql = (list, i) => {
    const [prefix, no] = LISTS[list];
    const ts = `(${t0} + (${i}) * ${step})`;
    return `('${prefix}:' || printf('%08x-%04x-7%01x%02x-%04x-%012x', ${ts} / 65536, ${ts} % 65536, ${no}, ${tagA}, 32768 + ((${i}) % 16384), ${tag}))`;
  };
  const idOf = (list, i) => {
    const [prefix, no] = LISTS[list];
    const ts = t0 + i * step;
    const h = (v, w) => v.toString(16).padStart(w, '0');
    return `${prefix}:${h(Math.floor(ts / 65536), 8)}-${h(ts % 65536, 4)}-7${h(no, 1)}${h(tagA, 2)}-${h(32768 + (i % 16384), 4)}-${h(tag, 12)}`;
  };
  const at = (i) => `(${t0} + (${i}) * ${step})`;
  const seq = (count) => `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < ${count - 1})`;
  const P = q(platformId);
  // Per-customer rows go to the first SEED_CUSTOMERS customers (never deleted: see below); every tenth to the platform itself.
  const cust = (i) => `(${i}) % ${SEED_CUSTOMERS}`;
  const own = (i) => `(${i}) % 10 = 9`;
  const customerIdOrNull = (i) => `CASE WHEN ${own(i)} THEN NULL ELSE ${idSql('customer', cust(i))} END`;
  const platformCustomerId = (i) => `CASE WHEN ${own(i)} THEN ${P} ELSE 'seed-${tagHex}-' || ${cust(i)} END`;
  const usdAccount = (c) => idSql('internalAccount', `2 * (${c})`);
  const eurAccount = (c) => idSql('internalAccount', `2 * (${c}) + 1`);
  const bankAccount = (c) => idSql('externalAccount', `2 * (${c})`);
  const address = '{"line1":"123 Main Street","city":"San Francisco","state":"CA","postalCode":"94105","country":"US"}';
  const rateDetails =
    '{"counterpartyMultiplier":0.000092769119,"counterpartyFixedFee":5,"serviceApiMultiplier":9965.6148,"serviceApiFixedFee":25,"serviceApiVariableFeeRate":0.003,"serviceApiVariableFeeAmount":3}';
  const statements = [];

  if (createPlatform) {
    const currencies = ['USD', 'EUR', 'MXN', 'BRL', 'INR'].map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 100_000_000,
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
      requiredCounterpartyFields: [],
    }));
    statements.push(
      `INSERT INTO platforms (id, config_id, name, uma_domain, proxy_uma_subdomain, webhook_endpoint, supported_currencies, embedded_wallet_config, is_regulated, clock_offset_ms, created_at, updated_at)
       VALUES (${P}, ${q(`PlatformConfig:${platformId.split(':')[1]}`)}, 'Seeded platform', ${q(umaDomain)}, NULL, NULL, ${q(JSON.stringify(currencies))},
       '{"otpLength":6,"alphanumeric":false,"expirationSeconds":300,"appName":"Seeded Wallet"}', 0, 0, ${t0}, ${t0})`,
    );
  }

  // Customers: every fifth a business; some deleted (never one of the first SEED_CUSTOMERS, which hold the rest).
  statements.push(`${seq(n)}
    INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, email, uma_address, region, currencies, verification_status, info, is_deleted, created_at, updated_at)
    SELECT ${idSql('customer', 'i')}, ${P}, 'seed-${tagHex}-' || i,
      CASE WHEN i % 5 = 4 THEN 'BUSINESS' ELSE 'INDIVIDUAL' END,
      CASE WHEN i % 2 = 0 THEN 'seed' || i || '@example.com' END,
      '$seed-${tagHex}-' || i || '@' || ${q(umaDomain)}, 'US', '["USD","EUR"]',
      CASE i % 3 WHEN 0 THEN 'APPROVED' WHEN 1 THEN 'PENDING' ELSE 'UNVERIFIED' END,
      CASE WHEN i % 5 = 4
        THEN '{"address":${address},"businessInfo":{"legalName":"Seed Business ' || i || '","registrationNumber":"' || (5000000 + i) || '","incorporatedOn":"2018-03-14","taxId":"47-1234567"}}'
        ELSE '{"fullName":"Seed Person ' || i || '","birthDate":"1990-01-15","nationality":"US","address":${address}}' END,
      CASE WHEN i >= ${SEED_CUSTOMERS} AND i % 20 = 19 THEN 1 ELSE 0 END, ${at('i')}, ${at('i')}
    FROM seq`);
  // A USD and an EUR account for each customer holding per-customer rows.
  statements.push(`${seq(2 * SEED_CUSTOMERS)}
    INSERT INTO internal_accounts (id, platform_id, customer_id, type, status, currency, balance, private_enabled, created_at, updated_at)
    SELECT ${idSql('internalAccount', 'i')}, ${P}, ${idSql('customer', 'i / 2')}, 'INTERNAL_FIAT', 'ACTIVE',
      CASE WHEN i % 2 = 0 THEN 'USD' ELSE 'EUR' END, 0, 0, ${at('i')}, ${at('i')}
    FROM seq`);
  // Beneficial owners: about five per business customer.
  const businesses = Math.max(1, Math.floor(n / 5));
  statements.push(`${seq(n)}
    INSERT INTO beneficial_owners (id, platform_id, customer_id, roles, ownership_percentage, personal_info, kyc_status, created_at, updated_at)
    SELECT ${idSql('beneficialOwner', 'i')}, ${P}, ${idSql('customer', `5 * (i % ${businesses}) + 4`)}, '["UBO"]', 10,
      '{"firstName":"Owner","lastName":"' || i || '","birthDate":"1980-02-01","nationality":"US","address":${address},"idType":"SSN","identifier":"123-45-6789"}',
      'APPROVED', ${at('i')}, ${at('i')}
    FROM seq`);
  statements.push(`${seq(n)}
    INSERT INTO verifications (id, platform_id, customer_id, verification_status, errors, created_at, updated_at)
    SELECT ${idSql('verification', 'i')}, ${P}, ${idSql('customer', 'i')},
      CASE i % 3 WHEN 0 THEN 'APPROVED' WHEN 1 THEN 'IN_PROGRESS' ELSE 'REJECTED' END, '[]', ${at('i')}, ${at('i')}
    FROM seq`);
  statements.push(`${seq(n)}
    INSERT INTO documents (id, platform_id, document_holder, document_type, side, country, document_number, issuing_authority, file_name, content_type, size, object_key, created_at, updated_at)
    SELECT ${idSql('document', 'i')}, ${P}, ${idSql('customer', 'i')}, 'PASSPORT', NULL, 'US', NULL, NULL, 'passport.pdf', 'application/pdf', 64,
      'seed/' || ${idSql('document', 'i')}, ${at('i')}, ${at('i')}
    FROM seq`);
  // External accounts: even ones of the customers (2c: customer c's bank), odd ones the platform's own.
  statements.push(`${seq(n)}
    INSERT INTO external_accounts (id, platform_id, customer_id, holder_id, status, currency, account_type, identifier, account_info, platform_account_id, default_uma_deposit_account, beneficiary_verification_status, beneficiary_verified_data, deleted_at, created_at, updated_at)
    SELECT ${idSql('externalAccount', 'i')}, ${P},
      CASE WHEN i % 2 = 0 THEN ${idSql('customer', `(i / 2) % ${SEED_CUSTOMERS}`)} END,
      CASE WHEN i % 2 = 0 THEN ${idSql('customer', `(i / 2) % ${SEED_CUSTOMERS}`)} ELSE ${P} END,
      'ACTIVE', 'USD', 'USD_ACCOUNT', printf('9%011d', i),
      '{"accountType":"USD_ACCOUNT","accountNumber":"' || printf('9%011d', i) || '","routingNumber":"021000021","bankName":"Seed Bank","beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"John Doe","birthDate":"1990-01-15","nationality":"US","address":${address}}}',
      NULL, 0, 'MATCHED', '{"fullName":"John Doe"}', NULL, ${at('i')}, ${at('i')}
    FROM seq`);
  // Transactions (besides the quotes' own below): transfers out and in, and UMA payments received, in several statuses.
  const status = `CASE (i / 3) % 6 WHEN 0 THEN 'COMPLETED' WHEN 1 THEN 'PROCESSING' WHEN 2 THEN 'FAILED' WHEN 3 THEN 'COMPLETED' WHEN 4 THEN 'PENDING' ELSE 'REJECTED' END`;
  const c = cust('i');
  statements.push(`${seq(n)}
    INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version, source, destination,
      sent_amount, sent_currency, received_amount, received_currency, exchange_rate, fees, rate_details, quote_id, payment_instructions, counterparty_information, description,
      reference, sender_uma_address, receiver_uma_address, failure_reason, refund, settled_at, agent_id, approval, scenario, created_at, updated_at)
    SELECT id, ${P}, ${customerIdOrNull('i')}, ${platformCustomerId('i')},
      CASE WHEN i % 3 = 0 THEN 'OUTGOING' ELSE 'INCOMING' END,
      CASE i % 3 WHEN 0 THEN 'TRANSFER_OUT' WHEN 1 THEN 'TRANSFER_IN' ELSE 'UMA_RECEIVE' END,
      st, 1,
      CASE i % 3 WHEN 0 THEN '{"sourceType":"ACCOUNT","accountId":"' || usd || '","currency":"USD"}'
        WHEN 1 THEN '{"sourceType":"ACCOUNT","accountId":"' || bank || '","currency":"USD"}'
        ELSE '{"sourceType":"UMA_ADDRESS","umaAddress":"$sender' || (i % 7) || '@sender.test","currency":"USD"}' END,
      CASE i % 3 WHEN 0 THEN '{"destinationType":"ACCOUNT","accountId":"' || bank || '","currency":"USD"}'
        ELSE '{"destinationType":"ACCOUNT","accountId":"' || usd || '","currency":"USD"}' END,
      CASE WHEN i % 3 = 0 THEN 1000 + i % 1000 END, CASE WHEN i % 3 = 0 THEN 'USD' END, 1000 + i % 1000, 'USD', NULL, 0, NULL, NULL, NULL,
      '{"FULL_NAME":"John Doe"}', NULL, 'SEED-${tagHex}-' || i,
      CASE WHEN i % 3 = 2 THEN '$sender' || (i % 7) || '@sender.test' END,
      CASE WHEN i % 3 = 2 THEN '$seed-${tagHex}-' || ${c} || '@' || ${q(umaDomain)} END,
      CASE WHEN st = 'FAILED' THEN 'OFFRAMP_FAILED' END, NULL,
      CASE WHEN st = 'COMPLETED' THEN ${at('i')} + 1000 END, NULL, NULL,
      CASE i % 3 WHEN 0 THEN 'TRANSFER_OUT_SUCCESS' WHEN 1 THEN 'TRANSFER_IN_SUCCESS' ELSE 'UMA_RECEIVE' END,
      ${at('i')}, ${at('i')} + 1000
    FROM (SELECT i, ${idSql('transaction', 'i')} AS id, ${status} AS st, ${usdAccount(c)} AS usd, ${bankAccount(c)} AS bank FROM seq)`);
  // Quotes, each with its transaction (a quote's status is its transaction's): USD -> EUR between a customer's accounts.
  const quoteStatus = `CASE i % 5 WHEN 0 THEN 'PENDING' WHEN 1 THEN 'FAILED' ELSE 'COMPLETED' END`;
  statements.push(`${seq(n)}
    INSERT INTO quotes (id, platform_id, transaction_id, source_type, source, destination, locked_side, sending_currency, receiving_currency,
      total_sending_amount, total_receiving_amount, exchange_rate, fees_included, rate_details, payment_instructions, counterparty_information, expires_at, created_at)
    SELECT ${idSql('quote', 'i')}, ${P}, ${idSql('quoteTransaction', 'i')}, 'ACCOUNT',
      CASE WHEN ${customerIdOrNull('i')} IS NULL THEN json_object('sourceType', 'ACCOUNT', 'accountId', ${usdAccount(c)})
        ELSE json_object('sourceType', 'ACCOUNT', 'accountId', ${usdAccount(c)}, 'customerId', ${customerIdOrNull('i')}) END,
      '{"destinationType":"ACCOUNT","accountId":"' || ${eurAccount(c)} || '"}',
      'SENDING', 'USD', 'EUR', 1000, 893, 0.92450131, 34, '${rateDetails}', NULL, '{"FULL_NAME":"Jane Smith"}', ${at('i')} + 300000, ${at('i')}
    FROM seq`);
  statements.push(`${seq(n)}
    INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version, source, destination,
      sent_amount, sent_currency, received_amount, received_currency, exchange_rate, fees, rate_details, quote_id, payment_instructions, counterparty_information, description,
      reference, sender_uma_address, receiver_uma_address, failure_reason, refund, settled_at, agent_id, approval, scenario, created_at, updated_at)
    SELECT ${idSql('quoteTransaction', 'i')}, ${P}, ${customerIdOrNull('i')}, ${platformCustomerId('i')}, 'OUTGOING', 'QUOTE', st, 1,
      '{"sourceType":"ACCOUNT","accountId":"' || ${usdAccount(c)} || '","currency":"USD"}', '{"destinationType":"ACCOUNT","accountId":"' || ${eurAccount(c)} || '","currency":"EUR"}',
      1000, 'USD', 893, 'EUR', 0.92450131, 34, '${rateDetails}', ${idSql('quote', 'i')}, NULL, '{"FULL_NAME":"Jane Smith"}', NULL,
      'QUOTE-${tagHex}-' || i, NULL, NULL, CASE WHEN st = 'FAILED' THEN 'QUOTE_EXECUTION_FAILED' END, NULL,
      CASE WHEN st = 'COMPLETED' THEN ${at('i')} + 1000 END, NULL, NULL, 'INTERNAL_CONVERSION', ${at('i')}, ${at('i')} + 1000
    FROM (SELECT i, ${quoteStatus} AS st FROM seq)`);
  // Webhook events in their deliveries: mostly delivered, some failed or skipped, a few pending far in the future.
  const eventType = `CASE i % 4 WHEN 0 THEN 'OUTGOING_PAYMENT.COMPLETED' WHEN 1 THEN 'INCOMING_PAYMENT.COMPLETED' WHEN 2 THEN 'OUTGOING_PAYMENT.PENDING' ELSE 'INCOMING_PAYMENT.PENDING' END`;
  statements.push(`${seq(n)}
    INSERT INTO webhook_deliveries (id, platform_id, event_id, event_type, event_timestamp, event_data, resource_id, status, attempts, next_attempt_at,
      last_attempt_at, last_response_status, last_error, url, delivered_at, created_at, updated_at, payload, signature, last_response_body)
    SELECT ${idSql('delivery', 'i')}, ${P}, ${idSql('event', 'i')}, ${eventType}, ${at('i')}, '{"id":"' || ${idSql('transaction', 'i')} || '"}',
      ${idSql('transaction', 'i')}, st,
      CASE st WHEN 'SKIPPED' THEN 0 WHEN 'PENDING' THEN 1 WHEN 'FAILED' THEN 8 ELSE 1 END,
      CASE st WHEN 'PENDING' THEN ${now + 30 * DAY} ELSE ${at('i')} + 500 END,
      CASE WHEN st <> 'SKIPPED' THEN ${at('i')} + 500 END,
      CASE st WHEN 'DELIVERED' THEN 200 WHEN 'SKIPPED' THEN NULL ELSE 500 END, NULL,
      CASE WHEN st <> 'SKIPPED' THEN 'https://hooks.seed.test/' END,
      CASE WHEN st = 'DELIVERED' THEN ${at('i')} + 500 END, ${at('i')}, ${at('i')} + 500,
      CASE WHEN st <> 'SKIPPED' THEN '{"id":"' || ${idSql('event', 'i')} || '","type":"' || ${eventType} || '","timestamp":"' || strftime('%Y-%m-%dT%H:%M:%fZ', ${at('i')} / 1000.0, 'unixepoch') || '","data":{"id":"' || ${idSql('transaction', 'i')} || '"}}' END,
      CASE WHEN st <> 'SKIPPED' THEN 'seed' END, CASE WHEN st <> 'SKIPPED' THEN 'ok' END
    FROM (SELECT i, CASE i % 10 WHEN 7 THEN 'FAILED' WHEN 8 THEN 'SKIPPED' WHEN 9 THEN 'PENDING' ELSE 'DELIVERED' END AS st FROM seq)`);
  // Agents of the first customers, and their actions (some awaiting the platform's approval), each with a transaction.
  statements.push(`${seq(n)}
    INSERT INTO agents (id, platform_id, customer_id, name, is_paused, is_connected, policy, deleted_at, created_at, updated_at)
    SELECT ${idSql('agent', 'i')}, ${P}, ${idSql('customer', c)}, 'Seed agent ' || i, i % 7 = 0, i % 2,
      '{"permissions":["VIEW_TRANSACTIONS","CREATE_TRANSFERS","CREATE_QUOTES","EXECUTE_QUOTES","MANAGE_EXTERNAL_ACCOUNTS"],"defaultExecutionMode":"AUTO","spendingLimits":{"currency":"USD","perTransactionLimit":100000,"dailyLimit":500000,"dailyTransactionLimit":20,"monthlyLimit":2000000}}',
      NULL, ${at('i')}, ${at('i')}
    FROM seq`);
  statements.push(`${seq(n)}
    INSERT INTO agent_actions (id, platform_id, agent_id, customer_id, type, status, quote_id, transfer_details, request, transaction_id, rejection_reason, failure_reason,
      policy_amount, counted, day, month, created_at, updated_at)
    SELECT ${idSql('action', 'i')}, ${P}, ${idSql('agent', c)}, ${idSql('customer', c)}, 'TRANSFER_OUT',
      CASE i % 4 WHEN 0 THEN 'PENDING_APPROVAL' WHEN 1 THEN 'REJECTED' WHEN 2 THEN 'FAILED' ELSE 'APPROVED' END, NULL,
      '{"amount":1000,"currency":"USD","sourceAccountId":"' || ${usdAccount(c)} || '","destinationAccountId":"' || ${bankAccount(c)} || '"}',
      '{"type":"TRANSFER_OUT","sourceAccountId":"' || ${usdAccount(c)} || '","destinationAccountId":"' || ${bankAccount(c)} || '","amount":1000}',
      ${idSql('transaction', 'i')}, CASE WHEN i % 4 = 1 THEN 'Not now' END, CASE WHEN i % 4 = 2 THEN 'INSUFFICIENT_BALANCE' END,
      1000, 0, strftime('%Y-%m-%d', ${at('i')} / 1000, 'unixepoch'), strftime('%Y-%m', ${at('i')} / 1000, 'unixepoch'), ${at('i')}, ${at('i')}
    FROM seq`);
  statements.push(`${seq(n)}
    INSERT INTO api_tokens (id, platform_id, name, permissions, client_id, secret_hash, created_at, updated_at)
    SELECT ${idSql('token', 'i')}, ${P}, 'seed token ' || i, '["VIEW"]', 'seed${tagHex}' || printf('%08x', i), 'seed-not-a-hash', ${at('i')}, ${at('i')}
    FROM seq`);
  statements.push(`${seq(n)}
    INSERT INTO sandbox_emails (id, platform_id, to_address, from_address, subject, text, created_at)
    SELECT ${idSql('email', 'i')}, ${P}, 'seed' || (i % 100) || '@example.com', 'no-reply@service.test', 'Your code', 'Your code is 000000', ${at('i')}
    FROM seq`);
  // Invitations of the first customers: codes from the tag and the row (16 hex digits, unique across seeds); some claimed, some cancelled.
  const invitationCode = (i) => `printf('%010x%06x', ${tag}, ${i})`;
  statements.push(`${seq(n)}
    INSERT INTO invitations (code, platform_id, inviter_customer_id, inviter_uma, first_name, amount_to_send, amount_currency, expires_at, status,
      invitee_uma, claimed_by_platform_id, claimed_at, created_at, updated_at)
    SELECT ${invitationCode('i')}, ${P}, ${idSql('customer', c)}, '$seed-${tagHex}-' || ${c} || '@' || ${q(umaDomain)}, 'Seed', 1000, 'USD',
      CASE WHEN i % 2 = 0 THEN ${now + 30 * DAY} END, CASE i % 3 WHEN 0 THEN 'PENDING' WHEN 1 THEN 'CLAIMED' ELSE 'CANCELLED' END,
      CASE WHEN i % 3 = 1 THEN '$invitee' || i || '@invitee.test' END, CASE WHEN i % 3 = 1 THEN 'Platform:seed-invitee' END,
      CASE WHEN i % 3 = 1 THEN ${at('i')} + 1000 END, ${at('i')}, ${at('i')}
    FROM seq`);
  // Hosted KYC links of the first customers, a third of them completed.
  statements.push(`${seq(n)}
    INSERT INTO kyc_links (id, platform_id, customer_id, secret_hash, redirect_uri, idempotency_key, request_fingerprint, expires_at, completed_at, outcome, created_at)
    SELECT ${idSql('kycLink', 'i')}, ${P}, ${idSql('customer', c)}, 'seed-${tagHex}-' || i, 'https://app.seed.test/kyc-done', NULL, NULL, ${at('i')} + ${DAY},
      CASE WHEN i % 3 = 0 THEN ${at('i')} + 1000 END, CASE WHEN i % 3 = 0 THEN 'APPROVED' END, ${at('i')}
    FROM seq`);

  return {
    statements,
    sample: {
      customerId: idOf('customer', 0),
      businessCustomerId: idOf('customer', 4),
      platformCustomerId: `seed-${tagHex}-0`,
      usdAccountId: idOf('internalAccount', 0),
      bankAccountId: idOf('externalAccount', 0),
      transactionId: idOf('transaction', 0),
      quoteId: idOf('quote', 0),
      agentId: idOf('agent', 0),
      deliveryId: idOf('delivery', 0),
      eventId: idOf('event', 0),
      documentId: idOf('document', 0),
      verificationId: idOf('verification', 0),
      beneficialOwnerId: idOf('beneficialOwner', 0),
      tokenId: idOf('token', 0),
      umaAddress: `$seed-${tagHex}-0@${umaDomain}`,
      invitationCode: `${tagHex}000000`,
    },
  };
}
