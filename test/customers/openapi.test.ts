import { describe, expect, it } from 'vitest';
import { api } from '../support/api';

describe('/openapi.json', () => {
  it('documents every endpoint of customers, accounts, KYC, documents, bulk import, UMA providers and funding', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const ops = Object.entries(res.body.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    for (const expected of [
      'POST /customers createCustomer',
      'GET /customers listCustomers',
      'GET /customers/{customerId} getCustomerById',
      'PATCH /customers/{customerId} updateCustomerById',
      'DELETE /customers/{customerId} deleteCustomerById',
      'GET /customers/internal-accounts listCustomerInternalAccounts',
      'GET /platform/internal-accounts listPlatformInternalAccounts',
      'POST /customers/external-accounts createCustomerExternalAccount',
      'GET /customers/external-accounts listCustomerExternalAccounts',
      'GET /customers/external-accounts/{externalAccountId} getCustomerExternalAccountById',
      'DELETE /customers/external-accounts/{externalAccountId} deleteCustomerExternalAccountById',
      'POST /platform/external-accounts createPlatformExternalAccount',
      'GET /platform/external-accounts listPlatformExternalAccounts',
      'GET /platform/external-accounts/{externalAccountId} getPlatformExternalAccountById',
      'DELETE /platform/external-accounts/{externalAccountId} deletePlatformExternalAccountById',
      'POST /beneficial-owners createBeneficialOwner',
      'GET /beneficial-owners listBeneficialOwners',
      'GET /beneficial-owners/{beneficialOwnerId} getBeneficialOwner',
      'PATCH /beneficial-owners/{beneficialOwnerId} updateBeneficialOwner',
      'POST /verifications createVerification',
      'GET /verifications listVerifications',
      'GET /verifications/{verificationId} getVerification',
      'POST /documents uploadDocument',
      'GET /documents listDocuments',
      'GET /documents/{documentId} getDocument',
      'DELETE /documents/{documentId} deleteDocument',
      'POST /customers/bulk/csv uploadCustomersCsv',
      'GET /customers/bulk/jobs/{jobId} getBulkCustomerImportJob',
      'GET /uma-providers getAvailableUmaProviders',
      'POST /operator/uma-providers loadUmaProviders',
      'POST /sandbox/internal-accounts/{accountId}/fund sandboxFundInternalAccount',
    ]) {
      expect(ops).toContain(expected);
    }
    const schemas = res.body.components.schemas;
    for (const name of [
      'IndividualCustomer',
      'BusinessCustomer',
      'InternalAccount',
      'ExternalAccount',
      'BeneficialOwner',
      'Verification',
      'Document',
      'BulkCustomerImportJob',
      'UmaProvider',
      'UmaProviderListResponse',
    ]) {
      expect(schemas, name).toHaveProperty(name);
    }
    const uma = res.body.paths['/uma-providers'].get.parameters.map((x: any) => x.name);
    expect(uma).toEqual(['countryCode', 'currencyCode', 'hasBlockedProviders', 'limit', 'cursor', 'sortOrder']);
    expect(res.body.paths['/documents'].post.requestBody.content).toHaveProperty('multipart/form-data');
  });

  it('describes the bulk import upload: a multipart `file` whose description names every column the importer reads', async () => {
    const res = await api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const body = res.body.paths['/customers/bulk/csv'].post.requestBody;
    expect(body.required).toBe(true);
    expect(body.content['multipart/form-data'].schema).toEqual({ $ref: '#/components/schemas/BulkCustomerCsvUpload' });
    const form = res.body.components.schemas.BulkCustomerCsvUpload;
    expect(form.required).toEqual(['file']);
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary', contentMediaType: 'text/csv' });
    const description: string = form.properties.file.description;
    expect(description).toContain('Required columns: umaAddress, platformCustomerId, customerType');
    for (const column of [
      'fullName',
      'birthDate',
      'email',
      'addressLine1',
      'addressLine2',
      'postalCode',
      'businessLegalName',
      'businessTaxId',
    ])
      expect(description).toContain(column);
  });
});
