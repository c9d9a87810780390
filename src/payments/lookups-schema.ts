// The receiver look-up schemas (reference ReceiverUmaLookupResponse, ReceiverExternalAccountLookupResponse).
import * as z from 'zod';
import { Currency } from '../common/currencies';
import { DateTime } from '../common/time';
import { CounterpartyFieldDefinition } from '../platform/schema';
import { UmaAddressField } from './schema';

export const LookupQuery = z.object({
  senderUmaAddress: UmaAddressField.optional().meta({
    description: "The sender: a UMA address of one of the platform's customers (optional if customerId is given)",
  }),
  customerId: z.string().max(128).optional().meta({
    description: "The sender: a customer id, or the platform id for the platform's own payments (optional if senderUmaAddress is given)",
  }),
});
export type LookupQuery = z.infer<typeof LookupQuery>;

export const LookupUmaParams = z.object({ receiverUmaAddress: UmaAddressField });
export const LookupAccountParams = z.object({
  accountId: z.string().max(128).meta({ example: 'ExternalAccount:e85dcbd6-dced-4ec4-b756-3c3a9ea3d965' }),
});

export const CurrencyPreference = z
  .object({
    currency: Currency,
    estimatedExchangeRate: z.number().positive().meta({
      description:
        "Receiving-currency major units per sending-currency major unit, from the sender's currency (its first of the platform's currencies with OUTGOING enabled), with the platform's fees; a quote locks the rate",
    }),
    min: z
      .int()
      .positive()
      .meta({ description: 'The least a quote can deliver in this currency (within the sending limits, fees deducted)' }),
    max: z
      .int()
      .positive()
      .meta({ description: 'The most a quote can deliver in this currency (within the sending limits, fees deducted)' }),
  })
  .meta({ id: 'CurrencyPreference' });
export type CurrencyPreference = z.infer<typeof CurrencyPreference>;

const lookup = {
  supportedCurrencies: z.array(CurrencyPreference).meta({ description: 'The currencies the receiver accepts' }),
  requiredPayerDataFields: z.array(CounterpartyFieldDefinition).meta({
    description: "What the receiver needs about the payer beyond the customer's registration: give it in the quote's senderCustomerInfo",
  }),
  lookupId: z
    .string()
    .meta({ example: 'LookupRequest:019542f5-b3e7-1d02-0000-000000000009', description: 'Give it as the quote’s lookupId' }),
  expiresAt: DateTime.meta({
    description: 'After this the lookupId is not found (404 LOOKUP_REQUEST_NOT_FOUND): look the receiver up again',
  }),
};

export const ReceiverUmaLookupResponse = z
  .object({ ...lookup, receiverUmaAddress: z.string().meta({ description: 'The UMA address looked up (lower-cased, with its $)' }) })
  .meta({ id: 'ReceiverUmaLookupResponse' });
export const ReceiverExternalAccountLookupResponse = z
  .object({ ...lookup, accountId: z.string().meta({ description: 'The external account looked up' }) })
  .meta({ id: 'ReceiverExternalAccountLookupResponse' });
/** What both look-ups answer besides the receiver they name. */
export type LookupAnswer = Omit<z.infer<typeof ReceiverUmaLookupResponse>, 'receiverUmaAddress'>;
