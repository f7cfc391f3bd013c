import { POSTBACK_TYPES, TRACKING_FIELD_NAME, TRACKING_FIELD_SLOTS, TRACKING_FIELD_VALUE_MAX, type TrackingField } from '@funnel/contracts';
import type { AssetRecord } from '../asset-events';
import type { FieldProblem, KindRules } from './kind-rules';
import { isHttpUrlWithTokens } from './url-rules';

const SLOTS = new Set(TRACKING_FIELD_SLOTS);
const FIELD_STATUSES = ['active', 'archived'];
const URL_POSTBACKS: ReadonlySet<string> = new Set<(typeof POSTBACK_TYPES)[number]>(['postbackUrl', 'pixelUrl']);

function slotsOf(record: AssetRecord): Record<string, Partial<TrackingField>> {
  return (record.trackingFieldSlots ?? {}) as Record<string, Partial<TrackingField>>;
}

/** Traffic sources: tracking field slots (`campaign`, `external`, `c1`..`c20`) with unique names, and the postback's URL. */
export const trafficSourceRules: KindRules = {
  check(record) {
    const problems: FieldProblem[] = [];
    const names = new Map<string, string>();
    for (const [slot, field] of Object.entries(slotsOf(record))) {
      const path = `trackingFieldSlots.${slot}`;
      if (!SLOTS.has(slot)) {
        problems.push({ field: path, code: 'unknownSlot', message: `${path} is not a slot; the slots are campaign, external and c1 to c20` });
        continue;
      }
      if (field === null || typeof field !== 'object' || Array.isArray(field)) {
        problems.push({ field: path, code: 'isObject', message: `${path} must be an object { name, value, status }` });
        continue;
      }
      if (typeof field.name !== 'string' || !TRACKING_FIELD_NAME.test(field.name)) {
        problems.push({ field: `${path}.name`, code: 'pattern', message: `${path}.name is required: 1 to 64 letters, digits, underscores, spaces or hyphens` });
      } else if (names.has(field.name)) {
        problems.push({ field: `${path}.name`, code: 'unique', message: `${path}.name ${field.name} is already the name of ${names.get(field.name)}` });
      } else {
        names.set(field.name, path);
      }
      if (field.value !== undefined && (typeof field.value !== 'string' || field.value.length > TRACKING_FIELD_VALUE_MAX)) {
        problems.push({
          field: `${path}.value`,
          code: 'maxLength',
          message: `${path}.value must be a string of at most ${TRACKING_FIELD_VALUE_MAX} characters`,
        });
      }
      if (field.status !== undefined && !FIELD_STATUSES.includes(field.status as string)) {
        problems.push({ field: `${path}.status`, code: 'isIn', message: `${path}.status must be active or archived` });
      }
    }
    const postback = record.postback as { postbackType: string; postbackCode: string };
    if (URL_POSTBACKS.has(postback.postbackType) && !isHttpUrlWithTokens(postback.postbackCode, 'anywhere')) {
      problems.push({
        field: 'postback.postbackCode',
        code: 'isUrl',
        message: `postback.postbackCode must be an absolute http(s) URL (it may hold {tokens}) when postbackType is ${postback.postbackType}`,
      });
    }
    return problems;
  },

  /** Only the known parts of each field are kept; `previousName` is the name before the last rename. */
  normalize(record, current) {
    const before = current ? slotsOf(current) : {};
    const slots: Record<string, TrackingField> = {};
    for (const [slot, field] of Object.entries(slotsOf(record))) {
      const old = before[slot];
      const name = field.name as string;
      const renamed = old?.name !== undefined && old.name !== name;
      slots[slot] = {
        name,
        value: field.value ?? '',
        previousName: renamed ? (old.name as string) : (old?.previousName ?? ''),
        status: field.status ?? 'active',
      };
    }
    return { ...record, trackingFieldSlots: slots };
  },
};
