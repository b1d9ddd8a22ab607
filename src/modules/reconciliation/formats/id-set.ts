// The ids seen in one file, exact, in typed arrays: a Set of a million strings cost more in garbage collection
// than the rest of the parse, and each sliced id kept its whole decoded chunk alive.

import { copyString } from './values.ts';

const EMPTY = -1;

/**
 * An exact set of strings: ids of Latin-1 characters (nearly all) stored a byte a character in one growing array
 * and found by an open-addressing table; other ids in a plain Set.
 */
export class IdSet {
  private chars = new Uint8Array(1 << 16);
  private readonly wide = new Set<string>();
  private used = 0;
  /** Per entry: where its units start (the next entry's start is its end). */
  private starts = new Int32Array(1 << 12);
  private count = 0;
  /** Pairs (entry, hash): the hash beside the entry spares a second memory read per probe. */
  private slots = new Int32Array(2 << 13).fill(EMPTY);

  get size(): number {
    return this.count + this.wide.size;
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    const n = id.length;
    let h = 0x811c9dc5;
    let any = 0;
    for (let i = 0; i < n; i++) {
      const c = id.charCodeAt(i);
      any |= c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    if (any > 0xff) return this.addWide(id);
    // FNV-1a's low bits (the slot) barely change between ids that differ in their last characters: mix them.
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = slots[slot << 1];
      if (e === EMPTY) {
        this.insert(id, h, slot);
        return true;
      }
      if (slots[(slot << 1) + 1] === h && this.equals(e, id)) return false;
    }
  }

  private addWide(id: string): boolean {
    if (this.wide.has(id)) return false;
    this.wide.add(copyString(id));
    return true;
  }

  private equals(e: number, id: string): boolean {
    const start = this.starts[e];
    const end = e + 1 < this.count ? this.starts[e + 1] : this.used;
    if (end - start !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (this.chars[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private insert(id: string, h: number, slot: number): void {
    if (this.used + id.length > this.chars.length) this.chars = grow(this.chars, this.used + id.length);
    const chars = this.chars;
    const used = this.used;
    for (let i = 0; i < id.length; i++) chars[used + i] = id.charCodeAt(i);
    if (this.count === this.starts.length) this.starts = grow(this.starts, this.count + 1);
    this.starts[this.count] = this.used;
    this.slots[slot << 1] = this.count;
    this.slots[(slot << 1) + 1] = h;
    this.used += id.length;
    this.count++;
    if (this.count * 4 > this.slots.length) this.rehash();
  }

  /** Doubles the table (load kept at most one half). */
  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2).fill(EMPTY);
    const mask = (slots.length >> 1) - 1;
    for (let k = 0; k < old.length; k += 2) {
      if (old[k] === EMPTY) continue;
      let slot = old[k + 1] & mask;
      while (slots[slot << 1] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot << 1] = old[k];
      slots[(slot << 1) + 1] = old[k + 1];
    }
    this.slots = slots;
  }
}

function grow<T extends Uint8Array | Int32Array>(a: T, need: number): T {
  let size = a.length * 2;
  while (size < need) size *= 2;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}
