import type { FactoryProvider } from '@nestjs/common';
import type { VisitorResolverOptions } from './visitor-config';
import { VisitorResolver } from './visitor-resolver';

/** The VisitorResolver as a Nest provider: its databases are opened (async) while the module starts. */
export function visitorResolverProvider(options: VisitorResolverOptions): FactoryProvider<Promise<VisitorResolver>> {
  return { provide: VisitorResolver, useFactory: () => VisitorResolver.open(options) };
}
