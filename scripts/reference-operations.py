"""Extracts the in-scope operations, webhooks, write-backs and error codes of the reference OpenAPI into
test/http/reference-operations.json, test/http/reference-webhooks.json, test/http/reference-write-backs.json and
test/http/reference-errors.json.

Usage: python3 scripts/reference-operations.py <reference openapi.yaml>  (needs PyYAML), then
`npx prettier --write test/http/reference-*.json`.
One entry per operation: method, path (the reference's parameter names) and operationId. One entry per
webhook: its name, operationId, event types and the fields its payload's `data` may carry (every property
reachable through $ref, allOf, oneOf and anyOf). One entry per write-back: a field of a GET answer whose named
schema (an object, or a list of them) is the same field's schema in a request body, so a client may send back
what it read, with the read-only fields the reference marks in it. Left out, as the reference README puts them
out of scope: cards.
Error codes: for each error status the reference defines, the `code` enum of its schema (`Error404`...); the
script checks that every operation answers a status with that one schema, so the enum holds for all of them.
"""
import json
import re
import sys

import yaml

OUT_OF_SCOPE = [
    r'^/cards(/|$)', r'^/sandbox/cards/',  # cards
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


def named(prop):
    """The named schema of a property, or of its list items (`Name[]`); None for an inline one."""
    if '$ref' in prop:
        return prop['$ref'].split('/')[-1]
    if prop.get('type') == 'array' and '$ref' in prop.get('items', {}):
        return prop['items']['$ref'].split('/')[-1] + '[]'
    return None


def read_only(schema, seen=None):
    """The read-only properties anywhere inside `schema`, by name."""
    seen = seen if seen is not None else set()
    if '$ref' in schema:
        name = schema['$ref'].split('/')[-1]
        if name in seen:
            return set()
        seen.add(name)
        return read_only(schemas[name], seen)
    out = set()
    for name, prop in schema.get('properties', {}).items():
        if prop.get('readOnly'):
            out.add(name)
        out |= read_only(prop, seen)
    for key in ('allOf', 'oneOf', 'anyOf'):
        for branch in schema.get(key, []):
            out |= read_only(branch, seen)
    if 'items' in schema:
        out |= read_only(schema['items'], seen)
    return out


def json_schema(op, where):
    if where == 'request':
        return op.get('requestBody', {}).get('content', {}).get('application/json', {}).get('schema')
    for status in ('200', '201'):
        schema = op.get('responses', {}).get(status, {}).get('content', {}).get('application/json', {}).get('schema')
        if schema:
            return schema
    return None


in_scope = [(path, method, op) for path, ops in paths.items() if not any(re.search(p, path) for p in OUT_OF_SCOPE)
            for method, op in ops.items() if method in METHODS]
write_backs = []
for read_path, read_method, read_op in in_scope:
    answer = read_method == 'get' and json_schema(read_op, 'response')
    if not answer:
        continue
    read_fields = properties(answer)
    for write_path, write_method, write_op in in_scope:
        request = write_method in ('post', 'patch', 'put') and json_schema(write_op, 'request')
        if not request:
            continue
        for field, prop in sorted(properties(request).items()):
            schema = named(prop)
            target = schema and resolve({'$ref': '#/components/schemas/' + schema.removesuffix('[]')})
            if schema and field in read_fields and named(read_fields[field]) == schema and (
                    target.get('type') == 'object' or 'oneOf' in target):
                write_backs.append({
                    'read': f'GET {read_path}',
                    'write': f'{write_method.upper()} {write_path}',
                    'field': field,
                    'schema': schema,
                    'readOnly': sorted(read_only(target)),
                })
json.dump(write_backs, open('test/http/reference-write-backs.json', 'w'), indent=1)
print(len(write_backs), 'write-backs')


# Every operation (in scope or not: the enums are the reference's for the status) answers status S with `ErrorS`.
# A code named after the hosted service (the first word of the document's title) takes the neutral word, as the
# specification writes it (SERVICE_SWITCH_ERROR).
OWN_NAME = doc['info']['title'].split()[0].upper() + '_'


def neutral(code):
    return 'SERVICE_' + code[len(OWN_NAME):] if code.startswith(OWN_NAME) else code


errors = {}
for path, ops in paths.items():
    for method, op in ops.items():
        if method not in METHODS:
            continue
        for status, response in op.get('responses', {}).items():
            if not str(status).startswith(('4', '5')):
                continue
            ref = response['content']['application/json']['schema']['$ref']
            if ref != f'#/components/schemas/Error{status}':
                raise SystemExit(f'{method.upper()} {path} answers {status} with {ref}, not Error{status}')
            errors[str(status)] = [neutral(c) for c in schemas[f'Error{status}']['properties']['code']['enum']]
json.dump(dict(sorted(errors.items())), open('test/http/reference-errors.json', 'w'), indent=1)
print(len(errors), 'error statuses')
