/**
 * Values computed from a text, remembered for the `capacity` most recently used texts (a Map in use
 * order: a hit moves its entry to the end, the first entry is the least recently used). For what
 * visitors repeat: User-Agents, Accept-Language headers.
 */
export class RecentValues<V> {
  private readonly recent = new Map<string, V>();

  constructor(
    private readonly capacity: number,
    private readonly compute: (text: string) => V,
  ) {}

  get(text: string): V {
    const known = this.recent.get(text);
    if (known !== undefined) {
      this.recent.delete(text);
      this.recent.set(text, known);
      return known;
    }
    const value = this.compute(text);
    if (this.capacity > 0) {
      if (this.recent.size >= this.capacity) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(text, value);
    }
    return value;
  }

  get size(): number {
    return this.recent.size;
  }
}
