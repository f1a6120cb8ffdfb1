// Compiles the vendored x402 batch-settlement and upto contracts and farebox's test contracts
// (FareboxUSDv2, DevWallet) with solc-js 0.8.28 (the x402 repo's foundry.toml: optimizer 200
// runs, cancun, no metadata hash), and
// canonical Permit2 with solc-js 0.8.17 (Permit2's foundry.toml: via-IR, 1000000 runs).
// Writes <Contract>.abi and <Contract>.bin next to this file. Run by `go generate`.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = __dirname;
const remaps = [
  ['@openzeppelin/contracts/', path.join(dir, 'node_modules/@openzeppelin/contracts/')],
  ['solmate/src/', path.join(dir, 'sol/solmate/src/')],
];

function findImports(p) {
  for (const [prefix, target] of remaps) {
    if (p.startsWith(prefix)) return { contents: fs.readFileSync(target + p.slice(prefix.length), 'utf8') };
  }
  const local = path.join(dir, p);
  if (fs.existsSync(local)) return { contents: fs.readFileSync(local, 'utf8') };
  return { error: 'not found: ' + p };
}

function compile(solc, files, settings, wanted) {
  const sources = {};
  for (const f of files) sources[f] = { content: fs.readFileSync(path.join(dir, f), 'utf8') };
  const input = {
    language: 'Solidity',
    sources,
    settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  for (const e of out.errors || []) if (e.severity === 'error') console.error(e.formattedMessage);
  if ((out.errors || []).some((e) => e.severity === 'error')) process.exit(1);
  for (const file of Object.keys(out.contracts).sort()) {
    for (const [name, c] of Object.entries(out.contracts[file])) {
      if (!wanted.includes(name)) continue;
      fs.writeFileSync(path.join(dir, name + '.abi'), JSON.stringify(c.abi, null, 1) + '\n');
      fs.writeFileSync(path.join(dir, name + '.bin'), c.evm.bytecode.object + '\n');
      console.log('compiled', name, 'with solc', solc.version());
    }
  }
}

compile(
  require('solc'),
  [
    'DevWallet.sol',
    'FareboxUSDv2.sol',
    'sol/x402/x402BatchSettlement.sol',
    'sol/x402/periphery/ERC3009DepositCollector.sol',
    'sol/x402/periphery/Permit2DepositCollector.sol',
    'sol/x402/x402UptoPermit2Proxy.sol',
  ],
  {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    metadata: { bytecodeHash: 'none', appendCBOR: false },
  },
  ['DevWallet', 'FareboxUSDv2', 'x402BatchSettlement', 'ERC3009DepositCollector', 'Permit2DepositCollector', 'x402UptoPermit2Proxy'],
);
compile(
  require('solc-0.8.17'),
  ['sol/permit2/src/Permit2.sol'],
  { optimizer: { enabled: true, runs: 1000000 }, viaIR: true, metadata: { bytecodeHash: 'none' } },
  ['Permit2'],
);
