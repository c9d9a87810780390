#!/usr/bin/env node
// A webhook receiver for trying the API locally; plain Node.js, no dependencies.
//
//   KEY=$(curl -s -u "$AUTH" "$BASE/config" | jq -r .webhookPublicKey)
//   node examples/webhook-receiver.mjs --port 8790 --public-key "$KEY" &
//   curl -s -u "$AUTH" -X PATCH "$BASE/config" -H 'Content-Type: application/json' \
//     -d '{"webhookEndpoint":"http://127.0.0.1:8790/webhooks"}'
//
// Every delivery is a POST of `{id, type, timestamp, data}` whose `X-Service-Signature` header is the base64 DER
// ECDSA P-256 signature over SHA-256 of the raw body bytes, made with the platform's own key; its public half is
// `webhookPublicKey` in GET /config (PEM, SPKI). A delivery that verifies is answered 200 and printed to stdout as
// one JSON line ({id, type, timestamp, data}); one that does not (a missing or bad signature, e.g. the sandbox's
// BAD_SIGNATURE webhook chaos) is answered 401 and reported on stderr. Verify the bytes as received: re-serialised
// JSON would not verify. The service retries anything but a 2xx or 409, so a real receiver answers quickly and
// de-duplicates by `id`.
//
// Options: --port N (default 8790), --host H (default 127.0.0.1), --public-key PEM (or PUBLIC_KEY in the
// environment; a literal "\n" in it is read as a newline). Stops on SIGINT/SIGTERM.
import { createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:http';

// Read by hand: node's parseArgs refuses a value starting with '-', and a PEM starts with '-----BEGIN'.
const values = { port: '8790', host: '127.0.0.1', 'public-key': process.env.PUBLIC_KEY };
for (let i = 2; i < process.argv.length; i++) {
  const [name, inline] = process.argv[i].replace(/^--/, '').split(/=(.*)/s);
  if (!(name in values) || !process.argv[i].startsWith('--')) {
    console.error(`unknown argument ${process.argv[i]}`);
    process.exit(2);
  }
  values[name] = inline ?? process.argv[++i];
}
if (!values['public-key']) {
  console.error('usage: node examples/webhook-receiver.mjs --port 8790 --public-key "$(webhookPublicKey from GET /config)"');
  process.exit(2);
}
const key = createPublicKey(values['public-key'].replace(/\\n/g, '\n'));

/** True when `signature` (base64 DER) verifies over `body` (the raw bytes) under the platform's key. */
function verified(body, signature) {
  if (typeof signature !== 'string' || signature === '') return false;
  try {
    return verify('sha256', body, { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    if (!verified(body, req.headers['x-service-signature'])) {
      console.error(JSON.stringify({ rejected: 'bad signature', path: req.url, bytes: body.length }));
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('bad signature');
      return;
    }
    let event;
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      console.error(JSON.stringify({ rejected: 'signed body is not JSON', path: req.url }));
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('not JSON');
      return;
    }
    const { id, type, timestamp, data } = event;
    console.log(JSON.stringify({ id, type, timestamp, data }));
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
});

server.listen(Number(values.port), values.host, () => {
  console.error(`webhook receiver listening on http://${values.host}:${values.port}/`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
