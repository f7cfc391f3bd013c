import { DynamicModule, Module } from '@nestjs/common';
import type { ServiceClient } from '@funnel/platform';
import { DEFAULT_QUERY_TIMEOUT_MS, warehouseRunner, type HitWarehouse } from './engines/warehouse';
import { ReportingQueriesMessageController } from './reporting-queries.message.controller';
import { assetNamesOverBus } from './service/asset-names';
import { ReportQueries, type HitsById, type VisitorDays } from './service/report-queries';

export interface ReportingQueriesOptions {
  /** The hit store's read handle. */
  warehouse: HitWarehouse;
  /** The service bus to assets-service (names of assets, traffic sources' tracking fields). */
  assets: ServiceClient;
  /** The hit store's lookup by id (`getHits`), so the explorer does not scan for a hit id. */
  hitsById?: HitsById;
  /** The hit store's visitor index (`visitorDays`), so the explorer reads only the days a visitor was seen. */
  visitorDays?: VisitorDays;
  /** `REPORTING_QUERY_TIMEOUT_MS` (default 20 s). */
  timeoutMs?: number;
}

/** The reporting queries: attributes, drilldown, raw events and explorer over the hit warehouse. */
@Module({})
export class ReportingQueriesModule {
  static forRoot(options: ReportingQueriesOptions): DynamicModule {
    const queries = new ReportQueries(
      warehouseRunner(options.warehouse, options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS),
      assetNamesOverBus(options.assets),
      options.hitsById,
      options.visitorDays,
    );
    return {
      module: ReportingQueriesModule,
      controllers: [ReportingQueriesMessageController],
      providers: [{ provide: ReportQueries, useValue: queries }],
    };
  }
}
