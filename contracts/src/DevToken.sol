// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title DevToken
/// @notice The dev chain's second tradeable token, DEV ("Dev Token", 18
/// decimals): a fixed supply of 1,000,000 tokens minted once to the deployer,
/// which pairs part of it with WETH on Uniswap V2. There is no mint function;
/// it is not a real token.
contract DevToken is ERC20 {
    /// @notice The fixed total supply: 1,000,000 tokens of 18 decimals.
    uint256 public constant TOTAL_SUPPLY = 1_000_000 * 1e18;

    /// @notice Mints the whole supply to the deployer.
    constructor() ERC20("Dev Token", "DEV") {
        _mint(msg.sender, TOTAL_SUPPLY);
    }
}
