// Reads the chain with viem, so a receipt farebox hands out is checked
// against what actually got mined.
import assert from 'node:assert/strict';
import { createPublicClient, defineChain, http, parseAbi, parseEventLogs, getAddress } from 'viem';

export const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

// localChain describes a loopback chain for viem.
export function localChain(id, rpcURL) {
  return defineChain({
    id,
    name: `local-${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcURL] } },
  });
}

// chainReader is a viem public client plus the token's balance reader.
export function chainReader({ rpcURL, chainId, token }) {
  const chain = localChain(chainId, rpcURL);
  const client = createPublicClient({ chain, transport: http(rpcURL) });
  return {
    chain,
    client,
    balanceOf: (who) => client.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [who] }),
    nonceUsed: (who, nonce) =>
      client.readContract({ address: token, abi: erc20, functionName: 'authorizationState', args: [who, nonce] }),
    // assertSettled checks that receipt (an x402 SettleResponse) names a
    // mined, successful transaction on this chain that moved exactly
    // amount of the token from payer to payTo, and used the payer's
    // authorization.
    async assertSettled(receipt, { payer, payTo, amount, network }) {
      assert.equal(receipt.success, true, `receipt not successful: ${JSON.stringify(receipt)}`);
      assert.match(receipt.transaction, /^0x[0-9a-fA-F]{64}$/);
      assert.equal(getAddress(receipt.payer), getAddress(payer));
      if (network) assert.equal(receipt.network, network);
      const tx = await client.getTransactionReceipt({ hash: receipt.transaction });
      assert.equal(tx.status, 'success');
      assert.equal(getAddress(tx.to), getAddress(token));
      const logs = parseEventLogs({ abi: erc20, logs: tx.logs });
      const transfers = logs.filter((l) => l.eventName === 'Transfer' && getAddress(l.address) === getAddress(token));
      assert.equal(transfers.length, 1, 'one Transfer in the settlement');
      assert.equal(getAddress(transfers[0].args.from), getAddress(payer));
      assert.equal(getAddress(transfers[0].args.to), getAddress(payTo));
      assert.equal(transfers[0].args.value, BigInt(amount));
      const used = logs.filter((l) => l.eventName === 'AuthorizationUsed');
      assert.equal(used.length, 1, 'one AuthorizationUsed in the settlement');
      assert.equal(getAddress(used[0].args.authorizer), getAddress(payer));
      return tx;
    },
  };
}
