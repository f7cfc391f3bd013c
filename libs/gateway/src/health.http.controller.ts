import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { ReadinessCheck, Registry, readinessReport } from '@funnel/platform';
import { METRICS_REGISTRY, READINESS_CHECKS } from './gateway.tokens';

@Controller('health')
export class HealthHttpController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[]) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const report = await readinessReport(this.checks);
    await reply.status(report.ready ? 200 : 503).send(report);
  }
}

@Controller('metrics')
export class MetricsHttpController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
