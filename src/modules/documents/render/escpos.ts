// ESC/POS bytes for thermal receipt printers (Epson TM and the many compatibles).
//
// Code page: the slip is pure printable ASCII (0x20-0x7E). User text is transliterated by
// toAscii ("Café" -> "Cafe", CJK and emoji -> "?"), and ESC t 0 selects PC437, every printer's
// power-on table; since only ASCII is sent, any code page a printer is left in prints the same.
// Control bytes in user text are dropped, so an item name cannot smuggle in a command.
import { toAscii } from './charset.ts';
import { layoutLines } from './text.ts';
import type { DocumentView } from '../view.ts';

export type PaperWidth = 58 | 80;

/** Characters per line in font A: 58 mm paper prints 32, 80 mm prints 48. */
export const COLUMNS: Record<PaperWidth, number> = { 58: 32, 80: 48 };

const ESC = 0x1b;
const GS = 0x1d;
const LF = 0x0a;
export const CMD = {
  init: [ESC, 0x40], // ESC @
  codePage437: [ESC, 0x74, 0], // ESC t 0
  bold: (on: boolean) => [ESC, 0x45, on ? 1 : 0], // ESC E n
  align: (a: 'left' | 'center') => [ESC, 0x61, a === 'center' ? 1 : 0], // ESC a n
  size: (tall: boolean) => [GS, 0x21, tall ? 0x01 : 0x00], // GS ! n: double height, normal width
  feed: (n: number) => [ESC, 0x64, n], // ESC d n
  cut: [GS, 0x56, 0x42, 0x00], // GS V 66 0: feed to the cutter, partial cut
};

/** The receipt as ESC/POS bytes for 58 mm (32 columns) or 80 mm (48 columns, default) paper. */
export function renderEscpos(view: DocumentView, opts: { width?: PaperWidth } = {}): Buffer {
  const cols = COLUMNS[opts.width ?? 80];
  if (!cols) throw new RangeError(`paper width must be 58 or 80, not ${opts.width}`);
  const out: number[] = [...CMD.init, ...CMD.codePage437];
  let align: 'left' | 'center' = 'left';
  let bold = false;
  let tall = false;
  for (const line of layoutLines(view, cols, toAscii)) {
    if (line.align !== align) out.push(...CMD.align((align = line.align)));
    if (!!line.bold !== bold) out.push(...CMD.bold((bold = !!line.bold)));
    if (!!line.tall !== tall) out.push(...CMD.size((tall = !!line.tall)));
    for (let i = 0; i < line.text.length; i++) {
      const c = line.text.charCodeAt(i);
      out.push(c >= 0x20 && c <= 0x7e ? c : 0x3f); // toAscii already did this; a byte is never a command
    }
    out.push(LF);
  }
  if (bold) out.push(...CMD.bold(false));
  if (tall) out.push(...CMD.size(false));
  if (align !== 'left') out.push(...CMD.align('left'));
  out.push(...CMD.feed(3), ...CMD.cut);
  return Buffer.from(out);
}
