// The request and response schemas of the platform's config, its API tokens and the operator's platforms.
import * as z from 'zod';
import { Permission, TransactionType } from '../db/enums';
import { CounterpartyFieldDefinition, CurrencyConfig, HttpUrl, WalletConfig } from '../db/json-shapes';
import { CustomerInfoFieldName } from '../common/currencies';
import { DateTime, DateTimeParam } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';
import { readOnlyField } from '../http/body';

// The stored shapes of the platform's JSON columns live in db/ (the tables type their columns with them).
export { CounterpartyFieldDefinition, HttpUrl };
export type { CurrencyConfig, WalletConfig };

/** A field the operator sets (POST /operator/platforms): its current value is accepted back, another one is refused. */
const operatorSet = <T extends z.ZodType>(schema: T) =>
  schema.optional().meta({ description: 'Set by the operator: the current value is accepted back, another one is refused' });

export const Domain = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'Must be a domain name such as example.com');

/** A supported currency as the platform sets it: the stored shape, and the read-only fields GET /config adds. */
const CurrencyConfigInput = CurrencyConfig.extend({
  // Answered by GET /config and marked readOnly by the reference, whose clients send them back: accepted, ignored.
  providerRequiredCustomerFields: readOnlyField(z.array(CustomerInfoFieldName)),
  providerRequiredCounterpartyCustomerFields: readOnlyField(z.array(CustomerInfoFieldName)),
}).refine((c) => c.minAmount <= c.maxAmount, { message: 'minAmount must not exceed maxAmount', path: ['minAmount'] });

const SupportedCurrenciesInput = z
  .array(CurrencyConfigInput)
  .max(50)
  .refine((list) => new Set(list.map((c) => c.currencyCode)).size === list.length, {
    message: 'Each currencyCode may appear only once',
  });

export const CurrencyConfigOut = z
  .object({
    currencyCode: z.string(),
    minAmount: z.int(),
    maxAmount: z.int(),
    enabledTransactionTypes: z.array(TransactionType),
    requiredCounterpartyFields: z.array(CounterpartyFieldDefinition),
    providerRequiredCustomerFields: z.array(CustomerInfoFieldName),
    providerRequiredCounterpartyCustomerFields: z.array(CustomerInfoFieldName),
  })
  .meta({ id: 'PlatformCurrencyConfig' });

export const WALLET_DEFAULTS = { otpLength: 6, alphanumeric: false, expirationSeconds: 300 } as const;

export const WalletConfigOut = z
  .object({
    appName: z.string().optional(),
    sendFromEmailAddress: z.string().optional(),
    sendFromEmailSenderName: z.string().optional(),
    replyToEmailAddress: z.string().optional(),
    logoUrl: z.string().optional(),
    otpLength: z.int(),
    alphanumeric: z.boolean(),
    expirationSeconds: z.int(),
  })
  .meta({ id: 'EmbeddedWalletConfig' });

