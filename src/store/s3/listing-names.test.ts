/** The decoding of url-encoded S3 listing names: S3's form encoding inverted, and nothing else. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listedName } from './listing-names.ts';

describe('url-encoded listing names', () => {
  it('decodes as S3 encodes: + is a space, %2B a plus, %25 a percent, %XX runs are UTF-8', () => {
    const cases: [string, string][] = [
      ['a+b.txt', 'a b.txt'],
      ['a%20b.txt', 'a b.txt'],
      ['a%2Bb.txt', 'a+b.txt'],
      ['100%25.csv', '100%.csv'],
      ['%ED%95%9C%EA%B8%80/x.txt', '한글/x.txt'],
      ['run+books/', 'run books/'],
      ['s/%01%1F%7F%09%0A%0D', 's/\x01\x1f\x7f\t\n\r'],
      ['amp%26lt%3C%2F', 'amp&lt</'],
      ['%EF%BF%BF', '\uffff'],
      ['plain/key', 'plain/key'],
    ];
    for (const [wire, key] of cases) assert.equal(listedName(wire, 'url'), key, wire);
  });

  it('leaves names alone when the reply says no encoding (a store that ignored the parameter)', () => {
    for (const raw of ['a+b', '100%25', 'x%zz']) assert.equal(listedName(raw, undefined), raw);
  });

  it('refuses a malformed name with an error that does not carry it', () => {
    for (const bad of ['secret%', 'secret%2', 'secret%zz', 'secret%FF', 'secret%C3', 'secret%ED%A0%80']) {
      assert.throws(() => listedName(bad, 'url'), (e: unknown) => e instanceof URIError && !e.message.includes('secret'), bad);
    }
  });
});
