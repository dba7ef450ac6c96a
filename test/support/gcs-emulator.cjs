// The Cloud Storage emulator of firebase-tools (pinned: these are internal paths), started without
// its Java rules runtime, which cannot run here; its JSON API allows everything anyway. Listens on
// a free port of 127.0.0.1 and prints it. Storage lives under $TMPDIR.
const { StorageEmulator } = require('firebase-tools/lib/emulator/storage');
const { createApp } = require('firebase-tools/lib/emulator/storage/server');
const { EmulatorRegistry } = require('firebase-tools/lib/emulator/registry');

(async () => {
  const emulator = new StorageEmulator({ projectId: 'viewer', host: '127.0.0.1', port: 0, rules: undefined, auto_download: false });
  const app = await createApp('viewer', emulator);
  const server = app.listen(0, '127.0.0.1', () => {
    emulator.args.port = server.address().port;
    EmulatorRegistry.set('storage', emulator);
    console.log(`listening on http://127.0.0.1:${server.address().port}`);
  });
  process.on('SIGTERM', () => {
    server.close();
    process.exit(0);
  });
})();
