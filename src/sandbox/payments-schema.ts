// The sandbox payment schemas: send and UMA receive requests.
import * as z from 'zod';
import { CurrencyCode } from '../common/currencies';
import { UmaAddressField } from '../payments/schema';

export const SandboxSendRequest = z
  .strictObject({
    quoteId: z.string().max(128).meta({ example: 'Quote:019542f5-b3e7-1d02-0000-000000000006' }),
    currencyCode: CurrencyCode.meta({
      description: "Which of the quote's paymentInstructions is paid: the sending currency, or BTC for the Lightning invoice",
    }),
    currencyAmount: z.int().positive().optional().meta({ description: 'When given, must be what the quote asks (totalSendingAmount)' }),
  })
  .meta({ id: 'SandboxSendRequest' });

export const SandboxUmaReceiveRequest = z
  .strictObject({
    senderUmaAddress: UmaAddressField.meta({ example: '$alice@sender.example' }),
    receiverUmaAddress: UmaAddressField.optional().meta({
      description: "One of the platform's customers' UMA addresses",
      example: '$bob@platform.example',
    }),
    customerId: z.string().max(128).optional().meta({ description: 'Alternative to receiverUmaAddress' }),
    receivingCurrencyCode: CurrencyCode,
    receivingCurrencyAmount: z.int().positive().max(9_000_000_000_000_000).meta({ description: 'Smallest unit of the receiving currency' }),
  })
  .refine((b) => b.receiverUmaAddress !== undefined || b.customerId !== undefined, {
    message: 'receiverUmaAddress is required',
    path: ['receiverUmaAddress'],
  })
  .meta({ id: 'SandboxUmaReceiveRequest' });
