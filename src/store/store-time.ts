/**
 * The store's own clock: the HTTP `Date` header of a listing response (RFC 9110 §6.6.1), which
 * S3, Azure Blob and Cloud Storage all send. It is read strictly, as the store wrote it: a value
 * that is not an HTTP-date is no time (null), never a lenient guess (`Date.parse` would read `1`
 * as the year 2001), and never viewer's own clock.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

// IMF-fixdate, what every HTTP/1.1 server must send: `Sun, 06 Nov 1994 08:49:37 GMT`.
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
// asctime, the obsolete form recipients must still accept: `Sun Nov  6 08:49:37 1994`. The other
// obsolete form (RFC 850) has a two-digit year that could only be placed in a century by reading
// viewer's own clock, so it is not read.
const ASCTIME = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function at(day: string, date: string, month: string, year: string, hour: string, minute: string, second: string): Date | null {
  const [y, mo, d, h, mi, s] = [Number(year), MONTHS.indexOf(month as (typeof MONTHS)[number]), Number(date.trim()), Number(hour), Number(minute), Number(second)];
  const t = new Date(Date.UTC(y, mo, d, h, mi, s));
  // Date.UTC rolls 31 Feb over into March and reads years below 100 as 19xx: a value that does
  // not come back field for field, or whose weekday is not its date's, is not a time.
  const same = t.getUTCFullYear() === y && t.getUTCMonth() === mo && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === s;
  return same && DAYS[t.getUTCDay()] === day ? t : null;
}

/** The instant an HTTP `Date` header names, or `null` when there is none or it is no HTTP-date. */
export function parseHttpDate(value: string | null | undefined): Date | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  const imf = IMF_FIXDATE.exec(v);
  if (imf !== null) return at(imf[1] as string, imf[2] as string, imf[3] as string, imf[4] as string, imf[5] as string, imf[6] as string, imf[7] as string);
  const asc = ASCTIME.exec(v);
  if (asc !== null) return at(asc[1] as string, asc[3] as string, asc[2] as string, asc[7] as string, asc[4] as string, asc[5] as string, asc[6] as string);
  return null;
}

/**
 * The `Date` header among a response's headers, by name in any letter case. A header sent twice
 * arrives joined (`a, b`) and so reads as no time.
 */
export function dateHeader(headers: Readonly<Record<string, unknown>> | undefined): Date | null {
  if (headers === undefined) return null;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'date') return typeof value === 'string' ? parseHttpDate(value) : null;
  }
  return null;
}
