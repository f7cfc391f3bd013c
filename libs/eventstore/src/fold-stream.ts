import type { EventStore } from './event-store.port';

/** A stream's state and the revision it reflects (-1: no stream yet, so an append expects none). */
export interface FoldedStream<S> {
  state: S;
  revision: number;
}

/**
 * Reads a stream and folds it with a decider's `evolve`: each stored event is decoded by `decode`
 * (undefined: an event the decider does not know, skipped), and the answer carries the revision to
 * append at.
 */
export async function foldStream<S, E>(
  eventStore: EventStore,
  stream: string,
  initial: S,
  decode: (type: string, data: Record<string, unknown>) => E | undefined,
  evolve: (state: S, event: E) => S,
): Promise<FoldedStream<S>> {
  let state = initial;
  let revision = -1;
  for (const recorded of await eventStore.readStream(stream)) {
    revision = recorded.revision;
    const event = decode(recorded.type, recorded.data);
    if (event) state = evolve(state, event);
  }
  return { state, revision };
}
