// A minimal MIME reader for the messages the test SMTP server receives (mailparser is not a
// dependency): headers (unfolded), multipart bodies, base64 and quoted-printable.

export interface MimePart {
  headers: Record<string, string>;
  /** Decoded body of a leaf part. */
  body: Buffer;
  parts: MimePart[];
}

const decodeQp = (s: string): Buffer => {
  const soft = s.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i], 'utf8'));
  }
  return Buffer.from(bytes);
};

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / ?B?) in a header value. */
export const decodeWords = (v: string): string =>
  v.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_, _cs, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQp(text.replace(/_/g, ' ')).toString('utf8'),
  );

export function parseMime(raw: string): MimePart {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const rest = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const chunks = rest.split(`--${boundary}`);
    const parts = chunks
      .slice(1)
      .filter((c) => !c.startsWith('--'))
      .map((c) => parseMime(c.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
    return { headers, body: Buffer.alloc(0), parts };
  }
  const enc = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const body =
    enc === 'base64'
      ? Buffer.from(rest.replace(/\s+/g, ''), 'base64')
      : enc === 'quoted-printable'
        ? decodeQp(rest)
        : Buffer.from(rest, 'utf8');
  return { headers, body, parts: [] };
}

/** Every leaf part, depth first. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length ? part.parts.flatMap(leaves) : [part];
}
