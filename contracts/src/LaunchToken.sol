// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @dev The fixed supply of every LaunchToken: 100,000,000,000 tokens of 18 decimals.
uint256 constant LAUNCH_TOKEN_SUPPLY = 100_000_000_000 * 1e18;

/// @title ILaunchParameters
/// @notice What a LaunchToken reads from its deployer while being constructed:
/// passing the parameters this way keeps the token's init code constant, so
/// its CREATE2 address depends on the deployer and the salt only.
interface ILaunchParameters {
    /// @notice The name, symbol and vault of the token being deployed.
    function launchParameters() external view returns (string memory name, string memory symbol, address vault);
}

/// @title LaunchToken
/// @notice A launched ERC-20: 18 decimals and a fixed supply of 100 billion
/// tokens, all minted once to the deployer (the FeesManager) in the
/// constructor. There is no mint function. `vault`, the recipient of the
/// vested tokens, is fixed at deployment and is not the fee beneficiary.
contract LaunchToken is ERC20 {
    /// @notice The fixed total supply: 100,000,000,000 tokens of 18 decimals.
    uint256 public constant TOTAL_SUPPLY = LAUNCH_TOKEN_SUPPLY;

    /// @notice The recipient of the vested tokens; never changes.
    address public immutable vault;

    /// @notice The vault is the zero address.
    error ZeroVault();

    /// @notice Reads name, symbol and vault from the deployer and mints the
    /// whole supply to it.
    constructor()
        ERC20(_name(), _symbol())
    {
        (,, address vault_) = ILaunchParameters(msg.sender).launchParameters();
        if (vault_ == address(0)) revert ZeroVault();
        vault = vault_;
        _mint(msg.sender, TOTAL_SUPPLY);
    }

    /// @dev The name the deployer launches the token with.
    function _name() private view returns (string memory name_) {
        (name_,,) = ILaunchParameters(msg.sender).launchParameters();
    }

    /// @dev The symbol the deployer launches the token with.
    function _symbol() private view returns (string memory symbol_) {
        (, symbol_,) = ILaunchParameters(msg.sender).launchParameters();
    }
}
