export const SEED_CUSTOMERS: number;
export interface SeedSample {
  customerId: string;
  businessCustomerId: string;
  platformCustomerId: string;
  usdAccountId: string;
  bankAccountId: string;
  transactionId: string;
  quoteId: string;
  agentId: string;
  deliveryId: string;
  eventId: string;
  documentId: string;
  verificationId: string;
  beneficialOwnerId: string;
  tokenId: string;
  umaAddress: string;
}
export function seedPlatform(options: {
  platformId: string;
  umaDomain: string;
  n: number;
  now?: number;
  tag?: number;
  createPlatform?: boolean;
}): { statements: string[]; sample: SeedSample };
