import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { HIT_SINK, type HitSink } from './hit-sink';

/** Closes the sink at shutdown, after the routes stopped: the hits waiting are written first. */
class HitSinkCloser implements OnApplicationShutdown {
  constructor(@Inject(HIT_SINK) private readonly sink: HitSink) {}

  async onApplicationShutdown(): Promise<void> {
    await this.sink.close();
  }
}

/**
 * The edge's hit hand-off as a Nest module: provides HIT_SINK (inject it with `@Inject(HIT_SINK)`)
 * and closes it at shutdown. The sink comes from the mode: jetStreamHitSink (distributed) or
 * inboxHitSink (standalone).
 */
@Module({})
export class EdgeHitsModule {
  static forRoot(sink: HitSink): DynamicModule {
    return { module: EdgeHitsModule, providers: [{ provide: HIT_SINK, useValue: sink }, HitSinkCloser], exports: [HIT_SINK] };
  }
}
