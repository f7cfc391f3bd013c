/** Array items stringified in one slice. */
const ITEMS_PER_SLICE = 1000;

/**
 * `JSON.stringify(value)` (plain data: what a job payload is) as pieces whose concatenation is that
 * text, stringifying arrays `ITEMS_PER_SLICE` items at a time and awaiting `between()` between two
 * slices: a 10,000-row payload of several MB is not stringified in one turn of the event loop.
 */
export async function jsonInSlices(value: unknown, between: () => Promise<void>): Promise<string[]> {
  const pieces: string[] = [];
  let piece = '';
  // Small texts gather into one piece; a piece is closed at each array slice.
  const slice = async (text: string) => {
    piece += text;
  };
  const close = () => {
    if (piece) pieces.push(piece);
    piece = '';
  };
  const write = async (item: unknown): Promise<boolean> => {
    if (Array.isArray(item) && item.length > ITEMS_PER_SLICE) {
      await slice('[');
      for (let from = 0; from < item.length; from += ITEMS_PER_SLICE) {
        const text = JSON.stringify(item.slice(from, from + ITEMS_PER_SLICE));
        await slice(`${from > 0 ? ',' : ''}${text.slice(1, -1)}`);
        close();
        if (from + ITEMS_PER_SLICE < item.length) await between();
      }
      await slice(']');
      return true;
    }
    if (item !== null && typeof item === 'object' && !Array.isArray(item) && typeof (item as { toJSON?: unknown }).toJSON !== 'function') {
      await slice('{');
      let first = true;
      for (const [key, child] of Object.entries(item)) {
        if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
        await slice(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        await write(child);
      }
      await slice('}');
      return true;
    }
    const text = JSON.stringify(item);
    if (text === undefined) return false;
    await slice(text);
    return true;
  };
  if (!(await write(value))) throw new TypeError('a job payload must be JSON data');
  close();
  return pieces;
}
