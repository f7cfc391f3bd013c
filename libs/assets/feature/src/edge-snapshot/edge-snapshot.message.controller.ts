import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ASSETS_EDGE_SNAPSHOT_SUBJECT, EdgeSnapshotPage, RpcRequest } from '@funnel/contracts';
import { EdgeSnapshotQuery } from './edge-snapshot.query';

/**
 * `assets.internal.edgesnapshot`: a cross-account read with no caller context, for the tracking edge
 * only. The gateway is denied the subject (FUNNEL_NATS_LAYOUT's internalSubjects) and has no route to
 * it; in standalone mode only in-process callers reach it.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class EdgeSnapshotMessageController {
  constructor(private readonly query: EdgeSnapshotQuery) {}

  @MessagePattern(ASSETS_EDGE_SNAPSHOT_SUBJECT)
  page(@Payload() request: RpcRequest<unknown>): Promise<EdgeSnapshotPage> {
    return this.query.page(request?.body);
  }
}
