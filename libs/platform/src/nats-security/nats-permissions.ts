import type { NatsLayout } from './nats-apps';
import { jetStreamWriterPublishAllow } from './jetstream-permissions';

/** One NATS user's permissions, in nats-server's configuration shape. */
export interface NatsPermissions {
  publish: { allow: string[]; deny?: string[] };
  subscribe: { allow: string[] };
  /** Publishing to the reply subject of a request it received: at most `max` messages within `expires`. */
  allow_responses?: { max: number; expires: string };
}

/**
 * How many messages a service may send back to one request, and for how long. Replies go out in
 * chunks below the server's max payload (up to about a hundred for the largest answers), after an
 * empty "upload to" reply when the request itself comes in chunks: a large bound, still finite.
 */
export const SERVICE_RESPONSES = { max: 10_000, expires: '2m' } as const;

/**
 * The least each app needs, and nothing else:
 * - the gateway publishes requests under every service's root (never its events) and subscribes
 *   only to its own reply inboxes and to the services' events;
 * - a service subscribes to its own root (its queue group), publishes only its events, and answers
 *   the requests it received (`allow_responses`); it calls another service only on the subjects its
 *   `calls` name, and receives those replies on its own inboxes.
 */
export function natsPermissions(layout: NatsLayout): Record<string, NatsPermissions> {
  const roots = layout.services.map((service) => service.subjectRoot);
  const permissions: Record<string, NatsPermissions> = {
    [layout.gateway]: {
      publish: {
        allow: roots.map((root) => `${root}.>`),
        deny: layout.services.flatMap((service) => [
          `${service.subjectRoot}.events.>`,
          ...(service.internalSubjects ?? []),
          ...(service.jetstream?.streams ?? []).flatMap(({ subjectPrefix }) => (subjectPrefix ? [`${subjectPrefix}.>`] : [])),
        ]),
      },
      subscribe: { allow: [`${layout.gatewayInboxPrefix}.>`, ...roots.map((root) => `${root}.events.>`)] },
    },
  };
  for (const { app, subjectRoot, calls, jetstream } of layout.services) {
    const wildcard = calls?.subjects.find((subject) => /(^|\.)[*>](\.|$)/.test(subject));
    if (wildcard) throw new Error(`${app} may call named subjects only, not ${wildcard}`);
    permissions[app] = {
      publish: { allow: [`${subjectRoot}.events.>`, ...(calls?.subjects ?? []), ...(jetstream ? jetStreamWriterPublishAllow(jetstream) : [])] },
      subscribe: {
        allow: [
          `${subjectRoot}.>`,
          ...[calls?.inboxPrefix, jetstream?.inboxPrefix].filter((prefix, i, all) => prefix && all.indexOf(prefix) === i).map((prefix) => `${prefix}.>`),
        ],
      },
      allow_responses: { ...SERVICE_RESPONSES },
    };
  }
  for (const { app, calls, jetstream, streamPublishes, receives } of layout.clients ?? []) {
    const wildcard = calls.subjects.find((subject) => /(^|\.)[*>](\.|$)/.test(subject));
    if (wildcard) throw new Error(`${app} may call named subjects only, not ${wildcard}`);
    permissions[app] = {
      publish: { allow: [...calls.subjects, ...(streamPublishes ?? []), ...(jetstream ? jetStreamWriterPublishAllow(jetstream) : [])] },
      subscribe: { allow: [`${calls.inboxPrefix}.>`, ...(receives ?? [])] },
    };
  }
  return permissions;
}
