// Traffic sources as entrances read them: active tracking fields, default cost, cost modifier.
import type { CompiledTrafficSource } from './graph';
import type { AssetIndex } from './asset-index';
import { isObject, num, obj, text } from './records';

export function compileTrafficSources(index: AssetIndex): Map<string, CompiledTrafficSource> {
  const sources = new Map<string, CompiledTrafficSource>();
  for (const record of index.records('trafficsource')) {
    const fields: [string, string][] = [];
    for (const [slot, field] of Object.entries(obj(record, 'trackingFieldSlots') ?? {})) {
      if (!isObject(field) || text(field, 'status', 'active') !== 'active') continue;
      const name = text(field, 'name');
      if (name !== '') fields.push([slot, name]);
    }
    const idTrafficSource = text(record, 'idTrafficSource');
    sources.set(idTrafficSource, {
      idTrafficSource,
      name: text(record, 'trafficSourceName'),
      fields,
      slotsByName: new Map(fields.map(([slot, name]) => [name, slot])),
      defaultCost: text(record, 'defaultCost'),
      incomingCostModifier: num(record, 'incomingCostModifier', 100),
    });
  }
  return sources;
}