export const PlatformConfig = z
  .object({
    id: z.string().meta({ example: 'PlatformConfig:019542f5-b3e7-1d02-0000-000000000003' }),
    umaDomain: z.string(),
    proxyUmaSubdomain: z.string().optional(),
    webhookEndpoint: z.string().optional(),
    supportedCurrencies: z.array(CurrencyConfigOut),
    isRegulatedFinancialInstitution: z.boolean(),
    embeddedWalletConfig: WalletConfigOut.optional(),
    webhookPublicKey: z.string().meta({
      description: 'PEM (SPKI) P-256 public key that verifies the `X-Service-Signature` header of webhooks',
      example: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE...\n-----END PUBLIC KEY-----\n',
    }),
    sandboxUmaDomain: z
      .string()
      .optional()
      .meta({ description: 'Domain of the sandbox UMA counterparty (sandbox mode only)', example: 'sandbox.uma.test' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'PlatformConfig' });
export type PlatformConfigView = z.infer<typeof PlatformConfig>;

/**
 * PATCH /config: omitted fields unchanged. The whole GET /config answer may be sent back: the fields the
 * service derives are read-only (accepted and ignored), the operator's accepted at their current value only.
 */
export const PlatformConfigUpdate = z
  .strictObject({
    umaDomain: Domain.optional(),
    // null removes the endpoint: webhooks stop and incoming payments are approved by the sandbox again.
    webhookEndpoint: HttpUrl.nullable().optional(),
    supportedCurrencies: SupportedCurrenciesInput.optional(),
    embeddedWalletConfig: WalletConfig.optional(),
    isRegulatedFinancialInstitution: operatorSet(z.boolean()),
    proxyUmaSubdomain: operatorSet(z.string()),
    id: readOnlyField(z.string()),
    webhookPublicKey: readOnlyField(z.string()),
    sandboxUmaDomain: readOnlyField(z.string()),
    createdAt: readOnlyField(z.string()),
    updatedAt: readOnlyField(z.string()),
  })
  .meta({ id: 'PlatformConfigUpdateRequest' });
export type PlatformConfigUpdate = z.infer<typeof PlatformConfigUpdate>;

// --- API tokens ---

export const ApiToken = z
  .object({
    id: z.string().meta({ example: 'Token:019542f5-b3e7-1d02-0000-000000000001' }),
    name: z.string(),
    permissions: z.array(Permission),
    clientId: z.string(),
    clientSecret: z.string().optional().meta({ description: 'Only in the creation response' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'ApiToken' });
export type ApiToken = z.infer<typeof ApiToken>;

export const ApiTokenCreate = z
  .object({
    name: z.string().trim().min(1).max(255),
    permissions: z.array(Permission),
  })
  .meta({ id: 'ApiTokenCreateRequest' });

export const TokenList = pageOf(ApiToken, 'TokenListResponse');

export const TokenListQuery = z.object({
  name: z.string().max(255).optional(),
  createdAfter: DateTimeParam,
  createdBefore: DateTimeParam,
  updatedAfter: DateTimeParam,
  updatedBefore: DateTimeParam,
  limit: limitParam,
  cursor: cursorParam,
});

export const TokenIdParams = z.object({ tokenId: z.string() });

// --- Operator: platforms ---

/** A data database, by its D1 binding's name. */
const Home = z.string().regex(/^DB(_[1-9][0-9]*)?$/, 'A data database binding: DB, DB_2, …');

export const PlatformCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    umaDomain: Domain,
    isRegulatedFinancialInstitution: z.boolean().default(false),
    proxyUmaSubdomain: z
      .string()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i, 'Must be a single DNS label')
      .optional(),
    webhookEndpoint: HttpUrl.optional(),
    supportedCurrencies: SupportedCurrenciesInput.default([]),
    embeddedWalletConfig: WalletConfig.optional(),
    home: Home.optional().meta({
      description: 'The data database the platform lives in (its D1 binding: `DB`, `DB_2`, …); default: the one with the fewest platforms',
    }),
  })
  .meta({ id: 'PlatformCreateRequest' });
export type PlatformCreate = z.infer<typeof PlatformCreate>;

export const Platform = z
  .object({
    id: z.string(),
    name: z.string(),
    home: Home.meta({ description: 'The data database the platform lives in (its D1 binding)' }),
    config: PlatformConfig,
    createdAt: DateTime,
  })
  .meta({ id: 'Platform' });

export const PlatformCreated = z
  .object({ platform: Platform, token: ApiToken })
  .meta({ id: 'PlatformCreateResponse', description: 'The platform and its first API token (secret shown once)' });

export const PlatformList = pageOf(Platform, 'PlatformListResponse');
export const PlatformListQuery = z.object({ limit: limitParam, cursor: cursorParam });

export const PlatformIdParams = z.object({ platformId: z.string().max(128) });

export const PlatformMoveRequest = z
  .strictObject({
    home: Home.meta({ description: 'The data database to move the platform to (its D1 binding)' }),
    roundTrips: z.int().min(10).max(900).optional().meta({
      description:
        'At most this many database round trips in this call (default 500): a move that needs more answers 202 and goes on when asked again',
    }),
  })
  .meta({ id: 'PlatformMoveRequest' });

export const PlatformMoved = z
  .object({
    platformId: z.string(),
    home: Home.meta({ description: 'Where the platform lives now' }),
    from: Home.meta({ description: 'Where it lived before the move' }),
    rowsCopied: z.int().meta({ description: 'Rows copied by this call' }),
    done: z.boolean().meta({
      description:
        'False (status 202) when this call used its database round trips, or stopped, before the move ended: ask again to go on from there',
    }),
  })
  .meta({ id: 'PlatformMoveResponse' });
