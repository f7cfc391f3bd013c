// Each node type's family: what it precomputes and what it does (see each module).
import type { FunnelNodeType } from '@funnel/assets-domain';
import type { NodeFamily } from '../compile/graph';
import { aiFamily } from './ai';
import { conditionFamily } from './condition';
import { externalUrlFamily } from './external-url';
import { logicFamily } from './logic';
import { middlewareFamily } from './middleware';
import { pageGroupFamily } from './page-group';
import { visitorTagFamily, webhookFamily } from './pass-through';
import { rotatorFamily } from './rotator';

export const NODE_FAMILIES: Readonly<Record<FunnelNodeType, NodeFamily<any>>> = {
  root: rotatorFamily,
  rotator: rotatorFamily,
  landerGroup: pageGroupFamily,
  offerGroup: pageGroupFamily,
  externalUrl: externalUrlFamily,
  condition: conditionFamily,
  logic: logicFamily,
  visitorTag: visitorTagFamily,
  middleware: middlewareFamily,
  webhook: webhookFamily,
  ai: aiFamily,
};
