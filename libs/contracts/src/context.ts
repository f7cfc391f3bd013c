/** Who is calling: set by the gateway from verified credentials, never by clients. */
export interface CallerContext {
  accountId: string;
  userId: string;
  permissions: string[];
  correlationId: string;
  /** Set when the credential is an API key. */
  keyId?: string;
}

/** The payload of every gateway-to-service request: `{ context, body }`. */
export interface RpcRequest<TBody = unknown> {
  context: CallerContext;
  body: TBody;
}
