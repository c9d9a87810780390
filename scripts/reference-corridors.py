"""Extracts the external-account corridors of the reference OpenAPI into test/accounts/reference-corridors.json.

Usage: python3 scripts/reference-corridors.py <reference openapi.yaml>  (needs PyYAML)
Per account type: its create schema, required fields and properties, the individual beneficiary's, the
reference example and the payment rails. Descriptions are left out.
"""
import json
import sys

import yaml

schemas = yaml.safe_load(open(sys.argv[1]))['components']['schemas']
ref = lambda node: node['$ref'].split('/')[-1]
out = []
for option in schemas['ExternalAccountCreateInfoOneOf']['oneOf']:
    name = ref(option)
    parts = schemas[name]['allOf']
    base = schemas[next(ref(p) for p in parts if '$ref' in p and ref(p) != 'BaseExternalAccountInfo')]
    account_type = base['properties']['accountType']['enum'][0]
    extra = [p for p in parts if '$ref' not in p]
    beneficiary = None
    if extra:
        individual = schemas[ref(extra[0]['properties']['beneficiary']['oneOf'][0])]
        beneficiary = {'schema': ref(extra[0]['properties']['beneficiary']['oneOf'][0]), 'required': individual['required'], 'properties': list(individual['properties'])}
    example = base.get('example') or {'accountType': account_type, **{k: v['example'] for k, v in base['properties'].items() if 'example' in v and k != 'accountType'}}
    if account_type == 'LIGHTNING':
        example = {'accountType': account_type, 'invoice': base['properties']['invoice']['example']}
    rails = None
    info = schemas.get(name.replace('ExternalAccountCreateInfo', 'AccountInfo'))
    if extra and info:
        rails = next(p['properties']['paymentRails']['items']['enum'] for p in info['allOf'] if 'properties' in p)
    out.append({
        'accountType': account_type,
        'schema': name,
        'viewSchema': name.replace('CreateInfo', 'Info'),
        'required': [f for f in base.get('required', []) if f != 'accountType'],
        'properties': [f for f in base['properties'] if f != 'accountType'],
        'beneficiary': beneficiary,
        'example': example,
        'paymentRails': rails,
    })
json.dump(out, open('test/accounts/reference-corridors.json', 'w'), indent=1)
print(len(out), 'corridors')
