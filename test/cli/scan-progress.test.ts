/**
 * `viewer scan`'s progress line on a terminal (a pseudo-terminal from util-linux `script`): it
 * ends with exactly what the scan listed, the counts the snapshot publishes as examined.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { realRepositories } from '../support/real-repositories.ts';
import { VIEWER_BIN } from '../support/run-viewer.ts';

const hasScript = spawnSync('script', ['--version']).status === 0;

describe('viewer scan progress on a terminal', { skip: hasScript ? false : 'util-linux script is not installed' }, () => {
  it('ends with the pages and objects the scan listed', () => {
    const repos = realRepositories();
    const dir = mkdtempSync(join(tmpdir(), 'viewer-progress-'));
    try {
      writeFileSync(join(dir, 'id'), `${repos.accessKeyId}\n`);
      writeFileSync(join(dir, 'secret'), `${repos.secretAccessKey}\n`);
      const out = join(dir, 'scan.json');
      const r = spawnSync('script', ['-qec', `"${process.execPath}" "${VIEWER_BIN}" scan > "${out}"`, '/dev/null'], {
        encoding: 'utf8',
        env: {
          PATH: process.env['PATH'] ?? '',
          DESTINATION_PATH: `s3://${repos.bucket}/${repos.prefix}`,
          ARCHIVE_SERVER_NAMES: 'pg-main',
          STORE_ENDPOINT_URL: repos.endpoint,
          STORE_ACCESS_KEY_ID_FILE: join(dir, 'id'),
          STORE_SECRET_ACCESS_KEY_FILE: join(dir, 'secret'),
        },
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      const inventory = (JSON.parse(readFileSync(out, 'utf8')) as { snapshot: { inventory: { pages_examined: number; objects_examined: number } } }).snapshot.inventory;
      const lines = [...r.stdout.matchAll(/viewer: listed (\d+) pages, (\d+) objects/g)];
      assert.ok(lines.length > 0, r.stdout);
      const last = lines.at(-1);
      assert.deepEqual([Number(last?.[1]), Number(last?.[2])], [inventory.pages_examined, inventory.objects_examined]);
      assert.ok(inventory.pages_examined > 1, 'more than the first listing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
