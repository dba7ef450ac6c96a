/** XML references in listing texts: what is decoded and what is refused. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeXmlReferences } from './xml-text.ts';

const refuse = (reason: string) => new Error(reason);

describe('decodeXmlReferences', () => {
  it('decodes the five entities and character references, and leaves other text as it is', () => {
    assert.equal(decodeXmlReferences('a&amp;b&lt;c&gt;d&quot;e&apos;f', refuse), 'a&b<c>d"e\'f');
    assert.equal(decodeXmlReferences('&#65;&#x42;&#x1F600;', refuse), 'AB\u{1F600}');
    assert.equal(decodeXmlReferences('plain/key%20name', refuse), 'plain/key%20name');
  });

  it('refuses a bare ampersand, an unknown entity and a reference beyond U+10FFFF, with the caller\'s error', () => {
    assert.throws(() => decodeXmlReferences('a&b', refuse), /a bare ampersand/);
    assert.throws(() => decodeXmlReferences('&nbsp;', refuse), /an unknown entity/);
    assert.throws(() => decodeXmlReferences('&#x110000;', refuse), /out of range/);
  });
});
