/**
 * One document (a receipt's or an invoice's view) as a download: `pdf`, `html` or `escpos` (58 or 80 mm,
 * 80 by default). Renderers load on first use: pdfkit and its fonts stay out of a server that never prints.
 */
import { errorsFor, type Resource } from '../../../core/errors.ts';
import { oneOf } from '../../../core/validation.ts';
import type { DocumentView } from '../view.ts';

export const documentFormats = ['pdf', 'html', 'escpos'] as const;
export type DocumentFormat = (typeof documentFormats)[number];

export interface DocumentFile {
  contentType: string;
  filename: string;
  bytes: Buffer;
}

/** The format and width checked as the resource spells its errors (before any row is read). */
export function checkFormat(format: string, width: number | null | undefined, resource: Resource): DocumentFormat {
  const kind = oneOf(format, documentFormats, 'format', resource);
  if (width != null && width !== 58 && width !== 80)
    throw errorsFor(resource).validation('width', 'width must be 58 or 80');
  return kind;
}

export async function renderDocument(
  view: DocumentView,
  kind: DocumentFormat,
  number: string,
  width?: number | null,
): Promise<DocumentFile> {
  const name = number.replace(/[^A-Za-z0-9._-]/g, '_');
  switch (kind) {
    case 'pdf':
      return {
        contentType: 'application/pdf',
        filename: `${name}.pdf`,
        bytes: await (await import('./pdf.ts')).renderPdf(view),
      };
    case 'html':
      return {
        contentType: 'text/html; charset=utf-8',
        filename: `${name}.html`,
        bytes: Buffer.from((await import('./html.ts')).renderHtml(view)),
      };
    case 'escpos':
      return {
        contentType: 'application/octet-stream',
        filename: `${name}.bin`,
        bytes: (await import('./escpos.ts')).renderEscpos(view, { width: (width ?? 80) as 58 | 80 }),
      };
  }
}
