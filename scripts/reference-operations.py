"""Extracts the in-scope operations and webhooks of the reference OpenAPI into test/http/reference-operations.json
and test/http/reference-webhooks.json.

Usage: python3 scripts/reference-operations.py <reference openapi.yaml>  (needs PyYAML), then
`npx prettier --write test/http/reference-*.json`.
One entry per operation: method, path (the reference's parameter names) and operationId. One entry per
webhook: its name, operationId, event types and the fields its payload's `data` may carry (every property
reachable through $ref, allOf, oneOf and anyOf). Left out, as the reference README puts them out of scope:
cards, discoveries, receiver look-ups and crypto fee estimates.
"""
import json
import re
import sys

import yaml

OUT_OF_SCOPE = [
    r'^/cards(/|$)', r'^/sandbox/cards/',  # cards
    r'^/discoveries$',  # discoveries
    r'^/receiver/',  # receiver look-ups
    r'^/crypto/estimate-withdrawal-fee$',  # crypto fee estimates
]
METHODS = ['get', 'post', 'put', 'patch', 'delete']

OUT_OF_SCOPE_WEBHOOKS = [r'^card-']

doc = yaml.safe_load(open(sys.argv[1]))
paths = doc['paths']
schemas = doc['components']['schemas']
out = [
    {'method': method.upper(), 'path': path, 'operationId': op['operationId']}
    for path, ops in paths.items()
    if not any(re.search(p, path) for p in OUT_OF_SCOPE)
    for method, op in ops.items()
    if method in METHODS
]
json.dump(out, open('test/http/reference-operations.json', 'w'), indent=1)
print(len(out), 'operations')


def resolve(schema):
    while '$ref' in schema:
        schema = schemas[schema['$ref'].split('/')[-1]]
    return schema


def properties(schema):
    """Every property name `schema` may carry, merged over its allOf, oneOf and anyOf branches."""
    schema = resolve(schema)
    out = dict(schema.get('properties', {}))
    for key in ('allOf', 'oneOf', 'anyOf'):
        for branch in schema.get(key, []):
            for name, prop in properties(branch).items():
                out[name] = prop  # a later branch narrows (the webhook's own `type` enum over BaseWebhook's)
    return out


webhooks = []
for name, item in doc['webhooks'].items():
    if any(re.search(p, name) for p in OUT_OF_SCOPE_WEBHOOKS):
        continue
    op = item['post']
    payload = properties(op['requestBody']['content']['application/json']['schema'])
    data = properties(payload['data']) if 'data' in payload else {}
    webhooks.append({
        'name': name,
        'operationId': op['operationId'],
        'types': resolve(payload['type']).get('enum', []),
        'dataFields': sorted(data),
    })
json.dump(webhooks, open('test/http/reference-webhooks.json', 'w'), indent=1)
print(len(webhooks), 'webhooks')
