#!/usr/bin/env node
// The end user's device of an embedded wallet, for trying sessions and signed retries from a shell
// (docs/guides/wallets.md). It uses the open-source client libraries a real device uses, @turnkey/crypto and
// @turnkey/api-key-stamper (installed by `npm install`):
//
//   node examples/wallet-session.mjs new-key > device.json
//       a fresh P-256 key pair: {"clientPublicKey":"04…","privateKey":"…"}; send clientPublicKey to
//       POST /auth/credentials/{id}/verify and keep the file (the private key never leaves the device)
//   node examples/wallet-session.mjs open-session device.json session.json > session-key.json
//       opens the Session's encryptedSessionSigningKey (an HPKE bundle sealed to clientPublicKey):
//       {"privateKey":"…","publicKey":"<compressed, hex>"}
//   node examples/wallet-session.mjs stamp session-key.json "$PAYLOAD_TO_SIGN"
//       prints the Service-Wallet-Signature value over payloadToSign (from a signed retry's 202 answer):
//       base64url of {"publicKey","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":<DER hex>}
//
// The files hold private keys: keep them out of version control and delete them when done.
import { readFileSync } from 'node:fs';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const toHex = (bytes) => Buffer.from(bytes).toString('hex');
const [command, ...args] = process.argv.slice(2);

if (command === 'new-key' && args.length === 0) {
  const pair = generateP256KeyPair();
  console.log(JSON.stringify({ clientPublicKey: pair.publicKeyUncompressed, privateKey: pair.privateKey }));
} else if (command === 'open-session' && args.length === 2) {
  const device = readJson(args[0]);
  const session = readJson(args[1]);
  const privateKey = decryptCredentialBundle(session.encryptedSessionSigningKey, device.privateKey);
  console.log(JSON.stringify({ privateKey, publicKey: toHex(getPublicKey(privateKey, true)) }));
} else if (command === 'stamp' && args.length === 2) {
  const key = readJson(args[0]);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  console.log((await stamper.stamp(args[1])).stampHeaderValue);
} else {
  console.error(
    'usage: node examples/wallet-session.mjs new-key\n' +
      '       node examples/wallet-session.mjs open-session <device.json> <session.json>\n' +
      '       node examples/wallet-session.mjs stamp <session-key.json> <payloadToSign>',
  );
  process.exit(2);
}
