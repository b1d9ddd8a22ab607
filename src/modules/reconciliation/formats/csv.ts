// Physical lines to CSV records (RFC 4180, docs/reconciliation.md, Dialect): comma separated, doubled quotes inside
// quoted cells, a quoted cell may span lines (its line breaks read as LF), blank lines between records skipped.
import { fileError, maxLineBytes } from './lines.ts';

export type RecordSink = (cells: string[], line: number) => void;

const QUOTE = 34;
const COMMA = 44;

/** Assembles records from lines; a record spanning lines is capped at one line's bytes, as a line is. */
export class CsvRecords {
  /** Cells of a record whose quoted cell is still open at the end of a line; null between records. */
  private cells: string[] | null = null;
  private cell = '';
  private firstLine = 0;
  private openBytes = 0;

  /** `lenient` (native exports): blanks around a quoted cell and a stray quote in an unquoted cell are allowed. */
  constructor(
    private readonly onRecord: RecordSink,
    private readonly lenient = false,
  ) {}

  readonly line = (text: string, line: number): void => {
    if (this.cells === null) {
      if (text.length === 0) return;
      if (text.indexOf('"') < 0) {
        this.onRecord(text.split(','), line);
        return;
      }
      this.cells = [];
      this.cell = '';
      this.firstLine = line;
      this.openBytes = 0;
      this.parse(text, 0, false);
      return;
    }
    this.openBytes += Buffer.byteLength(text) + 1;
    if (this.openBytes > maxLineBytes)
      throw fileError(`the record starting on line ${this.firstLine} is longer than ${maxLineBytes} bytes`, line);
    this.cell += '\n';
    this.parse(text, 0, true);
  };

  /** Refuses a quoted cell still open at the end of the file. */
  end(): void {
    if (this.cells !== null) throw brokenQuoting(this.firstLine, 'a quoted cell is not closed');
  }

  /** Reads cells from `i` (inside a quoted cell when `quoted`); leaves the record open if a quote is. */
  private parse(text: string, from: number, inQuotes: boolean): void {
    const cells = this.cells!;
    const n = text.length;
    let cell = this.cell;
    let i = from;
    let quoted = inQuotes;
    for (;;) {
      if (quoted) {
        const q = text.indexOf('"', i);
        if (q < 0) {
          this.cell = cell + text.slice(i);
          if (!inQuotes) this.openBytes = Buffer.byteLength(text);
          return;
        }
        cell += text.slice(i, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          cell += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        cells.push(cell);
        cell = '';
        quoted = false;
        if (this.lenient) i = skipBlanks(text, i);
        if (i === n) break;
        if (text.charCodeAt(i) !== COMMA) throw brokenQuoting(this.firstLine, 'text after a closing quote');
        i++;
      }
      const at = this.lenient ? skipBlanks(text, i) : i;
      if (text.charCodeAt(at) === QUOTE) {
        quoted = true;
        i = at + 1;
        continue;
      }
      const comma = text.indexOf(',', i);
      const end = comma < 0 ? n : comma;
      const raw = text.slice(i, end);
      if (!this.lenient && raw.indexOf('"') >= 0)
        throw brokenQuoting(this.firstLine, 'a quote inside an unquoted cell');
      cells.push(raw);
      if (comma < 0) break;
      i = comma + 1;
    }
    this.cells = null;
    this.cell = '';
    this.onRecord(cells, this.firstLine);
  }
}

function skipBlanks(text: string, from: number): number {
  let i = from;
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  return i;
}

function brokenQuoting(line: number, why: string) {
  return fileError(`broken quoting on line ${line}: ${why}`, line);
}
