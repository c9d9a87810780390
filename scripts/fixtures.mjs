#!/usr/bin/env node
// `npm run fixtures -- <file.json>`: loads a fixture document into the running local service (`npm start`) through POST /sandbox/fixtures.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The same place `npm start` saves them (STATE_DIR moves it there too).
const credentialsFile = join(process.env.STATE_DIR ? resolve(process.env.STATE_DIR) : join(root, '.sandbox'), 'credentials.json');

const file = process.argv[2];
if (!file) {
  console.error('Usage: npm run fixtures -- <file.json>   (e.g. scripts/fixtures/sample.json)');
  process.exit(2);
}
if (!existsSync(credentialsFile)) {
  console.error(`No ${credentialsFile}: start the server first with \`npm start\` (in another terminal), then run \`npm run fixtures\`.`);
  process.exit(1);
}
const { baseUrl, clientId, clientSecret } = JSON.parse(readFileSync(credentialsFile, 'utf8'));
const body = readFileSync(resolve(file), 'utf8');
const doc = JSON.parse(body);
const entries = ['customers', 'agents', 'payments'].map((s) => `${doc[s]?.length ?? 0} ${s}`).join(', ');
console.log(`Loading ${file} (${entries}, ${(body.length / 1024).toFixed(0)} KiB) into ${baseUrl} ...`);

// A large document takes a while: one progress line while the call runs (rewritten in place on a terminal).
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
const progress = setInterval(() => {
  const line = `  ... ${seconds()} s`;
  if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
  else console.log(line);
}, 2000);

// node:http, not fetch: fetch gives up waiting for the answer's headers after 300 s, and a document at the
// limit takes longer than that to apply locally.
const { status, text } = await new Promise((done) => {
  const url = new URL(`${baseUrl}/sandbox/fixtures`);
  const headers = {
    Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  };
  const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', headers }, (res) => {
    let data = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => (data += chunk));
    res.on('end', () => done({ status: res.statusCode, text: data }));
  });
  req.on('error', (error) => {
    clearInterval(progress);
    console.error(`\nCannot reach ${baseUrl}: ${error.message} (is \`npm start\` running?)`);
    process.exit(1);
  });
  req.end(body);
});
clearInterval(progress);
if (process.stdout.isTTY) process.stdout.write('\r');
const answer = text ? JSON.parse(text) : null;
if (status !== 201) {
  const reason = answer?.details?.reason ? ` (${answer.details.reason})` : '';
  console.error(`Failed after ${seconds()} s: HTTP ${status} ${answer?.code ?? ''}${reason} ${answer?.message ?? text}`);
  for (const f of answer?.details?.fields ?? []) console.error(`  ${f.field}: ${f.message}`);
  console.error('Nothing was created (a failure while applying is rolled back).');
  process.exit(1);
}
console.log(
  `Loaded in ${seconds()} s: ${Object.entries(answer.counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}`,
);
console.log('\nRefs:');
const width = Math.max(...Object.keys(answer.refs).map((k) => k.length));
for (const [name, id] of Object.entries(answer.refs)) console.log(`  ${name.padEnd(width)}  ${id}`);
for (const [name, agent] of Object.entries(answer.agents)) {
  console.log(`\nAgent ${name}: ${agent.accessToken ? `access token ${agent.accessToken}` : `device code ${agent.deviceCode.code}`}`);
}
