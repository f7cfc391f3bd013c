import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Doc } from '../read-store.port';

/** A find copies at most this many documents in one turn of the event loop... */
const COPY_SLICE_DOCUMENTS = 500;

/** ...and for at most this long (a slice of large documents, 60 kB funnels, ends sooner). */
const COPY_SLICE_MS = 20;

/** `docs` copied in order, yielding to the event loop between slices (none for an answer of one slice). */
export async function copyInSlices(docs: Doc[], copy: (doc: Doc) => Doc): Promise<Doc[]> {
  const copies: Doc[] = new Array<Doc>(docs.length);
  let sliceStart = performance.now();
  let inSlice = 0;
  for (let i = 0; i < docs.length; i++) {
    if (inSlice === COPY_SLICE_DOCUMENTS || (inSlice % 16 === 15 && performance.now() - sliceStart > COPY_SLICE_MS)) {
      await yieldToEventLoop();
      sliceStart = performance.now();
      inSlice = 0;
    }
    copies[i] = copy(docs[i]);
    inSlice++;
  }
  return copies;
}
