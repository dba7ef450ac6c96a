/** The store's clock is read from the `Date` header strictly: an HTTP-date, or nothing. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateHeader, parseHttpDate } from './store-time.ts';

describe('store time from the HTTP Date header', () => {
  it('reads IMF-fixdate and asctime to the second, in UTC', () => {
    assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')?.toISOString(), '1994-11-06T08:49:37.000Z');
    assert.equal(parseHttpDate('Tue, 03 Mar 2026 23:59:59 GMT')?.toISOString(), '2026-03-03T23:59:59.000Z');
    assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994')?.toISOString(), '1994-11-06T08:49:37.000Z');
    assert.equal(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT')?.toISOString(), '2024-02-29T00:00:00.000Z');
    assert.equal(parseHttpDate(' Sun, 06 Nov 1994 08:49:37 GMT ')?.toISOString(), '1994-11-06T08:49:37.000Z');
  });

  it('anything else is no time, never a lenient guess', () => {
    for (const v of [
      undefined,
      null,
      '',
      '1',
      'yesterday',
      '2026-03-03T10:00:00Z',
      // RFC 850: its two-digit year could only be placed by reading viewer's own clock.
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 UTC',
      'Sun, 6 Nov 1994 08:49:37 GMT',
      'sun, 06 nov 1994 08:49:37 GMT',
      // The weekday is not the date's, the date does not exist, a field is out of range.
      'Mon, 06 Nov 1994 08:49:37 GMT',
      'Sat, 29 Feb 2025 00:00:00 GMT',
      'Sun, 31 Nov 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 24:00:00 GMT',
      'Sun, 06 Nov 1994 08:60:00 GMT',
      'Sun, 06 Nov 1994 08:49:60 GMT',
      'Sat, 01 Jan 0094 00:00:00 GMT',
      // Sent twice, the header arrives joined.
      'Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:38 GMT',
    ]) {
      assert.equal(parseHttpDate(v), null, String(v));
    }
  });

  it('finds the header by name in any case, and only a string value', () => {
    assert.equal(dateHeader({ 'content-type': 'application/xml', date: 'Sun, 06 Nov 1994 08:49:37 GMT' })?.toISOString(), '1994-11-06T08:49:37.000Z');
    assert.equal(dateHeader({ Date: 'Sun, 06 Nov 1994 08:49:37 GMT' })?.toISOString(), '1994-11-06T08:49:37.000Z');
    assert.equal(dateHeader({ 'content-type': 'application/xml' }), null);
    assert.equal(dateHeader({ date: ['Sun, 06 Nov 1994 08:49:37 GMT'] }), null);
    assert.equal(dateHeader({ date: 'garbled' }), null);
    assert.equal(dateHeader(undefined), null);
  });
});
