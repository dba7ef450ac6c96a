/**
 * What the standalone pages call the repository, through the real executable on the embedded
 * demo: REPOSITORY_NAME as configured (escaped like every value), else the destination's bucket
 * and prefix with its provider (issue 26), never an endpoint or a credential.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEMO_BUCKET, DEMO_PREFIX } from '../../src/format/barman-cloud/demo-repository.ts';
import { startStandalone } from '../support/run-viewer.ts';

async function titleOf(env: Record<string, string>): Promise<string> {
  const viewer = await startStandalone(env);
  try {
    const page = await (await fetch(viewer.base)).text();
    return /<title>([^<]*)<\/title>/.exec(page)?.[1] ?? '';
  } finally {
    viewer.child.kill('SIGKILL');
  }
}

describe('the name the standalone pages show', () => {
  it('is REPOSITORY_NAME when set, escaped, else the bucket and prefix with the provider', async () => {
    assert.equal(await titleOf({ REPOSITORY_NAME: 'Prod <eu> & "west"' }), 'Inventory · Prod &lt;eu&gt; &amp; &quot;west&quot; · viewer');
    assert.equal(await titleOf({}), `Inventory · ${DEMO_BUCKET}/${DEMO_PREFIX} (S3) · viewer`);
  });
});
