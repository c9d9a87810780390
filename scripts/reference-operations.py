"""Extracts the in-scope operations of the reference OpenAPI into test/http/reference-operations.json.

Usage: python3 scripts/reference-operations.py <reference openapi.yaml>  (needs PyYAML)
One entry per operation: method, path (the reference's parameter names) and operationId. Left out, as
the reference README puts them out of scope: cards, invitations, discoveries, receiver look-ups, crypto
fee estimates and KYC links.
"""
import json
import re
import sys

import yaml

OUT_OF_SCOPE = [
    r'^/cards(/|$)', r'^/sandbox/cards/',  # cards
    r'^/invitations(/|$)',  # invitations
    r'^/discoveries$',  # discoveries
    r'^/receiver/',  # receiver look-ups
    r'^/crypto/estimate-withdrawal-fee$',  # crypto fee estimates
    r'/kyc-link$',  # KYC links
]
METHODS = ['get', 'post', 'put', 'patch', 'delete']

paths = yaml.safe_load(open(sys.argv[1]))['paths']
out = [
    {'method': method.upper(), 'path': path, 'operationId': op['operationId']}
    for path, ops in paths.items()
    if not any(re.search(p, path) for p in OUT_OF_SCOPE)
    for method, op in ops.items()
    if method in METHODS
]
json.dump(out, open('test/http/reference-operations.json', 'w'), indent=1)
print(len(out), 'operations')
