import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { CurrencyConfig, WalletConfig } from '../platform/schema';

/** Times are integer milliseconds since the epoch (UTC); the API renders them as ISO 8601. */
const createdAt = () => integer('created_at').notNull();
const updatedAt = () => integer('updated_at').notNull();

export const platforms = sqliteTable('platforms', {
  id: text('id').primaryKey(),
  configId: text('config_id').notNull(),
  name: text('name').notNull(),
  umaDomain: text('uma_domain').notNull(),
  proxyUmaSubdomain: text('proxy_uma_subdomain'),
  webhookEndpoint: text('webhook_endpoint'),
  supportedCurrencies: text('supported_currencies', { mode: 'json' }).$type<CurrencyConfig[]>().notNull(),
  embeddedWalletConfig: text('embedded_wallet_config', { mode: 'json' }).$type<WalletConfig>(),
  isRegulatedFinancialInstitution: integer('is_regulated', { mode: 'boolean' }).notNull(),
  /** Sandbox clock: how far this platform's time runs ahead of real time (POST /sandbox/clock/advance). */
  clockOffsetMs: integer('clock_offset_ms').notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id')
      .notNull()
      .references(() => platforms.id),
    name: text('name').notNull(),
    permissions: text('permissions', { mode: 'json' }).$type<Permission[]>().notNull(),
    clientId: text('client_id').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('api_tokens_platform_idx').on(t.platformId, t.id)],
);

export type Permission = 'VIEW' | 'TRANSACT' | 'MANAGE';
export type PlatformRow = typeof platforms.$inferSelect;
export type ApiTokenRow = typeof apiTokens.$inferSelect;
