// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";
import {IERC2309} from "@openzeppelin/contracts/interfaces/IERC2309.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @dev ERC-5192: minimal soulbound NFTs. Not shipped by OpenZeppelin.
interface IERC5192 {
    event Locked(uint256 tokenId);
    event Unlocked(uint256 tokenId);

    function locked(uint256 tokenId) external view returns (bool);
}

/// @title SealRegistry
/// @notice Anchors batches of sealed records as consecutive, non-transferable ERC-721 tokens.
///
/// One `anchor` transaction stores the Merkle root of a batch and mints `count` consecutive token ids to the
/// registry's holder, announced with a single ERC-2309 `ConsecutiveTransfer` event. Nothing is written per
/// token: ownership, balance and metadata are derived from the batch list, so a record costs the batch's gas
/// divided by its size. A registry deployed with `perTokenTransfers` announces each minted token with its own
/// ERC-721 `Transfer` event instead (EIP-721 exempts only contract creation from Transfer events, and some
/// explorers and wallets ignore ERC-2309), at the price of one log per record.
///
/// Merkle tree (mirrored exactly by package evm in Go):
///   leaf  = keccak256(0x00 || uint256 tokenId || bytes32 contentHash)
///   inner = keccak256(0x01 || min(a, b) || max(a, b))
/// The 0x00/0x01 prefixes keep leaves and inner nodes apart (no second-preimage via a 64-byte leaf); sorted
/// pairs mean a proof is just the list of siblings. A level with an odd number of nodes promotes its last node
/// unchanged to the next level (it is never paired with itself), so a batch of one has its leaf as the root
/// and an empty proof.
///
/// Tokens are soulbound (ERC-5192): a token stands for "seald anchored this hash"; moving it to another
/// address would not move that fact, so transfers and approvals revert. ERC-5192 suggests a Locked event
/// per minted token; none is emitted, as one event per token would cost more than the whole per-record
/// budget of a batch. locked() answers true for every token instead.
contract SealRegistry is IERC721Metadata, IERC5192, IERC2309, IERC721Errors, Ownable {
    using BitMaps for BitMaps.BitMap;

    /// @notice The id of the first token ever minted; 0 is never a token.
    uint256 public constant FIRST_TOKEN_ID = 1;

    /// @notice The largest batch one anchor may mint: ERC-2309 ranges beyond this are not indexed reliably.
    uint256 public constant MAX_BATCH_SIZE = 5000;

    /// @notice The address every token is minted to and held by. It is the deployer's owner at construction
    /// and does not follow later ownership transfers, so the ConsecutiveTransfer events stay true.
    address public immutable holder;

    /// @notice True when each minted token is announced by its own Transfer event, false for one
    /// ConsecutiveTransfer per batch. Fixed at deployment.
    bool public immutable perTokenTransfers;

    /// @notice The id the next anchored batch must start with.
    uint256 public nextTokenId = FIRST_TOKEN_ID;

    // First token id of each batch, ascending; packed four per slot.
    uint64[] private _batchFirst;
    // Merkle root of each batch, by batch index.
    mapping(uint256 batchIndex => bytes32) private _batchRoot;
    BitMaps.BitMap private _revoked;
    string private _baseTokenURI;

    /// @notice A batch was anchored: tokens firstTokenId .. firstTokenId+count-1 commit to root.
    event BatchAnchored(uint256 indexed batchIndex, bytes32 indexed root, uint256 firstTokenId, uint256 count);
    /// @notice A token was revoked by the owner; it still exists and still proves its hash was anchored.
    event Revoked(uint256 indexed tokenId);
    /// @notice The prefix of tokenURI changed.
    event BaseURIChanged(string baseURI);

    /// @notice The batch does not start at nextTokenId: it was already minted, or an earlier one is missing.
    error UnexpectedFirstTokenId(uint256 expected, uint256 given);
    /// @notice A batch must mint between 1 and MAX_BATCH_SIZE tokens.
    error InvalidBatchSize(uint256 count);
    /// @notice A zero Merkle root commits to nothing.
    error EmptyRoot();
    /// @notice Tokens cannot be transferred or approved.
    error Soulbound();

    constructor(address initialOwner, string memory baseURI, bool perTokenTransfers_) Ownable(initialOwner) {
        holder = initialOwner;
        _baseTokenURI = baseURI;
        perTokenTransfers = perTokenTransfers_;
    }

    // ---- anchoring ----

    /// @notice Anchors a batch: stores its Merkle root and mints `count` tokens from `firstTokenId`.
    /// @dev Requiring firstTokenId == nextTokenId makes a resent or duplicated batch transaction revert
    /// instead of minting the same records twice.
    function anchor(bytes32 root, uint256 firstTokenId, uint256 count) external onlyOwner {
        uint256 next = nextTokenId;
        if (firstTokenId != next) revert UnexpectedFirstTokenId(next, firstTokenId);
        if (count == 0 || count > MAX_BATCH_SIZE) revert InvalidBatchSize(count);
        if (root == bytes32(0)) revert EmptyRoot();
        uint256 index = _batchFirst.length;
        _batchFirst.push(uint64(firstTokenId));
        _batchRoot[index] = root;
        uint256 last = firstTokenId + count - 1;
        nextTokenId = last + 1;
        if (perTokenTransfers) {
            address to = holder;
            for (uint256 id = firstTokenId; id <= last; ++id) {
                emit Transfer(address(0), to, id);
            }
        } else {
            emit ConsecutiveTransfer(firstTokenId, last, address(0), holder);
        }
        emit BatchAnchored(index, root, firstTokenId, count);
    }

    /// @notice Marks a token revoked. Revoking a revoked token does nothing, so a retried call succeeds.
    function revoke(uint256 tokenId) external onlyOwner {
        _requireMinted(tokenId);
        if (_revoked.get(tokenId)) return;
        _revoked.set(tokenId);
        emit Revoked(tokenId);
    }

    /// @notice Sets the prefix of tokenURI (the decimal token id is appended).
    function setBaseURI(string calldata baseURI) external onlyOwner {
        _baseTokenURI = baseURI;
        emit BaseURIChanged(baseURI);
    }

    // ---- proofs ----

    /// @notice Whether `proof` shows that token `tokenId` anchors `contentHash`. False for unknown tokens.
    /// Revocation is not considered here: see isRevoked.
    function verify(uint256 tokenId, bytes32 contentHash, bytes32[] calldata proof) external view returns (bool) {
        if (tokenId < FIRST_TOKEN_ID || tokenId >= nextTokenId) return false;
        bytes32 root = _batchRoot[_batchIndex(tokenId)];
        return MerkleProof.verifyCalldata(proof, root, leafHash(tokenId, contentHash), _hashPair);
    }

    /// @notice The Merkle leaf of a token and its content hash.
    function leafHash(uint256 tokenId, bytes32 contentHash) public pure returns (bytes32) {
        return keccak256(abi.encodePacked(bytes1(0x00), tokenId, contentHash));
    }

    /// @notice The Merkle root of the batch that minted `tokenId`.
    function rootOf(uint256 tokenId) external view returns (bytes32) {
        _requireMinted(tokenId);
        return _batchRoot[_batchIndex(tokenId)];
    }

    /// @notice The batch that minted `tokenId`: its index, root, first token id and size.
    function batchOf(uint256 tokenId)
        external
        view
        returns (uint256 index, bytes32 root, uint256 firstTokenId, uint256 count)
    {
        _requireMinted(tokenId);
        index = _batchIndex(tokenId);
        root = _batchRoot[index];
        firstTokenId = _batchFirst[index];
        uint256 end = index + 1 < _batchFirst.length ? _batchFirst[index + 1] : nextTokenId;
        count = end - firstTokenId;
    }

    /// @notice How many batches have been anchored.
    function batchCount() external view returns (uint256) {
        return _batchFirst.length;
    }

    /// @notice Whether the owner revoked `tokenId`.
    function isRevoked(uint256 tokenId) external view returns (bool) {
        _requireMinted(tokenId);
        return _revoked.get(tokenId);
    }

    // ---- ERC-721 (read side) ----

    /// @inheritdoc IERC721
    function balanceOf(address account) external view returns (uint256) {
        if (account == address(0)) revert ERC721InvalidOwner(address(0));
        return account == holder ? nextTokenId - FIRST_TOKEN_ID : 0;
    }

    /// @inheritdoc IERC721
    function ownerOf(uint256 tokenId) external view returns (address) {
        _requireMinted(tokenId);
        return holder;
    }

    /// @inheritdoc IERC721Metadata
    function name() external pure returns (string memory) {
        return "seald";
    }

    /// @inheritdoc IERC721Metadata
    function symbol() external pure returns (string memory) {
        return "SEAL";
    }

    /// @inheritdoc IERC721Metadata
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        _requireMinted(tokenId);
        string memory base = _baseTokenURI;
        return bytes(base).length == 0 ? "" : string.concat(base, Strings.toString(tokenId));
    }

    /// @inheritdoc IERC721
    function getApproved(uint256 tokenId) external view returns (address) {
        _requireMinted(tokenId);
        return address(0);
    }

    /// @inheritdoc IERC721
    function isApprovedForAll(address, address) external pure returns (bool) {
        return false;
    }

    /// @inheritdoc IERC5192
    function locked(uint256 tokenId) external view returns (bool) {
        _requireMinted(tokenId);
        return true;
    }

    /// @inheritdoc IERC165
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC165).interfaceId || interfaceId == type(IERC721).interfaceId
            || interfaceId == type(IERC721Metadata).interfaceId || interfaceId == type(IERC5192).interfaceId;
    }

    // ---- ERC-721 (write side): soulbound ----

    /// @notice Always reverts: tokens are soulbound.
    function approve(address, uint256) external pure {
        revert Soulbound();
    }

    /// @notice Always reverts: tokens are soulbound.
    function setApprovalForAll(address, bool) external pure {
        revert Soulbound();
    }

    /// @notice Always reverts: tokens are soulbound.
    function transferFrom(address, address, uint256) external pure {
        revert Soulbound();
    }

    /// @notice Always reverts: tokens are soulbound.
    function safeTransferFrom(address, address, uint256) external pure {
        revert Soulbound();
    }

    /// @notice Always reverts: tokens are soulbound.
    function safeTransferFrom(address, address, uint256, bytes calldata) external pure {
        revert Soulbound();
    }

    // ---- internals ----

    function _requireMinted(uint256 tokenId) private view {
        if (tokenId < FIRST_TOKEN_ID || tokenId >= nextTokenId) revert ERC721NonexistentToken(tokenId);
    }

    // The index of the last batch whose first token id is <= tokenId; tokenId must be minted.
    function _batchIndex(uint256 tokenId) private view returns (uint256) {
        uint256 lo = 0;
        uint256 hi = _batchFirst.length;
        while (hi - lo > 1) {
            uint256 mid = (lo + hi) / 2;
            if (_batchFirst[mid] <= tokenId) lo = mid;
            else hi = mid;
        }
        return lo;
    }

    function _hashPair(bytes32 a, bytes32 b) private pure returns (bytes32) {
        return a < b
            ? keccak256(abi.encodePacked(bytes1(0x01), a, b))
            : keccak256(abi.encodePacked(bytes1(0x01), b, a));
    }
}
