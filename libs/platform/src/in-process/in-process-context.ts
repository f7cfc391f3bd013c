import { BaseRpcContext } from '@nestjs/microservices';

type InProcessContextArgs = [pattern: string];

/** The `@Ctx()` of in-process handlers; like NatsContext, its first argument is the subject. */
export class InProcessContext extends BaseRpcContext<InProcessContextArgs> {
  getPattern(): string {
    return this.args[0];
  }
}
