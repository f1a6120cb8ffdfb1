// Dumps @x402/evm's own network table as JSON on stdout: every entry of
// DEFAULT_ASSETS (CAIP-2 id -> its default token, index 0, with the EIP-712
// domain the official client signs) and the v1 names of
// EVM_NETWORK_CHAIN_ID_MAP. x402/networks_table_test.go compares farebox's
// built-in table with it, so an upgrade of the pinned package that moves a
// token or renames a domain fails a test instead of a payment.
import { DEFAULT_ASSETS } from "@x402/evm";
import { EVM_NETWORK_CHAIN_ID_MAP } from "@x402/evm/v1";
import { readFileSync } from "node:fs";

// The package exports no package.json; its entry point sits two folders below it.
const entry = new URL(import.meta.resolve("@x402/evm"));
const { version } = JSON.parse(readFileSync(new URL("../../package.json", entry), "utf8"));
const names = {};
for (const [name, id] of Object.entries(EVM_NETWORK_CHAIN_ID_MAP)) {
  (names[`eip155:${id}`] ??= []).push(name);
}
const networks = Object.entries(DEFAULT_ASSETS).map(([caip2, assets]) => {
  const a = assets[0];
  return {
    caip2,
    chainId: Number(caip2.split(":")[1]),
    v1Names: names[caip2] ?? [],
    asset: a.asset,
    name: a.name,
    version: a.version,
    decimals: a.decimals,
    symbol: a.symbol,
    transferMethod: a.assetTransferMethod ?? "",
  };
});
process.stdout.write(JSON.stringify({ version, networks, v1Names: EVM_NETWORK_CHAIN_ID_MAP }, null, 1) + "\n");
