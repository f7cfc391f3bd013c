import type { Hit } from '@funnel/reporting-domain';
import { GroupCommit, type GroupCommitOptions } from '@funnel/platform';
import type { HitBatchWriter, HitSink } from './hit-sink';

/** A HitSink whose concurrent `record` calls share the writer's durable writes (group commit). */
export class GroupCommitHitSink implements HitSink {
  private readonly group: GroupCommit<Hit>;

  constructor(
    private readonly writer: HitBatchWriter,
    options: GroupCommitOptions = {},
  ) {
    this.group = new GroupCommit((hits) => writer.write(hits), options);
  }

  record(hits: readonly Hit[]): Promise<void> {
    return this.group.add(hits);
  }

  /** Durable writes done so far (each holding the hits of one or more `record` calls). */
  get writes(): number {
    return this.group.writes;
  }

  /** Hits recorded and not yet durable. */
  get pending(): number {
    return this.group.pending;
  }

  async close(): Promise<void> {
    await this.group.close();
    await this.writer.close?.();
  }
}
