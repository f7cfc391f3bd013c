import {
  BillingErrorCodes,
  CheckDomainResponse,
  DomainInfo,
  DomainStatus,
  DomainSummary,
  EdgeSslStatus,
  EdgeStatus,
  OwnershipVerification,
  ServiceError,
} from '@funnel/contracts';
import { DomainName } from './domain-name';
import { nextDomainStatus } from './domain-status';

/** The edge provider's view of a hostname, as provisioning and refreshes report it. */
export interface EdgeView {
  edgeId: string;
  status: EdgeStatus;
  sslStatus: EdgeSslStatus;
  /** The certificate-validation TXT record ('' when the edge does not validate by TXT). */
  sslTxtName: string;
  sslTxtValue: string;
  /** The TXT record that proves the account owns the domain. */
  ownership: OwnershipVerification;
  ownershipVerified: boolean;
  verificationErrors: string[];
}

/** One custom domain of an account, as its stream tells it. */
export interface DomainRecord {
  id: string;
  accountId: string;
  domain: string;
  subdomain: string;
  rootDomain: string;
  /** ISO 8601. */
  createdAt: string;
  status: DomainStatus;
  edge: EdgeView;
  lastCheck?: CheckDomainResponse;
}

/** Stored event type names (explicit strings). */
export interface CustomDomainRegistered {
  type: 'CustomDomainRegistered';
  data: { domainId: string; accountId: string; domain: string; subdomain: string; rootDomain: string; registeredAt: string; edge: EdgeView };
}
export interface CustomDomainRefreshed {
  type: 'CustomDomainRefreshed';
  data: { domainId: string; accountId: string; domain: string; refreshedAt: string; edge: EdgeView; check: CheckDomainResponse; status: DomainStatus };
}
export interface CustomDomainDeleted {
  type: 'CustomDomainDeleted';
  data: { domainId: string; accountId: string; domain: string; deletedAt: string; edgeId: string };
}
export type CustomDomainEvent = CustomDomainRegistered | CustomDomainRefreshed | CustomDomainDeleted;

export const CUSTOM_DOMAIN_EVENT_SCHEMA_VERSION = 1;

export const CUSTOM_DOMAIN_EVENT_TYPES: readonly CustomDomainEvent['type'][] = ['CustomDomainRegistered', 'CustomDomainRefreshed', 'CustomDomainDeleted'];

export function asCustomDomainEvent(type: string, data: Record<string, unknown>): CustomDomainEvent | undefined {
  return (CUSTOM_DOMAIN_EVENT_TYPES as readonly string[]).includes(type) ? ({ type, data } as CustomDomainEvent) : undefined;
}

/**
 * Streams: one per domain of an account, `billingdomain-<accountId>.<domain>` (two accounts never
 * share one), and the global claim of a domain name across accounts, `domainclaim-<domain>`.
 */
export const DomainStreams = {
  domain: (accountId: string, domain: string) => `billingdomain-${accountId}.${domain}`,
  claim: (domain: string) => `domainclaim-${domain}`,
  prefixes: ['billingdomain-'],
};

/** A registered (live) domain, or none: never registered, or deleted. */
export interface CustomDomainState {
  record?: DomainRecord;
}

export const initialCustomDomainState = (): CustomDomainState => ({});

export type CustomDomainCommand =
  | { type: 'RegisterDomain'; accountId: string; domainId: string; name: DomainName; edge: EdgeView; at: string }
  | { type: 'RecordDomainRefresh'; accountId: string; edge: EdgeView; check: CheckDomainResponse; at: string }
  | { type: 'DeleteDomain'; accountId: string; at: string };

export function domainNotFound(domain: string): ServiceError {
  return ServiceError.notFound(BillingErrorCodes.NOT_FOUND, `no custom domain ${domain} in this account`);
}

export function domainExists(domain: string): ServiceError {
  return ServiceError.conflict(BillingErrorCodes.DOMAIN_EXISTS, `${domain} is already a custom domain of this account`);
}

/** Decides a domain command on its stream's state. Pure: the time and the edge's answers come with the command. */
export function decideCustomDomain(command: CustomDomainCommand, state: CustomDomainState, domain: string): CustomDomainEvent[] {
  switch (command.type) {
    case 'RegisterDomain': {
      if (state.record) throw domainExists(domain);
      const { name } = command;
      return [
        {
          type: 'CustomDomainRegistered',
          data: {
            domainId: command.domainId,
            accountId: command.accountId,
            domain: name.domain,
            subdomain: name.subdomain,
            rootDomain: name.rootDomain,
            registeredAt: command.at,
            edge: command.edge,
          },
        },
      ];
    }
    case 'RecordDomainRefresh': {
      const record = state.record;
      if (!record) throw domainNotFound(domain);
      const status = nextDomainStatus(record.status, { ownershipVerified: command.edge.ownershipVerified, found: command.check.found });
      return [
        {
          type: 'CustomDomainRefreshed',
          data: {
            domainId: record.id,
            accountId: record.accountId,
            domain: record.domain,
            refreshedAt: command.at,
            edge: command.edge,
            check: command.check,
            status,
          },
        },
      ];
    }
    case 'DeleteDomain': {
      const record = state.record;
      if (!record) throw domainNotFound(domain);
      return [
        {
          type: 'CustomDomainDeleted',
          data: { domainId: record.id, accountId: record.accountId, domain: record.domain, deletedAt: command.at, edgeId: record.edge.edgeId },
        },
      ];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

export function evolveCustomDomain(state: CustomDomainState, event: CustomDomainEvent): CustomDomainState {
  switch (event.type) {
    case 'CustomDomainRegistered': {
      const { domainId, accountId, domain, subdomain, rootDomain, registeredAt, edge } = event.data;
      return { record: { id: domainId, accountId, domain, subdomain, rootDomain, createdAt: registeredAt, status: 'pending', edge } };
    }
    case 'CustomDomainRefreshed':
      return state.record ? { record: { ...state.record, edge: event.data.edge, status: event.data.status, lastCheck: event.data.check } } : state;
    case 'CustomDomainDeleted':
      return {};
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

/** The DNS records to add, in words: the CNAME to the edge and the ownership TXT record. */
export function dnsInstructions(record: DomainRecord, cnameTarget: string): string {
  const { ownership, sslTxtName, sslTxtValue } = record.edge;
  const parts = [`Add a CNAME record ${record.domain} -> ${cnameTarget}`, `a TXT record ${ownership.name} = ${ownership.value}`];
  if (sslTxtName) parts.push(`and for the certificate a TXT record ${sslTxtName} = ${sslTxtValue}`);
  return `${parts.join(', ')}; then refresh the domain to verify it.`;
}

export function domainInfoOf(record: DomainRecord): DomainInfo {
  const { edge } = record;
  return {
    id: record.id,
    domain: record.domain,
    owner: record.accountId,
    created_at: record.createdAt,
    edge_id: edge.edgeId,
    status: record.status,
    ssl: { status: edge.sslStatus, txt_name: edge.sslTxtName, txt_value: edge.sslTxtValue },
    ownership_verification: { ...edge.ownership },
    verification_errors: [...edge.verificationErrors],
    parsed: { subdomain: record.subdomain, root_domain: record.rootDomain },
  };
}

export function domainSummaryOf(record: DomainRecord): DomainSummary {
  return {
    id: record.id,
    domain: record.domain,
    edge_id: record.edge.edgeId,
    status: record.status,
    ssl_status: record.edge.sslStatus,
    verification_errors: [...record.edge.verificationErrors],
    created_at: record.createdAt,
  };
}
