#!/usr/bin/env bash
# The quickstart: one walk through the API against a running `npm start` (in another terminal), from the
# repository root:
#
#   bash docs/quickstart.sh
#
# A customer, its USD account funded in the sandbox, a bank account and a transfer out to it; a sandbox UMA
# receiver looked up, a cross-currency quote to it and its execution; the webhooks those sent, received and
# verified by examples/webhook-receiver.mjs; an agent that gets its own token and makes a call. Every id comes
# from the answer before; a `# NNN` line after a request is the status it answers (`npm run docs:check` runs
# this script against a fresh `npm start` and compares). Needs curl and jq. It can run again: each run makes a
# new customer (platformCustomerId is unique per platform, so it carries the time of the run).
set -euo pipefail

# Credentials: `npm start` writes them to .sandbox/credentials.json.
BASE=$(jq -r .baseUrl .sandbox/credentials.json)
AUTH=$(jq -r '.clientId + ":" + .clientSecret' .sandbox/credentials.json)

# Webhooks first, so that the receiver sees everything below. Each platform signs with its own key; the
# receiver verifies every delivery with the public half, webhookPublicKey.
WEBHOOK_KEY=$(curl -s -u "$AUTH" "$BASE/config" | jq -r .webhookPublicKey)
# 200 {"id":"PlatformConfig:…","umaDomain":"sandbox.local.test",…,"webhookPublicKey":"-----BEGIN PUBLIC KEY-----…"}
WEBHOOK_PORT=${WEBHOOK_PORT:-8790}
EVENTS=$(mktemp)
node examples/webhook-receiver.mjs --port "$WEBHOOK_PORT" --public-key "$WEBHOOK_KEY" >"$EVENTS" &
RECEIVER=$!
trap 'kill "$RECEIVER" 2>/dev/null || true; rm -f "$EVENTS"' EXIT

# Waits up to 30 s for a transaction to complete, and prints the status it reached.
wait_completed() {
  local status
  for i in $(seq 1 30); do
    status=$(curl -s -u "$AUTH" "$BASE/transactions/$1" | jq -r .status)
    [ "$status" = COMPLETED ] && break
    sleep 1
  done
  echo "              $status"
}
for i in $(seq 1 50); do # until it listens
  (: >"/dev/tcp/127.0.0.1/$WEBHOOK_PORT") 2>/dev/null && break
  sleep 0.1
done
curl -s -u "$AUTH" -X PATCH "$BASE/config" -H 'Content-Type: application/json' \
  -d '{"webhookEndpoint":"http://127.0.0.1:'"$WEBHOOK_PORT"'/webhooks"}' | jq -c '{webhookEndpoint}'
# 200 {"webhookEndpoint":"http://127.0.0.1:8790/webhooks"}

# 1. A customer; its internal accounts (one per currency the platform supports) come with it.
PLATFORM_CUSTOMER_ID="jane-$(date +%s)"
CUSTOMER=$(curl -s -u "$AUTH" -X POST "$BASE/customers" -H 'Content-Type: application/json' -d '{
  "customerType":"INDIVIDUAL","platformCustomerId":"'"$PLATFORM_CUSTOMER_ID"'","fullName":"Jane Smith","birthDate":"1990-01-15",
  "nationality":"US","email":"jane@example.com",
  "address":{"line1":"123 Main Street","city":"San Francisco","state":"CA","postalCode":"94105","country":"US"}}' |
  jq -r .id)
# 201 {"id":"Customer:…","platformCustomerId":"jane-…","umaAddress":"$jane-…@sandbox.local.test",…}
echo "customer      $CUSTOMER"

# 2. Its USD account.
USD_ACCOUNT=$(curl -s -u "$AUTH" "$BASE/customers/internal-accounts?customerId=$CUSTOMER&currency=USD&type=INTERNAL_FIAT" |
  jq -r '.data[0].id')
# 200 {"data":[{"id":"InternalAccount:…","type":"INTERNAL_FIAT","balance":{"amount":0,…},"fundingPaymentInstructions":[…]}],…}
echo "USD account   $USD_ACCOUNT"

# 3. Fund it in the sandbox: $1,000.00 (amounts are in the currency's smallest unit).
curl -s -u "$AUTH" -X POST "$BASE/sandbox/internal-accounts/$USD_ACCOUNT/fund" -H 'Content-Type: application/json' \
  -d '{"amount":100000}' | jq -c '{id, balance: .balance.amount}'
# 200 {"id":"InternalAccount:…","balance":100000}

# 4. A bank account to pay out to (a US account; any number not ending in a sandbox magic suffix succeeds).
BANK_ACCOUNT=$(curl -s -u "$AUTH" -X POST "$BASE/customers/external-accounts" -H 'Content-Type: application/json' -d '{
  "customerId":"'"$CUSTOMER"'","currency":"USD",
  "accountInfo":{"accountType":"USD_ACCOUNT","accountNumber":"123456789012","routingNumber":"021000021",
  "beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Jane Smith"}}}' | jq -r .id)
# 201 {"id":"ExternalAccount:…","status":"ACTIVE",…}
echo "bank account  $BANK_ACCOUNT"

