// Receiver look-ups: a UMA address or an external account, before a quote (its lookupId).
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { externalAccountNotFound } from '../external-accounts/service';
import { ratesUnavailableResponse } from './rates-schema';
import { requireActiveExternal } from './parties';
import { resolveUmaReceiver } from './sandbox-uma-receivers';
import {
  LookupAccountParams,
  LookupQuery,
  LookupUmaParams,
  ReceiverExternalAccountLookupResponse,
  ReceiverUmaLookupResponse,
} from './lookups-schema';
import { lookupLoads, lookupSender, recordLookup } from './lookups-service';
import { rateSource } from './rates-source';

const tag = 'Cross-Currency Transfers';
const lookupErrors = {
  ...errorResponses(400, 401, 403, 404, 410),
  ...ratesUnavailableResponse,
};

export const lookupRoutes = [
  defineRoute({
    method: 'GET',
    path: '/receiver/uma/:receiverUmaAddress',
    operationId: 'lookupUma',
    summary: 'Look up a UMA address before paying it: the currencies it accepts (estimated rates, min and max) and the payer data it needs',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: LookupUmaParams,
    query: LookupQuery,
    responses: {
      200: { description: 'The receiver, and the lookupId a quote to it names', schema: ReceiverUmaLookupResponse },
      ...lookupErrors,
      ...errorResponses(412, 424),
    },
    // The sender rides on authentication; the look-up is then one write.
    load: ({ db, platformId, query }) => lookupLoads(db, platformId, query),
    handler: async (c) => {
      const sender = lookupSender(c.auth.platform, c.query, c.loaded);
      const receiver = resolveUmaReceiver(c.params.receiverUmaAddress, c.settings);
      const found = {
        receiverType: 'UMA_ADDRESS' as const,
        receiver: receiver.address,
        currencies: [receiver.currency],
        receiverName: receiver.name,
      };
      const answer = await recordLookup(c.db, c.auth.platform, sender, found, await rateSource(c.settings)(c.now), c.now);
      return json({ receiverUmaAddress: receiver.address, ...answer });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/receiver/external-account/:accountId',
    operationId: 'lookupExternalAccount',
    summary: 'Look up an external account before paying it: its currency (estimated rate, min and max) and the payer data it needs',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: LookupAccountParams,
    query: LookupQuery,
    responses: {
      200: { description: 'The account, and the lookupId a quote to it names', schema: ReceiverExternalAccountLookupResponse },
      ...lookupErrors,
      ...errorResponses(409),
    },
    // The sender and the account ride on authentication; the look-up is then one write.
    load: ({ db, platformId, query, params }) => lookupLoads(db, platformId, query, params.accountId),
    handler: async (c) => {
      const sender = lookupSender(c.auth.platform, c.query, c.loaded);
      const account = c.loaded.account[0];
      if (!account) throw externalAccountNotFound();
      requireActiveExternal(account);
      const found = { receiverType: 'ACCOUNT' as const, receiver: account.id, currencies: [account.currency] };
      const answer = await recordLookup(c.db, c.auth.platform, sender, found, await rateSource(c.settings)(c.now), c.now);
      return json({ accountId: account.id, ...answer });
    },
  }),
];
