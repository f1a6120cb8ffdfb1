// What a test against `farebox dev` works with: the server, the dev payer's
// viem account, a chain reader and the price, all read from the banner.
import { privateKeyToAccount } from 'viem/accounts';
import { parseUnits } from 'viem';
import { sharedDev } from './farebox.js';
import { DEV_RELAYER, chainReader } from './chain.js';
import { payingFetch } from './paying.js';

// Model names farebox dev serves.
export const PAID = 'farebox-scripted';
export const FREE = 'farebox-scripted-free';

// devWorld connects to the shared `farebox dev` (or starts one).
export async function devWorld() {
  const dev = await sharedDev();
  const account = privateKeyToAccount(dev.payerKey);
  const chain = chainReader({ rpcURL: dev.rpcURL, chainId: dev.chainId, token: dev.token, relayers: [DEV_RELAYER] });
  return {
    dev,
    account,
    chain,
    price: parseUnits(dev.price, 6),
    // pay is a fresh @x402/fetch paying with the dev payer for the dev token.
    pay: () => payingFetch(account, { network: dev.network, asset: dev.token }),
    // assertPaid checks a receipt on chain: payer -> payTo, exactly the price.
    assertPaid: (receipt) =>
      chain.assertSettled(receipt, { payer: account.address, payTo: dev.payTo, amount: parseUnits(dev.price, 6), network: dev.network }),
    balance: () => chain.balanceOf(account.address),
  };
}
