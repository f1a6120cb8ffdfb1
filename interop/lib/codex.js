// Runs the pinned OpenAI Codex CLI (@openai/codex) headless for the tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';

// The pinned package's launcher, wherever npm put it (the root's
// node_modules when interop is a workspace of the repository).
const codexBin = join(dirname(createRequire(import.meta.url).resolve('@openai/codex/package.json')), 'bin', 'codex.js');

// codexExec runs `codex exec PROMPT` headless with a fresh CODEX_HOME whose
// config.toml points a custom provider at baseURL (the README's lines), in
// a fresh working directory holding files ({name: text}). sandbox is
// Codex's --sandbox mode.
export function codexExec(baseURL, model, prompt, files = {}, sandbox = 'read-only') {
  const home = mkdtempSync(join(tmpdir(), 'farebox-codex-home-'));
  writeFileSync(join(home, 'config.toml'), [
    `model = "${model}"`,
    'model_provider = "farebox"',
    '',
    '[model_providers.farebox]',
    'name = "farebox"',
    `base_url = "${baseURL}"`,
    'wire_api = "responses"',
    'env_key = "FAREBOX_API_KEY"',
    '',
  ].join('\n'));
  const work = mkdtempSync(join(tmpdir(), 'farebox-codex-work-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text);
  const env = { ...process.env, CODEX_HOME: home, FAREBOX_API_KEY: 'unused-by-farebox' };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const child = spawn(process.execPath, [codexBin, 'exec', '--skip-git-repo-check', '--sandbox', sandbox, '--color', 'never', prompt], {
    cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`codex exec: no end after 180 s\n${out}\n${err}`)); }, 180_000);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

