import { Inject, Injectable } from '@nestjs/common';
import {
  MIDDLEWARE_CONFIG_KIND,
  type MiddlewareDestinationSecrets,
  type MiddlewareSecretsAnswer,
  type MiddlewareSecretsRequest,
  ServiceError,
  isValidAssetId,
} from '@funnel/contracts';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { SecretCipher, isEncryptedSecret } from '@funnel/assets-domain';
import { SECRET_CIPHER } from '../assets.tokens';
import { assetDocumentId, assetsCollection } from '../asset-documents';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `assets.internal.middlewaresecrets`: a middleware config's destination secrets (basic-auth password,
 * HMAC secret) in clear, and those of a funnel node's destination overrides, read from the read model
 * and decrypted. For the tracking edge only (its snapshot has no secrets); the answer is never logged.
 */
@Injectable()
export class MiddlewareSecretsQuery {
  private readonly collection = assetsCollection(this.readStore);

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(SECRET_CIPHER) private readonly secrets: SecretCipher,
  ) {}

  async secretsOf(body: unknown): Promise<MiddlewareSecretsAnswer> {
    const request = parseRequest(body);
    const config = await this.record(MIDDLEWARE_CONFIG_KIND.kind, request.accountId, request.idMiddlewareConfig);
    const answer: MiddlewareSecretsAnswer = { config: config ? this.destinationSecrets(config['destination']) : null, node: null };
    if (request.idFunnel !== undefined && request.idNode !== undefined) {
      const funnel = await this.record('funnel', request.accountId, request.idFunnel);
      const nodes = funnel?.['nodes'];
      const node = Array.isArray(nodes) ? nodes.find((candidate) => isObject(candidate) && candidate['idNode'] === request.idNode) : undefined;
      const params = isObject(node) ? node['nodeMiddlewareRefParams'] : undefined;
      const overrides = isObject(params) ? params['destinationOverrides'] : undefined;
      if (isObject(overrides)) answer.node = this.destinationSecrets(overrides);
    }
    return answer;
  }

  private async record(kind: string, accountId: string, id: string): Promise<Record<string, unknown> | undefined> {
    const doc = await this.collection.findOne({ _id: assetDocumentId(kind, accountId, id) });
    return doc && doc.status !== 'deleted' ? (doc.record as Record<string, unknown>) : undefined;
  }

  private destinationSecrets(destination: unknown): MiddlewareDestinationSecrets {
    const basicAuth = isObject(destination) ? destination['basicAuth'] : undefined;
    const password = isObject(basicAuth) ? basicAuth['password'] : undefined;
    const hmac = isObject(destination) ? destination['hmacSecret'] : undefined;
    return {
      basicAuthPassword: isEncryptedSecret(password) ? this.secrets.decrypt(password) : null,
      hmacSecret: isEncryptedSecret(hmac) ? this.secrets.decrypt(hmac) : null,
    };
  }
}

function parseRequest(body: unknown): MiddlewareSecretsRequest {
  const input = isObject(body) ? body : {};
  const id = (field: string, optional = false): string | undefined => {
    const value = input[field];
    if (value === undefined && optional) return undefined;
    if (typeof value !== 'string' || !isValidAssetId(value)) throw ServiceError.invalidField(field, 'isAssetId', `${field} must be an asset id`);
    return value;
  };
  return {
    accountId: id('accountId')!,
    idMiddlewareConfig: id('idMiddlewareConfig')!,
    idFunnel: id('idFunnel', true),
    idNode: id('idNode', true),
  };
}
