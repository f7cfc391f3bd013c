import type { KindActionSet } from '../asset-actions';
import { SimulateOptions, simulateFunnel } from './funnel-simulate';

/** A funnel's own routes: `simulate/` (assets:read), the routing engine's walk of a visitor through it. */
export function funnelActions(options: SimulateOptions): KindActionSet {
  return {
    simulate: (kind, context, { body }, assets) => simulateFunnel(kind, context, body, assets, options),
  };
}
