/**
 * The sidecar's startup gates on real files, directories and sockets: the token file (link, type,
 * mode, size, exactly one canonical token: a trailing newline refused with how to write the file
 * without one, D-78), the socket directory (link, type, setgid,
 * mode, group) and the socket path (link, non-socket, live socket, stale socket removed).
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createServer as createHttpServer } from 'node:http';
import { spawnSync } from 'node:child_process';
import { checkSocketDirectory, listenOnSocket, prepareSocketPath } from '../../src/surface/api/socket.ts';
import { GateError } from '../../src/common/errors.ts';
import { isCanonicalToken } from '../../src/contract/token.ts';
import { readTokenFile } from '../../src/surface/api/token-file.ts';

const TOKEN = 'q1aKFo9oVbP3rJ7Ztl0cKjYc2yU8m1Q0xW5nA4bZr-E';
const base = mkdtempSync(join(tmpdir(), 'viewer-gates-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(base, `f${n++}`);

function tokenFile(content: string, mode = 0o440): string {
  const path = fresh();
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

const refused = async (p: Promise<unknown>, pattern: RegExp) => {
  await assert.rejects(p, (e: unknown) => e instanceof GateError && pattern.test(e.message) && !e.message.includes(TOKEN));
};

describe('token file gate', () => {
  it('accepts exactly the 43 bytes of a canonical token', async () => {
    const path = tokenFile(TOKEN);
    assert.equal(statSync(path).size, 43);
    assert.equal(await readTokenFile(path), TOKEN);
  });

  it('refuses a trailing newline (LF or CRLF), saying how to write the file without one and never echoing the token', async () => {
    for (const ending of ['\n', '\r\n']) {
      await assert.rejects(readTokenFile(tokenFile(`${TOKEN}${ending}`)), (e: unknown) => {
        assert.ok(e instanceof GateError);
        assert.match(e.message, /^token file: ends with a line break/);
        assert.match(e.message, /printf '%s'/);
        assert.match(e.message, /echo -n/);
        assert.match(e.message, /--from-literal/);
        assert.ok(!e.message.includes(TOKEN) && !e.message.includes(TOKEN.slice(0, 8)), 'the token is never echoed');
        return true;
      });
    }
  });

  it('refuses every other shape', async () => {
    await refused(readTokenFile(tokenFile(TOKEN, 0o400)), /mode must be exactly 0440/);
    await refused(readTokenFile(tokenFile(TOKEN, 0o444)), /mode/);
    await refused(readTokenFile(tokenFile(TOKEN, 0o2440)), /mode/);
    await refused(readTokenFile(tokenFile(TOKEN, 0o1440)), /mode/);
    await refused(readTokenFile(tokenFile(`${TOKEN}\n\n`)), /canonical/);
    await refused(readTokenFile(tokenFile(`${TOKEN}=`)), /canonical/);
    await refused(readTokenFile(tokenFile(TOKEN.slice(1))), /canonical/);
    await refused(readTokenFile(tokenFile(`${TOKEN.slice(0, -1)}F`)), /canonical/);
    await refused(readTokenFile(tokenFile(`\n${TOKEN}`)), /canonical/);
    await refused(readTokenFile(tokenFile(`${TOKEN} `)), /canonical/);
    await refused(readTokenFile(tokenFile(`${TOKEN}\r`)), /canonical/);
    await refused(readTokenFile(tokenFile('x'.repeat(129))), /larger than 128/);
    const link = fresh();
    symlinkSync(tokenFile(TOKEN), link);
    await refused(readTokenFile(link), /symbolic link/);
    const dir = fresh();
    mkdirSync(dir);
    chmodSync(dir, 0o440);
    await refused(readTokenFile(dir), /regular file/);
    await refused(readTokenFile(join(base, 'missing')), /cannot be opened/);
  });

  it('knows canonical base64url: the unused bits of the last character are zero', () => {
    assert.ok(isCanonicalToken(TOKEN));
    assert.ok(!isCanonicalToken(`${TOKEN.slice(0, -1)}F`));
    assert.ok(!isCanonicalToken(TOKEN.replace('-', '+')));
  });
});

describe('socket directory and path gates', () => {
  function socketDir(mode = 0o2770): string {
    const dir = fresh();
    mkdirSync(dir);
    chmodSync(dir, mode);
    return dir;
  }

  it('accepts a setgid 02770 directory of one of our groups, and 02777', async () => {
    await checkSocketDirectory(join(socketDir(), 'evidence.sock'));
    await checkSocketDirectory(join(socketDir(0o2777), 'evidence.sock'));
  });

  it('refuses links, files, missing setgid, narrow modes and foreign groups', async () => {
    await refused(checkSocketDirectory(join(socketDir(0o770), 's')), /not setgid/);
    await refused(checkSocketDirectory(join(socketDir(0o2750), 's')), /at least 02770/);
    await refused(checkSocketDirectory(join(socketDir(0o2700), 's')), /at least 02770/);
    const link = fresh();
    symlinkSync(socketDir(), link);
    await refused(checkSocketDirectory(join(link, 's')), /symbolic link/);
    const file = tokenFile('x', 0o2770);
    await refused(checkSocketDirectory(join(file, 's')), /not a directory/);
    const foreign = socketDir();
    chownSync(foreign, 0, 54_321);
    chmodSync(foreign, 0o2770);
    await refused(checkSocketDirectory(join(foreign, 's')), /group/);
  });

  it('refuses a link or a non-socket at the socket path, and a socket someone listens on', async () => {
    const dir = socketDir();
    const target = tokenFile('x');
    symlinkSync(target, join(dir, 'link.sock'));
    await refused(prepareSocketPath(join(dir, 'link.sock')), /symbolic link/);
    writeFileSync(join(dir, 'file.sock'), 'x');
    await refused(prepareSocketPath(join(dir, 'file.sock')), /not a socket/);
    const live = createServer();
    await new Promise<void>((r) => live.listen(join(dir, 'live.sock'), r));
    try {
      await refused(prepareSocketPath(join(dir, 'live.sock')), /listening/);
    } finally {
      live.close();
    }
  });

  it('removes a stale socket, then creates the new one with mode 0660 in the directory group', async () => {
    const dir = socketDir();
    const path = join(dir, 'evidence.sock');
    // A process killed while listening leaves its socket file behind, with nobody on it.
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    assert.ok(statSync(path).isSocket(), 'the stale socket file is there');
    await prepareSocketPath(path);
    const server = createHttpServer();
    await listenOnSocket(server, path);
    try {
      const st = statSync(path);
      assert.ok(st.isSocket());
      assert.equal(st.mode & 0o777, 0o660);
      assert.equal(st.gid, statSync(dir).gid);
    } finally {
      server.close();
    }
  });
});
