/**
 * A Map with a size cap that drops the least recently used entry: every in-memory cache or table
 * whose keys a caller can choose (key ids, client addresses, hosted ids) is one of these, so no
 * request stream grows the heap without bound. Map keeps insertion order; a hit re-inserts.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError('BoundedCache needs a positive size');
  }
  get size() {
    return this.map.size;
  }
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
    return this;
  }
  delete(key: K): boolean {
    return this.map.delete(key);
  }
  clear() {
    this.map.clear();
  }
}
