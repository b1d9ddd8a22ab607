import { builder } from '../../graphql/builder.ts';

/** A rendered document as GraphQL returns it; REST routes marked `download` send `content` as the response body. */
export interface RenderedDocument {
  contentType: string;
  filename: string;
  bytes: Buffer;
}

/** One shape for every kind's document type (ReceiptDocument, InvoiceDocument). */
export const documentType = (name: string) =>
  builder.objectRef<RenderedDocument>(name).implement({
    fields: (t) => ({
      contentType: t.exposeString('contentType'),
      filename: t.exposeString('filename'),
      contentBase64: t.string({ resolve: (d) => d.bytes.toString('base64') }),
    }),
  });

/** `{sent, to}` of an email send (receipts and invoices). */
export const emailResultType = (name: string) =>
  builder.objectRef<{ sent: boolean; to: string }>(name).implement({
    fields: (t) => ({ sent: t.exposeBoolean('sent'), to: t.exposeString('to') }),
  });
