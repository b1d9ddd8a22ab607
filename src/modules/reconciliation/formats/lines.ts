// Bytes to physical lines (docs/reconciliation.md, Dialect): chunks may split anywhere, a leading BOM is dropped,
// invalid UTF-8 and a line over 64 KiB refuse the file, and at most one line is ever held.
import { isUtf8 } from 'node:buffer';
import { ReconFileError } from './types.ts';

/** The longest physical line, in bytes, without its LF or CRLF. */
export const maxLineBytes = 65_536;

const LF = 0x0a;
const CR = 0x0d;

export function fileError(message: string, line?: number, field = 'file'): ReconFileError {
  return new ReconFileError('invalid_file', field, message, line);
}

/**
 * Splits a byte stream into lines (LF or CRLF; the CR is dropped) and hands each one, blank ones included,
 * to `onLine` with its 1-based number. A region of whole lines is validated and decoded in one call, so the
 * cost per line is one string slice.
 */
export class LineReader {
  /** Bytes of the line still open at the end of the last chunk (at most one line, its CRLF and a BOM). */
  private readonly carry = Buffer.allocUnsafe(maxLineBytes + 5);
  private carryLength = 0;
  private lineNo = 0;
  /** Whether any byte arrived (an empty body is refused by the caller). */
  sawBytes = false;

  constructor(private readonly onLine: (text: string, line: number) => void) {}

  write(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.sawBytes = true;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    if (this.carryLength > 0) {
      const lf = bytes.indexOf(LF);
      const take = lf < 0 ? bytes.length : lf + 1;
      this.appendCarry(bytes, 0, take, lf >= 0);
      if (lf < 0) return;
      this.emitRegion(this.carry.subarray(0, this.carryLength));
      this.carryLength = 0;
      start = take;
    }
    const last = bytes.lastIndexOf(LF);
    if (last >= start) {
      this.emitRegion(bytes.subarray(start, last + 1));
      start = last + 1;
    }
    if (start < bytes.length) this.appendCarry(bytes, start, bytes.length, false);
  }

  /** Emits the last line when the file does not end with a line break. */
  end(): void {
    if (this.carryLength === 0) return;
    const rest = this.carry.subarray(0, this.carryLength);
    this.carryLength = 0;
    this.emitRegion(rest, true);
  }

  /**
   * Copies bytes of the open line aside, refusing the line once it holds more than the cap and a CR (and a BOM
   * on line 1), and its LF when `complete`: a completed line's exact length is checked on decoding.
   */
  private appendCarry(bytes: Buffer, from: number, to: number, complete: boolean): void {
    const length = this.carryLength + to - from;
    if (length > maxLineBytes + (this.lineNo === 0 ? 3 : 0) + (complete ? 2 : 1)) this.tooLong(this.lineNo + 1);
    bytes.copy(this.carry, this.carryLength, from, to);
    this.carryLength = length;
  }

  /** Decodes whole lines (the region ends with LF unless it is the file's last line) and emits them. */
  private emitRegion(region: Buffer, last = false): void {
    if (!isUtf8(region)) this.invalidUtf8(region);
    let text = region.toString('utf8');
    if (this.lineNo === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const end = last ? text.length + 1 : text.length;
    let i = 0;
    while (i < end) {
      let j = text.indexOf('\n', i);
      if (j < 0) j = text.length;
      let stop = j;
      if (stop > i && text.charCodeAt(stop - 1) === CR) stop--;
      const line = ++this.lineNo;
      // A UTF-16 unit is at most 3 UTF-8 bytes: only long lines need their bytes counted.
      if (stop - i > maxLineBytes / 3 && Buffer.byteLength(text.slice(i, stop)) > maxLineBytes) this.tooLong(line);
      this.onLine(text.slice(i, stop), line);
      i = j + 1;
    }
  }

  /** Names the first line holding an invalid byte sequence. */
  private invalidUtf8(region: Buffer): never {
    let line = this.lineNo + 1;
    let i = 0;
    for (let j = region.indexOf(LF); j >= 0; j = region.indexOf(LF, i)) {
      if (!isUtf8(region.subarray(i, j))) break;
      i = j + 1;
      line++;
    }
    throw fileError(`line ${line} is not valid UTF-8`, line);
  }

  private tooLong(line: number): never {
    throw fileError(`line ${line} is longer than ${maxLineBytes} bytes`, line);
  }
}
