// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @title PlainERC721
/// @notice The baseline of seald's gas benchmark: a stock OpenZeppelin ERC-721 minting one token per
/// transaction, the cost SealRegistry's batches are compared with. Not deployed by seald.
contract PlainERC721 is ERC721 {
    constructor() ERC721("plain", "PLAIN") {}

    /// @notice Mints one token with OpenZeppelin's _mint; open to anyone, it exists only to be measured.
    function mint(address to, uint256 tokenId) external {
        _mint(to, tokenId);
    }
}