# 5. Move $125.50 out to it. The Idempotency-Key makes a retry of this request safe.
TRANSFER=$(curl -s -u "$AUTH" -X POST "$BASE/transfer-out" -H "Idempotency-Key: quickstart-$CUSTOMER" \
  -H 'Content-Type: application/json' \
  -d '{"source":{"accountId":"'"$USD_ACCOUNT"'"},"destination":{"accountId":"'"$BANK_ACCOUNT"'"},"amount":12550}' |
  jq -r .id)
# 201 {"id":"Transaction:…","status":"PROCESSING",…}
echo "transfer out  $TRANSFER"
# Wait for it to complete (in the sandbox an ordinary account completes at once; a real rail takes longer).
wait_completed "$TRANSFER"

# 6. Pay abroad: look a sandbox UMA receiver up (its currencies, estimated rates and limits, the payer data
#    it asks), then a quote to it naming that look-up: $100.00 sent, paid out in EUR.
LOOKUP=$(curl -s -u "$AUTH" "$BASE/receiver/uma/\$success.eur@sandbox.uma.test?customerId=$CUSTOMER" | jq -r .lookupId)
# 200 {"receiverUmaAddress":"$success.eur@sandbox.uma.test","supportedCurrencies":[{"currency":{"code":"EUR",…},…}],"lookupId":"LookupRequest:…",…}
echo "look-up       $LOOKUP"
QUOTE=$(curl -s -u "$AUTH" -X POST "$BASE/quotes" -H 'Content-Type: application/json' -d '{
  "lookupId":"'"$LOOKUP"'","source":{"sourceType":"ACCOUNT","accountId":"'"$USD_ACCOUNT"'"},
  "destination":{"destinationType":"UMA_ADDRESS","umaAddress":"$success.eur@sandbox.uma.test"},
  "lockedCurrencySide":"SENDING","lockedCurrencyAmount":10000}' | jq -r .id)
# 201 {"id":"Quote:…","status":"PENDING","exchangeRate":…,"totalReceivingAmount":…,"expiresAt":"…",…}
echo "quote         $QUOTE"
PAYMENT=$(curl -s -u "$AUTH" -X POST "$BASE/quotes/$QUOTE/execute" -H "Idempotency-Key: quickstart-$QUOTE" |
  jq -r .transactionId)
# 200 {"id":"Quote:…","status":"PROCESSING","transactionId":"Transaction:…",…}
echo "payment       $PAYMENT"
# The sandbox receiver settles it about 5 seconds later.
wait_completed "$PAYMENT"

# 7. The webhooks those steps sent, each verified by the receiver (it answers 401 to a bad signature). Wait
#    until the payment's completion has arrived, then show one line per event.
for i in $(seq 1 30); do
  grep -q '"type":"OUTGOING_PAYMENT.COMPLETED".*'"$PAYMENT" "$EVENTS" && break
  sleep 1
done
echo "webhooks received and verified:"
jq -r '[.type, (.data.id // ""), (.data.status // "")] | @tsv' "$EVENTS"
curl -s -u "$AUTH" "$BASE/webhooks/deliveries?limit=3" | jq -c '[.data[] | {eventType, status, lastResponseStatus}]'
# 200 {"data":[{"id":"WebhookDelivery:…","eventType":"OUTGOING_PAYMENT.COMPLETED","status":"DELIVERED",…},…],…}
kill "$RECEIVER"
curl -s -u "$AUTH" -X PATCH "$BASE/config" -H 'Content-Type: application/json' -d '{"webhookEndpoint":null}' >/dev/null
# 200

# 8. An agent: it acts for the customer under a policy (here it may only read the customer's transactions).
#    The platform creates it and hands its software a one-time device code...
DEVICE_CODE=$(curl -s -u "$AUTH" -X POST "$BASE/agents" -H 'Content-Type: application/json' -d '{
  "name":"Bookkeeping bot","customerId":"'"$CUSTOMER"'","policy":{"permissions":["VIEW_TRANSACTIONS"],
  "defaultExecutionMode":"APPROVAL_REQUIRED","spendingLimits":{"currency":"USD","perTransactionLimit":0}}}' |
  jq -r .deviceCode.code)
# 201 {"agent":{"id":"Agent:…","name":"Bookkeeping bot",…},"deviceCode":{"code":"ABCDE-FGHJK",…}}
# ...which the software redeems, without platform credentials, for its own bearer token.
AGENT_TOKEN=$(curl -s -X POST "$BASE/agents/device-codes/$DEVICE_CODE/redeem" | jq -r .accessToken)
# 200 {"accessToken":"agt_…","agentId":"Agent:…",…}
# One call as the agent: the customer's transactions (the transfer and the payment above).
echo "the agent sees:"
curl -s -H "Authorization: Bearer $AGENT_TOKEN" "$BASE/agents/me/transactions" | jq -r '.data[] | [.id, .type, .status] | @tsv'
# 200 {"data":[{"id":"Transaction:…","type":"OUTGOING","status":"COMPLETED",…},…],…}
