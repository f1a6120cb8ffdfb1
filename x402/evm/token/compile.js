// Compiles the Solidity sources in this folder with the pinned solc-js and writes
// <Contract>.abi and <Contract>.bin next to them. Run by `go generate` (see generate.go).
'use strict';
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const dir = __dirname;
const sources = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[f] = { content: fs.readFileSync(path.join(dir, f), 'utf8') };
}
const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === 'error');
for (const e of out.errors || []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);
for (const file of Object.keys(out.contracts).sort()) {
  for (const [name, c] of Object.entries(out.contracts[file])) {
    fs.writeFileSync(path.join(dir, name + '.abi'), JSON.stringify(c.abi, null, 1) + '\n');
    fs.writeFileSync(path.join(dir, name + '.bin'), c.evm.bytecode.object + '\n');
    console.log('compiled', name, 'with solc', solc.version());
  }
}
