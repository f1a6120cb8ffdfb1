// Codex's shell tool against `farebox dev`'s free model: the prompt names
// exec_command, so the scripted model calls it with arguments built from
// its schema (a short command, integers for its numbers, the first enum
// value), Codex runs the command and sends the output back, and the
// model's answer quotes it: a shell round trip with nothing faked but the
// model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { devWorld, FREE } from '../lib/world.js';
import { codexExec } from '../lib/codex.js';

const w = await devWorld();

test('codex exec drives its shell tool (exec_command) through the free model', async () => {
  // No sandbox: Codex's Linux sandbox needs a helper it refuses to install
  // under /tmp (where the test's CODEX_HOME lives); the command is the
  // scripted model's fixed `ls`, in a fresh temporary directory.
  const r = await codexExec(w.dev.baseURL, FREE, 'use exec_command to list the files here', { 'farebox-marker.txt': 'hello\n' }, 'danger-full-access');
  assert.equal(r.code, 0, `codex exec failed:\n${r.out}\n${r.err}`);
  // The command ran in the working directory: its listing is in the
  // output the model quotes back.
  assert.match(r.out, /exec_command returned: [^]*Process exited with code 0[^]*farebox-marker\.txt/, `codex printed:\n${r.out}\n${r.err}`);
});
