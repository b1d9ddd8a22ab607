// The words of a PDF with their boxes, as poppler's `pdftotext -bbox` reads them (poppler-utils: .ci/run
// installs it), to check where a layout put its text.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PdfWord {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

export function pdfWords(pdf: Buffer): PdfWord[] {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-words-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftotext', ['-bbox', join(dir, 'in.pdf'), join(dir, 'out.html')]);
    const html = readFileSync(join(dir, 'out.html'), 'utf8');
    const words: PdfWord[] = [];
    for (const [i, page] of html.split('<page ').slice(1).entries())
      for (const m of page.matchAll(
        /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
      ))
        words.push({ page: i + 1, xMin: +m[1], yMin: +m[2], xMax: +m[3], yMax: +m[4], text: unescapeXml(m[5]) });
    return words;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pairs of words whose boxes overlap on the page (text drawn over text); empty for a clean layout. */
export function overlappingWords(words: PdfWord[]): [string, string][] {
  const out: [string, string][] = [];
  for (const [i, a] of words.entries())
    for (const b of words.slice(i + 1)) {
      if (a.page !== b.page) continue;
      const dx = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const dy = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
      if (dx > 0.5 && dy > 0.5 * Math.min(a.yMax - a.yMin, b.yMax - b.yMin)) out.push([a.text, b.text]);
    }
  return out;
}
