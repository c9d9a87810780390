#!/usr/bin/env bash
# End-to-end smoke: `npm start` in the background, read .sandbox/credentials.json, call a few
# endpoints with curl, stop the server by its PID. Also checks what `npm start` itself must keep secret:
# .dev.vars and the credentials readable by their owner only (an existing world-readable .dev.vars is
# fixed on start), and no device code in its output; that its output is quiet (one line for the migrations);
# and that the cron sweep runs on its own every minute and on demand (/cdn-cgi/handler/scheduled). Used by
# .ci/run; runnable by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-$((20000 + RANDOM % 20000))}
log=$(mktemp)
rm -f .sandbox/credentials.json
# As an earlier start left it: world-readable.
[ -e .dev.vars ] || : >.dev.vars
chmod 644 .dev.vars

# Its own process group, so stopping it stops the local Worker's runner and workerd too.
start() {
  PORT=$port setsid npm start >>"$log" 2>&1 &
  pid=$!
}
stop() { kill -TERM -- "-$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
start
trap stop EXIT

for _ in $(seq 1 240); do
  [ -s .sandbox/credentials.json ] && break
  if ! kill -0 "$pid" 2>/dev/null; then echo "npm start exited:"; cat "$log"; exit 1; fi
  sleep 0.5
done
[ -s .sandbox/credentials.json ] || { echo "no credentials after 120 s"; cat "$log"; exit 1; }

read -r base id secret < <(node -e 'const c=require("./.sandbox/credentials.json");console.log(c.baseUrl,c.clientId,c.clientSecret)')
check() { # method path expected-status [body]
  local status
  status=$(curl -s -o /tmp/smoke-body -w '%{http_code}' -u "$id:$secret" -X "$1" -H 'Content-Type: application/json' ${4:+-d "$4"} "$base$2")
  if [ "$status" != "$3" ]; then echo "FAIL $1 $2: $status"; cat /tmp/smoke-body; echo; exit 1; fi
  echo "ok   $1 $2 -> $status"
}
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && echo "ok   GET /healthz"
# Quiet: one line for the migrations, no table per migration, no bindings table, no stack trace.
grep -Eq '^Databases( up to date \([0-9]+ migrations\)| DB(, DB_[0-9]+)*: applied [0-9]+ migrations \()' "$log" || { echo "FAIL no one-line migration summary"; cat "$log"; exit 1; }
if grep -Eq '┌|│|    at ' "$log"; then echo "FAIL npm start printed tables or stack traces:"; cat "$log"; exit 1; fi
echo "ok   npm start is quiet ($(wc -l <"$log") lines)"
check GET /config 200
check PATCH /config 200 '{"webhookEndpoint":"https://example.com/hooks"}'
check POST /tokens 201 '{"name":"smoke","permissions":["VIEW"]}'
check GET /tokens 200
check GET /openapi.json 200
check GET /nope 404

mode_of() { stat -c %a "$1" 2>/dev/null || stat -f %Lp "$1"; }
for f in .dev.vars .sandbox/credentials.json; do
  [ "$(mode_of "$f")" = 600 ] || { echo "FAIL $f has mode $(mode_of "$f"), not 600"; exit 1; }
  echo "ok   $f is 600"
done

# A device code in a request path is a secret: neither the Worker's log nor the runner's request log may print it.
code="SMOKE$RANDOM-$RANDOM$RANDOM"
check GET "/agents/device-codes/$code/status" 404
check POST "/agents/device-codes/$code/redeem" 404
# The Worker's line for the last request comes a moment after the answer.
for _ in $(seq 1 20); do grep -Eq '"method":"POST","path":"[^"]*/redeem"' "$log" && break; sleep 0.25; done
grep -q 'device-codes/:code/status' "$log" || { echo "FAIL no request line for the device-code status"; cat "$log"; exit 1; }
if grep -n "$code" "$log"; then echo "FAIL npm start printed a device code"; exit 1; fi
echo "ok   no device code in the output of npm start"

# The cron sweep: on its own at the next minute boundary (as a deployment's `* * * * *`), then on demand.
sweeps() { grep -c '"msg":"sweep"' "$log" || true; }
for _ in $(seq 1 150); do [ "$(sweeps)" -ge 1 ] && break; sleep 0.5; done
[ "$(sweeps)" -ge 1 ] || { echo "FAIL the cron sweep did not run within 75 s"; cat "$log"; exit 1; }
echo "ok   the cron sweep ran on its own"
before=$(sweeps)
status=$(curl -s -o /tmp/smoke-body -w '%{http_code}' "http://127.0.0.1:$port/cdn-cgi/handler/scheduled")
[ "$status" = 200 ] || { echo "FAIL /cdn-cgi/handler/scheduled: $status"; cat /tmp/smoke-body; echo; exit 1; }
for _ in $(seq 1 20); do [ "$(sweeps)" -gt "$before" ] && break; sleep 0.25; done
[ "$(sweeps)" -gt "$before" ] || { echo "FAIL /cdn-cgi/handler/scheduled answered 200 but no sweep ran"; exit 1; }
echo "ok   GET /cdn-cgi/handler/scheduled -> 200, the sweep ran"

# Snapshots survive a restart: take one, stop npm start, start it again on the same state, restore it there.
json_of() { node -e "console.log(JSON.parse(require('fs').readFileSync('/tmp/smoke-body','utf8')).$1)"; }
person='"customerType":"INDIVIDUAL","fullName":"Smoke Test","birthDate":"1990-01-15","nationality":"US","address":{"line1":"1 Main Street","city":"San Francisco","state":"CA","postalCode":"94105","country":"US"}'
check POST /customers 201 "{\"platformCustomerId\":\"smoke-$RANDOM$RANDOM\",$person}"
kept=$(json_of id)
check POST /sandbox/snapshots 201 '{"name":"smoke"}'
snapshot=$(json_of id)
stop
start
for _ in $(seq 1 240); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  if ! kill -0 "$pid" 2>/dev/null; then echo "npm start exited on restart:"; cat "$log"; exit 1; fi
  sleep 0.5
done
check GET "/sandbox/snapshots/$snapshot" 200
check POST /customers 201 "{\"platformCustomerId\":\"smoke-$RANDOM$RANDOM\",$person}"
late=$(json_of id)
check POST "/sandbox/snapshots/$snapshot/restore" 200
check GET "/customers/$kept" 200
check GET "/customers/$late" 404
check DELETE "/sandbox/snapshots/$snapshot" 204
echo "ok   a snapshot survives a restart of npm start and restores there"
echo "smoke passed"
