/**
 * Text chosen by someone else (a workspace's name) quoted in mail we send: mail clients turn
 * `example.com` and `http://...` into links, so a name like "Pay at bank-login.example" would reach
 * the reader as a link with our sender on it (docs/security.md, Invitation mail). Defanged, it
 * reads the same and links nowhere: every dot between two letters or digits becomes `[.]`,
 * `http://`/`https://` become `hxxp://`/`hxxps://`, and any other `scheme://` becomes `scheme[://]`.
 */
const SCHEME = /\b([a-z][a-z0-9+.-]*):\/\//gi;
/** ASCII and the ideographic and full-width dots, which some clients also link as dots. */
const DOT = /(?<=[\p{L}\p{N}])[.\u3002\uff0e\uff61](?=[\p{L}\p{N}])/gu;

export function defang(text: string): string {
  return text
    .replace(SCHEME, (_m, scheme: string) =>
      /^https?$/i.test(scheme) ? `hxxp${scheme.length === 5 ? 's' : ''}://` : `${scheme}[://]`,
    )
    .replace(DOT, '[.]');
}
