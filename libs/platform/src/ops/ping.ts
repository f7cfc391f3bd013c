import { randomUUID } from 'node:crypto';
import { Controller, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import type { ServiceClient } from '../rpc/service-client';
import type { ReadinessCheck } from './readiness';

/** The subject every service answers to show it is up: `<service>.ping` (e.g. `assets.ping`). */
export function pingSubject(service: string): string {
  return `${service}.ping`;
}

export interface PingReply {
  service: string;
  status: 'ok';
}

/** A controller answering `<service>.ping`; add it to a service's module next to its own controllers. */
export function pingController(service: string): Type<unknown> {
  const reply: PingReply = { service, status: 'ok' };
  @Controller()
  class PingController {
    @MessagePattern(pingSubject(service))
    ping(): PingReply {
      return reply;
    }
  }
  return PingController;
}

export interface ServicePingCheckOptions {
  /** How long an answer (or its absence) stands before the next probe pings again. */
  cacheMs?: number;
  /** Milliseconds since the epoch; tests inject one. */
  clock?: () => number;
}

export const SERVICE_PING_CACHE_MS = 1500;

/**
 * A readiness check that passes while `<service>.ping` is answered. Probes come often and from
 * several kubelets, so one result stands for `cacheMs` and concurrent checks share one ping. A ping
 * that takes longer than the probe's own timeout counts as not ready there, and its answer still
 * sets the cache when it comes (the client's RPC timeout bounds it).
 */
export function servicePingCheck(client: ServiceClient, service: string, options: ServicePingCheckOptions = {}): ReadinessCheck {
  const cacheMs = options.cacheMs ?? SERVICE_PING_CACHE_MS;
  const clock = options.clock ?? Date.now;
  const subject = pingSubject(service);
  let answered = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<boolean> | undefined;

  const ping = async (): Promise<boolean> => {
    const context = { accountId: '', userId: '', permissions: [], correlationId: randomUUID() };
    try {
      const reply = await client.request<PingReply>(subject, { context, body: {} });
      return reply?.status === 'ok';
    } catch {
      return false;
    }
  };

  return {
    name: service,
    check: () => {
      if (clock() - checkedAt < cacheMs) return answered;
      inFlight ??= ping().then((result) => {
        answered = result;
        checkedAt = clock();
        inFlight = undefined;
        return result;
      });
      return inFlight;
    },
  };
}
