// The shareable HTML file (`rlm-studio bundle`, Export ▸ Shareable HTML): the read-only
// viewer built once as a template, with the log put in per file. The log goes in as
// base64 of its gzip, in a non-executed <script> data block: base64's alphabet has no `<`,
// `&` or quote, so nothing in a log can close the element or become markup; the file name
// goes in the same way.

/** Where the name goes: inside an attribute value of the data block. */
const NAME_MARK = '__RLM_STUDIO_BUNDLE_NAME__';
/** Where the log goes: the data block's content. */
const LOG_MARK = '__RLM_STUDIO_BUNDLE_LOG__';
/** The data block the template holds (the build puts it in place of the page's placeholder). */
export const LOG_ELEMENT = `<script id="rlm-log" type="application/x-rlm-log+gzip+base64" data-name="${NAME_MARK}">${LOG_MARK}</script>`;
export const LOG_ELEMENT_ID = 'rlm-log';

export interface TemplateParts {
  /** Up to the name. */
  head: string;
  /** Between the name and the log. */
  middle: string;
  /** After the log. */
  tail: string;
}

/** Splits a template at its marks; a template that does not hold each exactly once, in order, is refused. */
export function splitTemplate(html: string): TemplateParts {
  const a = html.split(NAME_MARK);
  const b = html.split(LOG_MARK);
  if (a.length !== 2 || b.length !== 2) throw new Error('not a bundle template: it must hold the name and log marks exactly once');
  const [head, rest] = a as [string, string];
  const [middle, tail] = rest.split(LOG_MARK) as [string, string];
  if (tail === undefined) throw new Error('not a bundle template: the log mark must follow the name mark');
  return { head, middle, tail };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Throws unless `s` is plain base64 (the only thing ever put into the template). */
export function assertBase64(s: string, what: string): void {
  if (s.length % 4 !== 0 || !BASE64.test(s)) throw new Error(`${what} is not base64`);
}
