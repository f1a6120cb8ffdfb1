// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title HostileWallet: an EIP-1271 wallet that accepts every signature, except when asked by
/// the address it was told to refuse (for a hostile-payer test: the x402BatchSettlement contract;
/// the zero address refuses no one). Anyone may change that address, so a test can turn the
/// wallet hostile after it paid.
contract HostileWallet {
    address public refused;

    constructor(address refused_) {
        refused = refused_;
    }

    function refuse(address who) external {
        refused = who;
    }

    function isValidSignature(bytes32, bytes calldata) external view returns (bytes4) {
        return refused != address(0) && msg.sender == refused ? bytes4(0xffffffff) : bytes4(0x1626ba7e);
    }
}
