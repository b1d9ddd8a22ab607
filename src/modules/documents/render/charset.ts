// Receipt text comes from merchants and customers (any Unicode); the PDF's standard fonts and a
// receipt printer can show far less. These functions decide, per character, what they see.

/** The 27 characters WinAnsiEncoding places in 0x80-0x9F (the rest is Latin-1). */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'.split('').map((c) => c.codePointAt(0)!));

const isWinAnsi = (cp: number) => (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || WIN_ANSI_EXTRA.has(cp);

/** Letters and signs that have no ASCII decomposition but an obvious ASCII spelling. */
const ASCII_SPELLING: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  Æ: 'AE',
  æ: 'ae',
  Ø: 'O',
  ø: 'o',
  Œ: 'OE',
  œ: 'oe',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ð: 'D',
  ð: 'd',
  Þ: 'Th',
  þ: 'th',
  ı: 'i',
  Ŧ: 'T',
  ŧ: 't',
  Ħ: 'H',
  ħ: 'h',
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '′': "'",
  '`': "'",
  '´': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '‟': '"',
  '″': '"',
  '«': '"',
  '»': '"',
  '‹': '<',
  '›': '>',
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '―': '-',
  '−': '-',
  '•': '*',
  '·': '.',
  '…': '...',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '¢': 'c',
  '©': '(c)',
  '®': '(R)',
  '™': 'TM',
  '×': 'x',
  '÷': '/',
  '°': 'o',
  '¹': '1',
  '²': '2',
  '³': '3',
  '¼': '1/4',
  '½': '1/2',
  '¾': '3/4',
  '⁄': '/',
  '¡': '!',
  '¿': '?',
  '§': 'S',
  '¶': 'P',
  ª: 'a',
  º: 'o',
  '¬': '-',
  '¦': '|',
  '¤': '?',
  µ: 'u',
};

const COMBINING = /\p{M}/gu;
const spaceLike = (cp: number) =>
  cp === 0x09 ||
  cp === 0x0a ||
  cp === 0x0d ||
  (cp >= 0x2000 && cp <= 0x200a) ||
  cp === 0xa0 ||
  cp === 0x202f ||
  cp === 0x205f ||
  cp === 0x3000;
const invisible = (cp: number) =>
  cp < 0x20 ||
  (cp >= 0x7f && cp < 0xa0) ||
  cp === 0xad ||
  (cp >= 0x200b && cp <= 0x200f) ||
  (cp >= 0x2028 && cp <= 0x202e) ||
  (cp >= 0x2060 && cp <= 0x206f) ||
  cp === 0xfeff;

/** One character spelled in ASCII: decomposed (é -> e, ｆ -> f), spelled out (ß -> ss), or "?". */
function asciiOf(ch: string): string {
  const spelled = ASCII_SPELLING[ch];
  if (spelled !== undefined) return spelled;
  const folded = ch.normalize('NFKD').replace(COMBINING, '');
  if (folded !== '' && /^[\x20-\x7e]+$/.test(folded)) return folded;
  if (folded.length === 1 && ASCII_SPELLING[folded] !== undefined) return ASCII_SPELLING[folded];
  return '?';
}

/**
 * Printable ASCII only (0x20-0x7E), for receipt printers: whatever code page a printer is set
 * to, these bytes print the same, and no byte of user text can be read as a printer command
 * (ESC, GS, DLE ... are dropped: an item name must not open the cash drawer). Whitespace and
 * line breaks become one space; "Café Señor" -> "Cafe Senor"; a character with no ASCII form
 * (CJK, emoji) -> "?".
 */
export function toAscii(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x20 && cp <= 0x7e) out += ch;
    else if (spaceLike(cp)) out += ' ';
    else if (invisible(cp) || (cp >= 0x300 && cp <= 0x36f)) continue;
    else out += asciiOf(ch);
  }
  return out;
}

/**
 * Text the PDF standard fonts can draw (WinAnsiEncoding: Latin-1 plus € “ ” – — ...): composed
 * first (e + U+0301 -> é), then any other character is folded (ｆ -> f, ł -> l) or becomes "?".
 * pdfkit would otherwise write the raw UTF-16 code and show garbage. Line breaks survive only
 * when asked for (multi-line addresses and footers); other whitespace becomes a space.
 */
export function toWinAnsi(text: string, keepLineBreaks = false): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const cp = ch.codePointAt(0)!;
    if (isWinAnsi(cp)) out += ch;
    else if (keepLineBreaks && cp === 0x0a) out += '\n';
    else if (keepLineBreaks && cp === 0x0d) continue;
    else if (spaceLike(cp)) out += ' ';
    else if (invisible(cp) || (cp >= 0x300 && cp <= 0x36f)) continue;
    else {
      const compat = ch.normalize('NFKC');
      out += [...compat].every((c) => isWinAnsi(c.codePointAt(0)!)) ? compat : asciiOf(ch);
    }
  }
  return out;
}
