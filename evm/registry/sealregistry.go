// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package registry

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// SealRegistryMetaData contains all meta data concerning the SealRegistry contract.
var SealRegistryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"initialOwner\",\"type\":\"address\"},{\"internalType\":\"string\",\"name\":\"baseURI\",\"type\":\"string\"},{\"internalType\":\"bool\",\"name\":\"perTokenTransfers_\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ERC721IncorrectOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ERC721InsufficientApproval\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC721InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"}],\"name\":\"ERC721InvalidOperator\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ERC721InvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC721InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC721InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ERC721NonexistentToken\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyRoot\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"}],\"name\":\"InvalidBatchSize\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"OwnableInvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"OwnableUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Soulbound\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"given\",\"type\":\"uint256\"}],\"name\":\"UnexpectedFirstTokenId\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"approved\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"}],\"name\":\"ApprovalForAll\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"baseURI\",\"type\":\"string\"}],\"name\":\"BaseURIChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"batchIndex\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"firstTokenId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"}],\"name\":\"BatchAnchored\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"fromTokenId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"toTokenId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"fromAddress\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"toAddress\",\"type\":\"address\"}],\"name\":\"ConsecutiveTransfer\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Locked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousOwner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"OwnershipTransferred\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Revoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Unlocked\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"FIRST_TOKEN_ID\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_BATCH_SIZE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"firstTokenId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"}],\"name\":\"anchor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"batchCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"batchOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"firstTokenId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"getApproved\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"holder\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isApprovedForAll\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"isRevoked\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"contentHash\",\"type\":\"bytes32\"}],\"name\":\"leafHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"locked\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"nextTokenId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ownerOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"perTokenTransfers\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"renounceOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"revoke\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"rootOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"safeTransferFrom\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"name\":\"safeTransferFrom\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"name\":\"setApprovalForAll\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"baseURI\",\"type\":\"string\"}],\"name\":\"setBaseURI\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"tokenURI\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"contentHash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32[]\",\"name\":\"proof\",\"type\":\"bytes32[]\"}],\"name\":\"verify\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "SealRegistry",
	Bin: "0x60c060405260018055348015610013575f5ffd5b5060405161186838038061186883398101604081905261003291610108565b826001600160a01b03811661006057604051631e4fbdf760e01b81525f600482015260240160405180910390fd5b61006981610091565b506001600160a01b0383166080526005610083838261026a565b50151560a052506103249050565b5f80546001600160a01b038381166001600160a01b0319831681178455604051919092169283917f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e09190a35050565b634e487b7160e01b5f52604160045260245ffd5b80518015158114610103575f5ffd5b919050565b5f5f5f6060848603121561011a575f5ffd5b83516001600160a01b0381168114610130575f5ffd5b60208501519093506001600160401b0381111561014b575f5ffd5b8401601f8101861361015b575f5ffd5b80516001600160401b03811115610174576101746100e0565b604051601f8201601f19908116603f011681016001600160401b03811182821017156101a2576101a26100e0565b6040528181528282016020018810156101b9575f5ffd5b8160208401602083015e5f602083830101528094505050506101dd604085016100f4565b90509250925092565b600181811c908216806101fa57607f821691505b60208210810361021857634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561026557805f5260205f20601f840160051c810160208510156102435750805b601f840160051c820191505b81811015610262575f815560010161024f565b50505b505050565b81516001600160401b03811115610283576102836100e0565b6102978161029184546101e6565b8461021e565b6020601f8211600181146102c9575f83156102b25750848201515b5f19600385901b1c1916600184901b178455610262565b5f84815260208120601f198516915b828110156102f857878501518255602094850194600190920191016102d8565b508482101561031557868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b60805160a0516115006103685f395f81816103f6015261094f01525f8181610430015281816107270152818161077c0152818161097501526109ed01526115005ff3fe608060405234801561000f575f5ffd5b50600436106101dc575f3560e01c806375794a3c11610109578063bb1269d61161009e578063dc299d691161006e578063dc299d6914610418578063e534155d1461042b578063e985e9c514610452578063f2fde38b14610467575f5ffd5b8063bb1269d6146103cd578063c87b56dd146103d5578063cfdbf254146103e8578063d2db0a1e146103f1575f5ffd5b8063a0d11260116100d9578063a0d112601461038b578063a22cb4651461039e578063b45a3c0e146103ac578063b88d4fde146103bf575f5ffd5b806375794a3c1461033f5780638da5cb5b1461034857806394af35381461035857806395d89b411461036b575f5ffd5b806320c5429b1161017f5780635ccc561e1161014f5780635ccc561e146102fe5780636352211e1461031157806370a0823114610324578063715018a614610337575f5ffd5b806320c5429b146102ca57806323b872dd146102dd57806342842e0e146102dd57806355f804b3146102eb575f5ffd5b8063081812fc116101ba578063081812fc1461024457806308f107171461026f578063095ea7b31461028257806318c1088514610297575f5ffd5b806301ffc9a7146101e057806306f130561461020857806306fdde031461021a575b5f5ffd5b6101f36101ee366004610f4f565b61047a565b60405190151581526020015b60405180910390f35b6002545b6040519081526020016101ff565b6040805180820190915260058152641cd9585b1960da1b60208201525b6040516101ff9190610f76565b610257610252366004610fab565b6104e6565b6040516001600160a01b0390911681526020016101ff565b61020c61027d366004610fc2565b6104f7565b610295610290366004610ffd565b61052c565b005b6102aa6102a5366004610fab565b610545565b6040805194855260208501939093529183015260608201526080016101ff565b6102956102d8366004610fab565b610622565b610295610290366004611025565b6102956102f93660046110a4565b61069b565b6101f361030c366004610fab565b6106ee565b61025761031f366004610fab565b61071a565b61020c6103323660046110e3565b61074b565b6102956107c7565b61020c60015481565b5f546001600160a01b0316610257565b6101f36103663660046110fc565b6107da565b60408051808201909152600481526314d1505360e21b6020820152610237565b61029561039936600461117b565b610839565b6102956102903660046111a4565b6101f36103ba366004610fab565b610a9f565b6102956102903660046111dd565b61020c600181565b6102376103e3366004610fab565b610ab1565b61020c61138881565b6101f37f000000000000000000000000000000000000000000000000000000000000000081565b61020c610426366004610fab565b610b96565b6102577f000000000000000000000000000000000000000000000000000000000000000081565b6101f3610460366004611247565b5f92915050565b6102956104753660046110e3565b610bc1565b5f6001600160e01b031982166301ffc9a760e01b14806104aa57506001600160e01b031982166380ac58cd60e01b145b806104c557506001600160e01b03198216635b5e139f60e01b145b806104e057506001600160e01b03198216635a2d1e0760e11b145b92915050565b5f6104f082610bfb565b505f919050565b6040515f9061050e90829085908590602001611278565b60405160208183030381529060405280519060200120905092915050565b60405163a4420a9560e01b815260040160405180910390fd5b5f5f5f5f61055285610bfb565b61055b85610c2d565b935060035f8581526020019081526020015f20549250600284815481106105845761058461129a565b5f9182526020822060048204015460025460039092166008026101000a900467ffffffffffffffff1693506105ba8660016112c2565b106105c75760015461060c565b60026105d48660016112c2565b815481106105e4576105e461129a565b5f918252602090912060048204015460039091166008026101000a900467ffffffffffffffff165b905061061883826112d5565b9150509193509193565b61062a610cb9565b61063381610bfb565b600881901c5f90815260046020526040902054600160ff83161b1661069857600881901c5f908152600460205260408082208054600160ff86161b1790555182917f61e27b0bfd8e18e6b92ec32ce1c28bb698d27bfe93e84c7e94d4db0a3135c76091a25b50565b6106a3610cb9565b60056106b0828483611380565b507f5411e8ebf1636d9e83d5fc4900bf80cbac82e8790da2a4c94db4895e889eedf682826040516106e292919061143a565b60405180910390a15050565b5f6106f882610bfb565b600882901c5f90815260046020526040902054600160ff84161b1615156104e0565b5f61072482610bfb565b507f0000000000000000000000000000000000000000000000000000000000000000919050565b5f6001600160a01b03821661077a576040516322718ad960e21b81525f60048201526024015b60405180910390fd5b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316826001600160a01b0316146107b9575f6104e0565b600180546104e091906112d5565b6107cf610cb9565b6107d85f610ce5565b565b5f60018510806107ec57506001548510155b156107f857505f610831565b5f60035f61080588610c2d565b81526020019081526020015f2054905061082d8484836108258a8a6104f7565b610d34610d89565b9150505b949350505050565b610841610cb9565b60015482811461086e57604051633634250d60e11b81526004810182905260248101849052604401610771565b81158061087c575061138882115b1561089d5760405163a6f7498560e01b815260048101839052602401610771565b836108bb576040516329e7276760e11b815260040160405180910390fd5b6002805460018082019092557f405787fa12a823e0f2b7631cc41b3ba8828b3321ca811111fa75cd3aa3bb5ace6004820401805460038084166008026101000a67ffffffffffffffff8181021990931692891602919091179091555f82815260209190915260408120879055909161093385876112c2565b61093d91906112d5565b905061094a8160016112c2565b6001557f0000000000000000000000000000000000000000000000000000000000000000156109eb577f0000000000000000000000000000000000000000000000000000000000000000855b8281116109e45760405181906001600160a01b038416905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef908290a46109dd81611468565b9050610996565b5050610a5a565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165f6001600160a01b0316867fdeaa91b6123d068f5821d0fb0678463d1a8a6079fe8af5de3ce5e896dcf9133d84604051610a5191815260200190565b60405180910390a45b6040805186815260208101869052879184917f67f7566d8f649610f89dae56d799263b077ca19135f691632ba3f8c29f5c0e4a910160405180910390a3505050505050565b5f610aa982610bfb565b506001919050565b6060610abc82610bfb565b5f60058054610aca906112fc565b80601f0160208091040260200160405190810160405280929190818152602001828054610af6906112fc565b8015610b415780601f10610b1857610100808354040283529160200191610b41565b820191905f5260205f20905b815481529060010190602001808311610b2457829003601f168201915b5050505050905080515f14610b7f5780610b5a84610da2565b604051602001610b6b929190611497565b604051602081830303815290604052610b8f565b60405180602001604052805f8152505b9392505050565b5f610ba082610bfb565b60035f610bac84610c2d565b81526020019081526020015f20549050919050565b610bc9610cb9565b6001600160a01b038116610bf257604051631e4fbdf760e01b81525f6004820152602401610771565b61069881610ce5565b6001811080610c0c57506001548110155b1561069857604051637e27328960e01b815260048101829052602401610771565b6002545f9081905b6001610c4183836112d5565b1115610cb2575f6002610c5483856112c2565b610c5e91906114ab565b90508460028281548110610c7457610c7461129a565b5f918252602090912060048204015460039091166008026101000a900467ffffffffffffffff1611610ca857809250610cac565b8091505b50610c35565b5092915050565b5f546001600160a01b031633146107d85760405163118cdaa760e01b8152336004820152602401610771565b5f80546001600160a01b038381166001600160a01b0319831681178455604051919092169283917f8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e09190a35050565b5f818310610d7057604051610d5590600160f81b9084908690602001611278565b60405160208183030381529060405280519060200120610b8f565b60405161050e90600160f81b9085908590602001611278565b5f83610d9787878686610e32565b149695505050505050565b60605f610dae83610e78565b60010190505f8167ffffffffffffffff811115610dcd57610dcd6112e8565b6040519080825280601f01601f191660200182016040528015610df7576020820181803683370190505b5090508181016020015b5f19016f181899199a1a9b1b9c1cb0b131b232b360811b600a86061a8153600a8504945084610e0157509392505050565b5f82815b85811015610e6e57610e6482888884818110610e5457610e5461129a565b905060200201358663ffffffff16565b9150600101610e36565b5095945050505050565b5f8072184f03e93ff9f4daa797ed6e38ed64bf6a1f0160401b8310610eb65772184f03e93ff9f4daa797ed6e38ed64bf6a1f0160401b830492506040015b6d04ee2d6d415b85acef81000000008310610ee2576d04ee2d6d415b85acef8100000000830492506020015b662386f26fc100008310610f0057662386f26fc10000830492506010015b6305f5e1008310610f18576305f5e100830492506008015b6127108310610f2c57612710830492506004015b60648310610f3e576064830492506002015b600a83106104e05760010192915050565b5f60208284031215610f5f575f5ffd5b81356001600160e01b031981168114610b8f575f5ffd5b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f60208284031215610fbb575f5ffd5b5035919050565b5f5f60408385031215610fd3575f5ffd5b50508035926020909101359150565b80356001600160a01b0381168114610ff8575f5ffd5b919050565b5f5f6040838503121561100e575f5ffd5b61101783610fe2565b946020939093013593505050565b5f5f5f60608486031215611037575f5ffd5b61104084610fe2565b925061104e60208501610fe2565b929592945050506040919091013590565b5f5f83601f84011261106f575f5ffd5b50813567ffffffffffffffff811115611086575f5ffd5b60208301915083602082850101111561109d575f5ffd5b9250929050565b5f5f602083850312156110b5575f5ffd5b823567ffffffffffffffff8111156110cb575f5ffd5b6110d78582860161105f565b90969095509350505050565b5f602082840312156110f3575f5ffd5b610b8f82610fe2565b5f5f5f5f6060858703121561110f575f5ffd5b8435935060208501359250604085013567ffffffffffffffff811115611133575f5ffd5b8501601f81018713611143575f5ffd5b803567ffffffffffffffff811115611159575f5ffd5b8760208260051b840101111561116d575f5ffd5b949793965060200194505050565b5f5f5f6060848603121561118d575f5ffd5b505081359360208301359350604090920135919050565b5f5f604083850312156111b5575f5ffd5b6111be83610fe2565b9150602083013580151581146111d2575f5ffd5b809150509250929050565b5f5f5f5f5f608086880312156111f1575f5ffd5b6111fa86610fe2565b945061120860208701610fe2565b935060408601359250606086013567ffffffffffffffff81111561122a575f5ffd5b6112368882890161105f565b969995985093965092949392505050565b5f5f60408385031215611258575f5ffd5b61126183610fe2565b915061126f60208401610fe2565b90509250929050565b6001600160f81b03199390931683526001830191909152602182015260410190565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52601160045260245ffd5b808201808211156104e0576104e06112ae565b818103818111156104e0576104e06112ae565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061131057607f821691505b60208210810361132e57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561137b57805f5260205f20601f840160051c810160208510156113595750805b601f840160051c820191505b81811015611378575f8155600101611365565b50505b505050565b67ffffffffffffffff831115611398576113986112e8565b6113ac836113a683546112fc565b83611334565b5f601f8411600181146113dd575f85156113c65750838201355b5f19600387901b1c1916600186901b178355611378565b5f83815260208120601f198716915b8281101561140c57868501358255602094850194600190920191016113ec565b5086821015611428575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b60208152816020820152818360408301375f818301604090810191909152601f909201601f19160101919050565b5f60018201611479576114796112ae565b5060010190565b5f81518060208401855e5f93019283525090919050565b5f6108316114a58386611480565b84611480565b5f826114c557634e487b7160e01b5f52601260045260245ffd5b50049056fea2646970667358221220576ed8ae226118e824dffa4941fd6b851585ba17d9ee2ee01569ed9766d8e17564736f6c634300081e0033",
}

// SealRegistry is an auto generated Go binding around an Ethereum contract.
type SealRegistry struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *SealRegistry) GetABI() abi.ABI {
	return c.abi
}

// NewSealRegistry creates a new instance of SealRegistry.
func NewSealRegistry() *SealRegistry {
	parsed, err := SealRegistryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &SealRegistry{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *SealRegistry) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address initialOwner, string baseURI, bool perTokenTransfers_) returns()
func (sealRegistry *SealRegistry) PackConstructor(initialOwner common.Address, baseURI string, perTokenTransfers_ bool) []byte {
	enc, err := sealRegistry.abi.Pack("", initialOwner, baseURI, perTokenTransfers_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackFIRSTTOKENID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbb1269d6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function FIRST_TOKEN_ID() view returns(uint256)
func (sealRegistry *SealRegistry) PackFIRSTTOKENID() []byte {
	enc, err := sealRegistry.abi.Pack("FIRST_TOKEN_ID")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFIRSTTOKENID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbb1269d6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function FIRST_TOKEN_ID() view returns(uint256)
func (sealRegistry *SealRegistry) TryPackFIRSTTOKENID() ([]byte, error) {
	return sealRegistry.abi.Pack("FIRST_TOKEN_ID")
}

// UnpackFIRSTTOKENID is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xbb1269d6.
//
// Solidity: function FIRST_TOKEN_ID() view returns(uint256)
func (sealRegistry *SealRegistry) UnpackFIRSTTOKENID(data []byte) (*big.Int, error) {
	out, err := sealRegistry.abi.Unpack("FIRST_TOKEN_ID", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXBATCHSIZE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcfdbf254.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_BATCH_SIZE() view returns(uint256)
func (sealRegistry *SealRegistry) PackMAXBATCHSIZE() []byte {
	enc, err := sealRegistry.abi.Pack("MAX_BATCH_SIZE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXBATCHSIZE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcfdbf254.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_BATCH_SIZE() view returns(uint256)
func (sealRegistry *SealRegistry) TryPackMAXBATCHSIZE() ([]byte, error) {
	return sealRegistry.abi.Pack("MAX_BATCH_SIZE")
}

// UnpackMAXBATCHSIZE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcfdbf254.
//
// Solidity: function MAX_BATCH_SIZE() view returns(uint256)
func (sealRegistry *SealRegistry) UnpackMAXBATCHSIZE(data []byte) (*big.Int, error) {
	out, err := sealRegistry.abi.Unpack("MAX_BATCH_SIZE", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0d11260.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchor(bytes32 root, uint256 firstTokenId, uint256 count) returns()
func (sealRegistry *SealRegistry) PackAnchor(root [32]byte, firstTokenId *big.Int, count *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("anchor", root, firstTokenId, count)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0d11260.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchor(bytes32 root, uint256 firstTokenId, uint256 count) returns()
func (sealRegistry *SealRegistry) TryPackAnchor(root [32]byte, firstTokenId *big.Int, count *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("anchor", root, firstTokenId, count)
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address , uint256 ) pure returns()
func (sealRegistry *SealRegistry) PackApprove(arg0 common.Address, arg1 *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("approve", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address , uint256 ) pure returns()
func (sealRegistry *SealRegistry) TryPackApprove(arg0 common.Address, arg1 *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("approve", arg0, arg1)
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (sealRegistry *SealRegistry) PackBalanceOf(account common.Address) []byte {
	enc, err := sealRegistry.abi.Pack("balanceOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (sealRegistry *SealRegistry) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return sealRegistry.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (sealRegistry *SealRegistry) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := sealRegistry.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackBatchCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06f13056.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function batchCount() view returns(uint256)
func (sealRegistry *SealRegistry) PackBatchCount() []byte {
	enc, err := sealRegistry.abi.Pack("batchCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBatchCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06f13056.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function batchCount() view returns(uint256)
func (sealRegistry *SealRegistry) TryPackBatchCount() ([]byte, error) {
	return sealRegistry.abi.Pack("batchCount")
}

// UnpackBatchCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06f13056.
//
// Solidity: function batchCount() view returns(uint256)
func (sealRegistry *SealRegistry) UnpackBatchCount(data []byte) (*big.Int, error) {
	out, err := sealRegistry.abi.Unpack("batchCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackBatchOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18c10885.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function batchOf(uint256 tokenId) view returns(uint256 index, bytes32 root, uint256 firstTokenId, uint256 count)
func (sealRegistry *SealRegistry) PackBatchOf(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("batchOf", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBatchOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18c10885.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function batchOf(uint256 tokenId) view returns(uint256 index, bytes32 root, uint256 firstTokenId, uint256 count)
func (sealRegistry *SealRegistry) TryPackBatchOf(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("batchOf", tokenId)
}

// BatchOfOutput serves as a container for the return parameters of contract
// method BatchOf.
type BatchOfOutput struct {
	Index        *big.Int
	Root         [32]byte
	FirstTokenId *big.Int
	Count        *big.Int
}

// UnpackBatchOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18c10885.
//
// Solidity: function batchOf(uint256 tokenId) view returns(uint256 index, bytes32 root, uint256 firstTokenId, uint256 count)
func (sealRegistry *SealRegistry) UnpackBatchOf(data []byte) (BatchOfOutput, error) {
	out, err := sealRegistry.abi.Unpack("batchOf", data)
	outstruct := new(BatchOfOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Index = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Root = *abi.ConvertType(out[1], new([32]byte)).(*[32]byte)
	outstruct.FirstTokenId = abi.ConvertType(out[2], new(big.Int)).(*big.Int)
	outstruct.Count = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackGetApproved is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x081812fc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (sealRegistry *SealRegistry) PackGetApproved(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("getApproved", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetApproved is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x081812fc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (sealRegistry *SealRegistry) TryPackGetApproved(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("getApproved", tokenId)
}

// UnpackGetApproved is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x081812fc.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (sealRegistry *SealRegistry) UnpackGetApproved(data []byte) (common.Address, error) {
	out, err := sealRegistry.abi.Unpack("getApproved", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackHolder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe534155d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function holder() view returns(address)
func (sealRegistry *SealRegistry) PackHolder() []byte {
	enc, err := sealRegistry.abi.Pack("holder")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHolder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe534155d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function holder() view returns(address)
func (sealRegistry *SealRegistry) TryPackHolder() ([]byte, error) {
	return sealRegistry.abi.Pack("holder")
}

// UnpackHolder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe534155d.
//
// Solidity: function holder() view returns(address)
func (sealRegistry *SealRegistry) UnpackHolder(data []byte) (common.Address, error) {
	out, err := sealRegistry.abi.Unpack("holder", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackIsApprovedForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe985e9c5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isApprovedForAll(address , address ) pure returns(bool)
func (sealRegistry *SealRegistry) PackIsApprovedForAll(arg0 common.Address, arg1 common.Address) []byte {
	enc, err := sealRegistry.abi.Pack("isApprovedForAll", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsApprovedForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe985e9c5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isApprovedForAll(address , address ) pure returns(bool)
func (sealRegistry *SealRegistry) TryPackIsApprovedForAll(arg0 common.Address, arg1 common.Address) ([]byte, error) {
	return sealRegistry.abi.Pack("isApprovedForAll", arg0, arg1)
}

// UnpackIsApprovedForAll is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe985e9c5.
//
// Solidity: function isApprovedForAll(address , address ) pure returns(bool)
func (sealRegistry *SealRegistry) UnpackIsApprovedForAll(data []byte) (bool, error) {
	out, err := sealRegistry.abi.Unpack("isApprovedForAll", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsRevoked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5ccc561e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isRevoked(uint256 tokenId) view returns(bool)
func (sealRegistry *SealRegistry) PackIsRevoked(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("isRevoked", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsRevoked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5ccc561e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isRevoked(uint256 tokenId) view returns(bool)
func (sealRegistry *SealRegistry) TryPackIsRevoked(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("isRevoked", tokenId)
}

// UnpackIsRevoked is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5ccc561e.
//
// Solidity: function isRevoked(uint256 tokenId) view returns(bool)
func (sealRegistry *SealRegistry) UnpackIsRevoked(data []byte) (bool, error) {
	out, err := sealRegistry.abi.Unpack("isRevoked", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackLeafHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x08f10717.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function leafHash(uint256 tokenId, bytes32 contentHash) pure returns(bytes32)
func (sealRegistry *SealRegistry) PackLeafHash(tokenId *big.Int, contentHash [32]byte) []byte {
	enc, err := sealRegistry.abi.Pack("leafHash", tokenId, contentHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLeafHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x08f10717.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function leafHash(uint256 tokenId, bytes32 contentHash) pure returns(bytes32)
func (sealRegistry *SealRegistry) TryPackLeafHash(tokenId *big.Int, contentHash [32]byte) ([]byte, error) {
	return sealRegistry.abi.Pack("leafHash", tokenId, contentHash)
}

// UnpackLeafHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x08f10717.
//
// Solidity: function leafHash(uint256 tokenId, bytes32 contentHash) pure returns(bytes32)
func (sealRegistry *SealRegistry) UnpackLeafHash(data []byte) ([32]byte, error) {
	out, err := sealRegistry.abi.Unpack("leafHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackLocked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb45a3c0e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function locked(uint256 tokenId) view returns(bool)
func (sealRegistry *SealRegistry) PackLocked(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("locked", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLocked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb45a3c0e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function locked(uint256 tokenId) view returns(bool)
func (sealRegistry *SealRegistry) TryPackLocked(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("locked", tokenId)
}

// UnpackLocked is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb45a3c0e.
//
// Solidity: function locked(uint256 tokenId) view returns(bool)
func (sealRegistry *SealRegistry) UnpackLocked(data []byte) (bool, error) {
	out, err := sealRegistry.abi.Unpack("locked", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() pure returns(string)
func (sealRegistry *SealRegistry) PackName() []byte {
	enc, err := sealRegistry.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() pure returns(string)
func (sealRegistry *SealRegistry) TryPackName() ([]byte, error) {
	return sealRegistry.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() pure returns(string)
func (sealRegistry *SealRegistry) UnpackName(data []byte) (string, error) {
	out, err := sealRegistry.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackNextTokenId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x75794a3c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nextTokenId() view returns(uint256)
func (sealRegistry *SealRegistry) PackNextTokenId() []byte {
	enc, err := sealRegistry.abi.Pack("nextTokenId")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNextTokenId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x75794a3c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nextTokenId() view returns(uint256)
func (sealRegistry *SealRegistry) TryPackNextTokenId() ([]byte, error) {
	return sealRegistry.abi.Pack("nextTokenId")
}

// UnpackNextTokenId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x75794a3c.
//
// Solidity: function nextTokenId() view returns(uint256)
func (sealRegistry *SealRegistry) UnpackNextTokenId(data []byte) (*big.Int, error) {
	out, err := sealRegistry.abi.Unpack("nextTokenId", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (sealRegistry *SealRegistry) PackOwner() []byte {
	enc, err := sealRegistry.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (sealRegistry *SealRegistry) TryPackOwner() ([]byte, error) {
	return sealRegistry.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (sealRegistry *SealRegistry) UnpackOwner(data []byte) (common.Address, error) {
	out, err := sealRegistry.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackOwnerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6352211e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (sealRegistry *SealRegistry) PackOwnerOf(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("ownerOf", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwnerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6352211e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (sealRegistry *SealRegistry) TryPackOwnerOf(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("ownerOf", tokenId)
}

// UnpackOwnerOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6352211e.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (sealRegistry *SealRegistry) UnpackOwnerOf(data []byte) (common.Address, error) {
	out, err := sealRegistry.abi.Unpack("ownerOf", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPerTokenTransfers is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd2db0a1e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function perTokenTransfers() view returns(bool)
func (sealRegistry *SealRegistry) PackPerTokenTransfers() []byte {
	enc, err := sealRegistry.abi.Pack("perTokenTransfers")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPerTokenTransfers is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd2db0a1e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function perTokenTransfers() view returns(bool)
func (sealRegistry *SealRegistry) TryPackPerTokenTransfers() ([]byte, error) {
	return sealRegistry.abi.Pack("perTokenTransfers")
}

// UnpackPerTokenTransfers is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd2db0a1e.
//
// Solidity: function perTokenTransfers() view returns(bool)
func (sealRegistry *SealRegistry) UnpackPerTokenTransfers(data []byte) (bool, error) {
	out, err := sealRegistry.abi.Unpack("perTokenTransfers", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceOwnership() returns()
func (sealRegistry *SealRegistry) PackRenounceOwnership() []byte {
	enc, err := sealRegistry.abi.Pack("renounceOwnership")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRenounceOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x715018a6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function renounceOwnership() returns()
func (sealRegistry *SealRegistry) TryPackRenounceOwnership() ([]byte, error) {
	return sealRegistry.abi.Pack("renounceOwnership")
}

// PackRevoke is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x20c5429b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revoke(uint256 tokenId) returns()
func (sealRegistry *SealRegistry) PackRevoke(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("revoke", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevoke is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x20c5429b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revoke(uint256 tokenId) returns()
func (sealRegistry *SealRegistry) TryPackRevoke(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("revoke", tokenId)
}

// PackRootOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdc299d69.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rootOf(uint256 tokenId) view returns(bytes32)
func (sealRegistry *SealRegistry) PackRootOf(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("rootOf", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRootOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdc299d69.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rootOf(uint256 tokenId) view returns(bytes32)
func (sealRegistry *SealRegistry) TryPackRootOf(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("rootOf", tokenId)
}

// UnpackRootOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdc299d69.
//
// Solidity: function rootOf(uint256 tokenId) view returns(bytes32)
func (sealRegistry *SealRegistry) UnpackRootOf(data []byte) ([32]byte, error) {
	out, err := sealRegistry.abi.Unpack("rootOf", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackSafeTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42842e0e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function safeTransferFrom(address , address , uint256 ) pure returns()
func (sealRegistry *SealRegistry) PackSafeTransferFrom(arg0 common.Address, arg1 common.Address, arg2 *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("safeTransferFrom", arg0, arg1, arg2)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSafeTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42842e0e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function safeTransferFrom(address , address , uint256 ) pure returns()
func (sealRegistry *SealRegistry) TryPackSafeTransferFrom(arg0 common.Address, arg1 common.Address, arg2 *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("safeTransferFrom", arg0, arg1, arg2)
}

// PackSafeTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb88d4fde.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function safeTransferFrom(address , address , uint256 , bytes ) pure returns()
func (sealRegistry *SealRegistry) PackSafeTransferFrom0(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 []byte) []byte {
	enc, err := sealRegistry.abi.Pack("safeTransferFrom0", arg0, arg1, arg2, arg3)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSafeTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb88d4fde.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function safeTransferFrom(address , address , uint256 , bytes ) pure returns()
func (sealRegistry *SealRegistry) TryPackSafeTransferFrom0(arg0 common.Address, arg1 common.Address, arg2 *big.Int, arg3 []byte) ([]byte, error) {
	return sealRegistry.abi.Pack("safeTransferFrom0", arg0, arg1, arg2, arg3)
}

// PackSetApprovalForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa22cb465.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setApprovalForAll(address , bool ) pure returns()
func (sealRegistry *SealRegistry) PackSetApprovalForAll(arg0 common.Address, arg1 bool) []byte {
	enc, err := sealRegistry.abi.Pack("setApprovalForAll", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetApprovalForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa22cb465.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setApprovalForAll(address , bool ) pure returns()
func (sealRegistry *SealRegistry) TryPackSetApprovalForAll(arg0 common.Address, arg1 bool) ([]byte, error) {
	return sealRegistry.abi.Pack("setApprovalForAll", arg0, arg1)
}

// PackSetBaseURI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x55f804b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setBaseURI(string baseURI) returns()
func (sealRegistry *SealRegistry) PackSetBaseURI(baseURI string) []byte {
	enc, err := sealRegistry.abi.Pack("setBaseURI", baseURI)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetBaseURI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x55f804b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setBaseURI(string baseURI) returns()
func (sealRegistry *SealRegistry) TryPackSetBaseURI(baseURI string) ([]byte, error) {
	return sealRegistry.abi.Pack("setBaseURI", baseURI)
}

// PackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function supportsInterface(bytes4 interfaceId) pure returns(bool)
func (sealRegistry *SealRegistry) PackSupportsInterface(interfaceId [4]byte) []byte {
	enc, err := sealRegistry.abi.Pack("supportsInterface", interfaceId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function supportsInterface(bytes4 interfaceId) pure returns(bool)
func (sealRegistry *SealRegistry) TryPackSupportsInterface(interfaceId [4]byte) ([]byte, error) {
	return sealRegistry.abi.Pack("supportsInterface", interfaceId)
}

// UnpackSupportsInterface is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) pure returns(bool)
func (sealRegistry *SealRegistry) UnpackSupportsInterface(data []byte) (bool, error) {
	out, err := sealRegistry.abi.Unpack("supportsInterface", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() pure returns(string)
func (sealRegistry *SealRegistry) PackSymbol() []byte {
	enc, err := sealRegistry.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() pure returns(string)
func (sealRegistry *SealRegistry) TryPackSymbol() ([]byte, error) {
	return sealRegistry.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() pure returns(string)
func (sealRegistry *SealRegistry) UnpackSymbol(data []byte) (string, error) {
	out, err := sealRegistry.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTokenURI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc87b56dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (sealRegistry *SealRegistry) PackTokenURI(tokenId *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("tokenURI", tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTokenURI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc87b56dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (sealRegistry *SealRegistry) TryPackTokenURI(tokenId *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("tokenURI", tokenId)
}

// UnpackTokenURI is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc87b56dd.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (sealRegistry *SealRegistry) UnpackTokenURI(data []byte) (string, error) {
	out, err := sealRegistry.abi.Unpack("tokenURI", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address , address , uint256 ) pure returns()
func (sealRegistry *SealRegistry) PackTransferFrom(arg0 common.Address, arg1 common.Address, arg2 *big.Int) []byte {
	enc, err := sealRegistry.abi.Pack("transferFrom", arg0, arg1, arg2)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address , address , uint256 ) pure returns()
func (sealRegistry *SealRegistry) TryPackTransferFrom(arg0 common.Address, arg1 common.Address, arg2 *big.Int) ([]byte, error) {
	return sealRegistry.abi.Pack("transferFrom", arg0, arg1, arg2)
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (sealRegistry *SealRegistry) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := sealRegistry.abi.Pack("transferOwnership", newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (sealRegistry *SealRegistry) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return sealRegistry.abi.Pack("transferOwnership", newOwner)
}

// PackVerify is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x94af3538.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function verify(uint256 tokenId, bytes32 contentHash, bytes32[] proof) view returns(bool)
func (sealRegistry *SealRegistry) PackVerify(tokenId *big.Int, contentHash [32]byte, proof [][32]byte) []byte {
	enc, err := sealRegistry.abi.Pack("verify", tokenId, contentHash, proof)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVerify is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x94af3538.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function verify(uint256 tokenId, bytes32 contentHash, bytes32[] proof) view returns(bool)
func (sealRegistry *SealRegistry) TryPackVerify(tokenId *big.Int, contentHash [32]byte, proof [][32]byte) ([]byte, error) {
	return sealRegistry.abi.Pack("verify", tokenId, contentHash, proof)
}

// UnpackVerify is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x94af3538.
//
// Solidity: function verify(uint256 tokenId, bytes32 contentHash, bytes32[] proof) view returns(bool)
func (sealRegistry *SealRegistry) UnpackVerify(data []byte) (bool, error) {
	out, err := sealRegistry.abi.Unpack("verify", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// SealRegistryApproval represents a Approval event raised by the SealRegistry contract.
type SealRegistryApproval struct {
	Owner    common.Address
	Approved common.Address
	TokenId  *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const SealRegistryApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (SealRegistryApproval) ContractEventName() string {
	return SealRegistryApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)
func (sealRegistry *SealRegistry) UnpackApprovalEvent(log *types.Log) (*SealRegistryApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryApproval)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryApprovalForAll represents a ApprovalForAll event raised by the SealRegistry contract.
type SealRegistryApprovalForAll struct {
	Owner    common.Address
	Operator common.Address
	Approved bool
	Raw      *types.Log // Blockchain specific contextual infos
}

const SealRegistryApprovalForAllEventName = "ApprovalForAll"

// ContractEventName returns the user-defined event name.
func (SealRegistryApprovalForAll) ContractEventName() string {
	return SealRegistryApprovalForAllEventName
}

// UnpackApprovalForAllEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ApprovalForAll(address indexed owner, address indexed operator, bool approved)
func (sealRegistry *SealRegistry) UnpackApprovalForAllEvent(log *types.Log) (*SealRegistryApprovalForAll, error) {
	event := "ApprovalForAll"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryApprovalForAll)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryBaseURIChanged represents a BaseURIChanged event raised by the SealRegistry contract.
type SealRegistryBaseURIChanged struct {
	BaseURI string
	Raw     *types.Log // Blockchain specific contextual infos
}

const SealRegistryBaseURIChangedEventName = "BaseURIChanged"

// ContractEventName returns the user-defined event name.
func (SealRegistryBaseURIChanged) ContractEventName() string {
	return SealRegistryBaseURIChangedEventName
}

// UnpackBaseURIChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event BaseURIChanged(string baseURI)
func (sealRegistry *SealRegistry) UnpackBaseURIChangedEvent(log *types.Log) (*SealRegistryBaseURIChanged, error) {
	event := "BaseURIChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryBaseURIChanged)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryBatchAnchored represents a BatchAnchored event raised by the SealRegistry contract.
type SealRegistryBatchAnchored struct {
	BatchIndex   *big.Int
	Root         [32]byte
	FirstTokenId *big.Int
	Count        *big.Int
	Raw          *types.Log // Blockchain specific contextual infos
}

const SealRegistryBatchAnchoredEventName = "BatchAnchored"

// ContractEventName returns the user-defined event name.
func (SealRegistryBatchAnchored) ContractEventName() string {
	return SealRegistryBatchAnchoredEventName
}

// UnpackBatchAnchoredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event BatchAnchored(uint256 indexed batchIndex, bytes32 indexed root, uint256 firstTokenId, uint256 count)
func (sealRegistry *SealRegistry) UnpackBatchAnchoredEvent(log *types.Log) (*SealRegistryBatchAnchored, error) {
	event := "BatchAnchored"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryBatchAnchored)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryConsecutiveTransfer represents a ConsecutiveTransfer event raised by the SealRegistry contract.
type SealRegistryConsecutiveTransfer struct {
	FromTokenId *big.Int
	ToTokenId   *big.Int
	FromAddress common.Address
	ToAddress   common.Address
	Raw         *types.Log // Blockchain specific contextual infos
}

const SealRegistryConsecutiveTransferEventName = "ConsecutiveTransfer"

// ContractEventName returns the user-defined event name.
func (SealRegistryConsecutiveTransfer) ContractEventName() string {
	return SealRegistryConsecutiveTransferEventName
}

// UnpackConsecutiveTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ConsecutiveTransfer(uint256 indexed fromTokenId, uint256 toTokenId, address indexed fromAddress, address indexed toAddress)
func (sealRegistry *SealRegistry) UnpackConsecutiveTransferEvent(log *types.Log) (*SealRegistryConsecutiveTransfer, error) {
	event := "ConsecutiveTransfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryConsecutiveTransfer)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryLocked represents a Locked event raised by the SealRegistry contract.
type SealRegistryLocked struct {
	TokenId *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const SealRegistryLockedEventName = "Locked"

// ContractEventName returns the user-defined event name.
func (SealRegistryLocked) ContractEventName() string {
	return SealRegistryLockedEventName
}

// UnpackLockedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Locked(uint256 tokenId)
func (sealRegistry *SealRegistry) UnpackLockedEvent(log *types.Log) (*SealRegistryLocked, error) {
	event := "Locked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryLocked)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryOwnershipTransferred represents a OwnershipTransferred event raised by the SealRegistry contract.
type SealRegistryOwnershipTransferred struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const SealRegistryOwnershipTransferredEventName = "OwnershipTransferred"

// ContractEventName returns the user-defined event name.
func (SealRegistryOwnershipTransferred) ContractEventName() string {
	return SealRegistryOwnershipTransferredEventName
}

// UnpackOwnershipTransferredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)
func (sealRegistry *SealRegistry) UnpackOwnershipTransferredEvent(log *types.Log) (*SealRegistryOwnershipTransferred, error) {
	event := "OwnershipTransferred"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryOwnershipTransferred)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryRevoked represents a Revoked event raised by the SealRegistry contract.
type SealRegistryRevoked struct {
	TokenId *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const SealRegistryRevokedEventName = "Revoked"

// ContractEventName returns the user-defined event name.
func (SealRegistryRevoked) ContractEventName() string {
	return SealRegistryRevokedEventName
}

// UnpackRevokedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Revoked(uint256 indexed tokenId)
func (sealRegistry *SealRegistry) UnpackRevokedEvent(log *types.Log) (*SealRegistryRevoked, error) {
	event := "Revoked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryRevoked)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryTransfer represents a Transfer event raised by the SealRegistry contract.
type SealRegistryTransfer struct {
	From    common.Address
	To      common.Address
	TokenId *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const SealRegistryTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (SealRegistryTransfer) ContractEventName() string {
	return SealRegistryTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)
func (sealRegistry *SealRegistry) UnpackTransferEvent(log *types.Log) (*SealRegistryTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryTransfer)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// SealRegistryUnlocked represents a Unlocked event raised by the SealRegistry contract.
type SealRegistryUnlocked struct {
	TokenId *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const SealRegistryUnlockedEventName = "Unlocked"

// ContractEventName returns the user-defined event name.
func (SealRegistryUnlocked) ContractEventName() string {
	return SealRegistryUnlockedEventName
}

// UnpackUnlockedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Unlocked(uint256 tokenId)
func (sealRegistry *SealRegistry) UnpackUnlockedEvent(log *types.Log) (*SealRegistryUnlocked, error) {
	event := "Unlocked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != sealRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(SealRegistryUnlocked)
	if len(log.Data) > 0 {
		if err := sealRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range sealRegistry.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (sealRegistry *SealRegistry) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721IncorrectOwner"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721IncorrectOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721InsufficientApproval"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721InsufficientApprovalError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721InvalidApprover"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721InvalidOperator"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721InvalidOperatorError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721InvalidOwner"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721InvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721InvalidReceiver"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721InvalidSender"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["ERC721NonexistentToken"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackERC721NonexistentTokenError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["EmptyRoot"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackEmptyRootError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["InvalidBatchSize"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackInvalidBatchSizeError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["OwnableInvalidOwner"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackOwnableInvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["OwnableUnauthorizedAccount"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackOwnableUnauthorizedAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["Soulbound"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackSoulboundError(raw[4:])
	}
	if bytes.Equal(raw[:4], sealRegistry.abi.Errors["UnexpectedFirstTokenId"].ID.Bytes()[:4]) {
		return sealRegistry.UnpackUnexpectedFirstTokenIdError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// SealRegistryERC721IncorrectOwner represents a ERC721IncorrectOwner error raised by the SealRegistry contract.
type SealRegistryERC721IncorrectOwner struct {
	Sender  common.Address
	TokenId *big.Int
	Owner   common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
func SealRegistryERC721IncorrectOwnerErrorID() common.Hash {
	return common.HexToHash("0x64283d7b313c8117c125f736876fa2b4e90ea3831a4716dfdb87d2f540e26289")
}

// UnpackERC721IncorrectOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
func (sealRegistry *SealRegistry) UnpackERC721IncorrectOwnerError(raw []byte) (*SealRegistryERC721IncorrectOwner, error) {
	out := new(SealRegistryERC721IncorrectOwner)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721IncorrectOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721InsufficientApproval represents a ERC721InsufficientApproval error raised by the SealRegistry contract.
type SealRegistryERC721InsufficientApproval struct {
	Operator common.Address
	TokenId  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InsufficientApproval(address operator, uint256 tokenId)
func SealRegistryERC721InsufficientApprovalErrorID() common.Hash {
	return common.HexToHash("0x177e802f6f313bc89797ecace66d6d29ab4719cbaaacbb87367264048b1eb861")
}

// UnpackERC721InsufficientApprovalError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InsufficientApproval(address operator, uint256 tokenId)
func (sealRegistry *SealRegistry) UnpackERC721InsufficientApprovalError(raw []byte) (*SealRegistryERC721InsufficientApproval, error) {
	out := new(SealRegistryERC721InsufficientApproval)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721InsufficientApproval", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721InvalidApprover represents a ERC721InvalidApprover error raised by the SealRegistry contract.
type SealRegistryERC721InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidApprover(address approver)
func SealRegistryERC721InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xa9fbf51f86b8e03595d59dc726bb10c329bb24f62589be276d8dd193ca0b69ea")
}

// UnpackERC721InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidApprover(address approver)
func (sealRegistry *SealRegistry) UnpackERC721InvalidApproverError(raw []byte) (*SealRegistryERC721InvalidApprover, error) {
	out := new(SealRegistryERC721InvalidApprover)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721InvalidOperator represents a ERC721InvalidOperator error raised by the SealRegistry contract.
type SealRegistryERC721InvalidOperator struct {
	Operator common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidOperator(address operator)
func SealRegistryERC721InvalidOperatorErrorID() common.Hash {
	return common.HexToHash("0x5b08ba185e8f577075361f3a3555a6580a227ce22734dcc979c1aeadf894658b")
}

// UnpackERC721InvalidOperatorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidOperator(address operator)
func (sealRegistry *SealRegistry) UnpackERC721InvalidOperatorError(raw []byte) (*SealRegistryERC721InvalidOperator, error) {
	out := new(SealRegistryERC721InvalidOperator)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721InvalidOperator", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721InvalidOwner represents a ERC721InvalidOwner error raised by the SealRegistry contract.
type SealRegistryERC721InvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidOwner(address owner)
func SealRegistryERC721InvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x89c62b6479af2e623826dcc39c5133061d35b66d72de92833401dd2fd6567480")
}

// UnpackERC721InvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidOwner(address owner)
func (sealRegistry *SealRegistry) UnpackERC721InvalidOwnerError(raw []byte) (*SealRegistryERC721InvalidOwner, error) {
	out := new(SealRegistryERC721InvalidOwner)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721InvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721InvalidReceiver represents a ERC721InvalidReceiver error raised by the SealRegistry contract.
type SealRegistryERC721InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidReceiver(address receiver)
func SealRegistryERC721InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0x64a0ae9278f805eaf991dcd18ca78756d280b7508b764ef1b255c55845c11df9")
}

// UnpackERC721InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidReceiver(address receiver)
func (sealRegistry *SealRegistry) UnpackERC721InvalidReceiverError(raw []byte) (*SealRegistryERC721InvalidReceiver, error) {
	out := new(SealRegistryERC721InvalidReceiver)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721InvalidSender represents a ERC721InvalidSender error raised by the SealRegistry contract.
type SealRegistryERC721InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidSender(address sender)
func SealRegistryERC721InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x73c6ac6e10798e95d99e1f130d923eb40193ecb8d094ec3dce93292564eb3b17")
}

// UnpackERC721InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidSender(address sender)
func (sealRegistry *SealRegistry) UnpackERC721InvalidSenderError(raw []byte) (*SealRegistryERC721InvalidSender, error) {
	out := new(SealRegistryERC721InvalidSender)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryERC721NonexistentToken represents a ERC721NonexistentToken error raised by the SealRegistry contract.
type SealRegistryERC721NonexistentToken struct {
	TokenId *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721NonexistentToken(uint256 tokenId)
func SealRegistryERC721NonexistentTokenErrorID() common.Hash {
	return common.HexToHash("0x7e273289a3a9ef6670f06df7dca227856fc925e956db96980692764a8bc734d7")
}

// UnpackERC721NonexistentTokenError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721NonexistentToken(uint256 tokenId)
func (sealRegistry *SealRegistry) UnpackERC721NonexistentTokenError(raw []byte) (*SealRegistryERC721NonexistentToken, error) {
	out := new(SealRegistryERC721NonexistentToken)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "ERC721NonexistentToken", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryEmptyRoot represents a EmptyRoot error raised by the SealRegistry contract.
type SealRegistryEmptyRoot struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyRoot()
func SealRegistryEmptyRootErrorID() common.Hash {
	return common.HexToHash("0x53ce4ece66102bfdfb7e2dd6215b88dbc54b76fd92f4bed53b69b1166a744a63")
}

// UnpackEmptyRootError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyRoot()
func (sealRegistry *SealRegistry) UnpackEmptyRootError(raw []byte) (*SealRegistryEmptyRoot, error) {
	out := new(SealRegistryEmptyRoot)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "EmptyRoot", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryInvalidBatchSize represents a InvalidBatchSize error raised by the SealRegistry contract.
type SealRegistryInvalidBatchSize struct {
	Count *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidBatchSize(uint256 count)
func SealRegistryInvalidBatchSizeErrorID() common.Hash {
	return common.HexToHash("0xa6f7498550a31b8c7274d1722871e3cb23f5b8c01d44780190be594eaaeb4965")
}

// UnpackInvalidBatchSizeError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidBatchSize(uint256 count)
func (sealRegistry *SealRegistry) UnpackInvalidBatchSizeError(raw []byte) (*SealRegistryInvalidBatchSize, error) {
	out := new(SealRegistryInvalidBatchSize)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "InvalidBatchSize", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryOwnableInvalidOwner represents a OwnableInvalidOwner error raised by the SealRegistry contract.
type SealRegistryOwnableInvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableInvalidOwner(address owner)
func SealRegistryOwnableInvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x1e4fbdf7f3ef8bcaa855599e3abf48b232380f183f08f6f813d9ffa5bd585188")
}

// UnpackOwnableInvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableInvalidOwner(address owner)
func (sealRegistry *SealRegistry) UnpackOwnableInvalidOwnerError(raw []byte) (*SealRegistryOwnableInvalidOwner, error) {
	out := new(SealRegistryOwnableInvalidOwner)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "OwnableInvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryOwnableUnauthorizedAccount represents a OwnableUnauthorizedAccount error raised by the SealRegistry contract.
type SealRegistryOwnableUnauthorizedAccount struct {
	Account common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func SealRegistryOwnableUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0x118cdaa7a341953d1887a2245fd6665d741c67c8c50581daa59e1d03373fa188")
}

// UnpackOwnableUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OwnableUnauthorizedAccount(address account)
func (sealRegistry *SealRegistry) UnpackOwnableUnauthorizedAccountError(raw []byte) (*SealRegistryOwnableUnauthorizedAccount, error) {
	out := new(SealRegistryOwnableUnauthorizedAccount)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "OwnableUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistrySoulbound represents a Soulbound error raised by the SealRegistry contract.
type SealRegistrySoulbound struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Soulbound()
func SealRegistrySoulboundErrorID() common.Hash {
	return common.HexToHash("0xa4420a95d7f3ff69d13904950688298cd959b03d9bf658c77c6903bcb26e7911")
}

// UnpackSoulboundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Soulbound()
func (sealRegistry *SealRegistry) UnpackSoulboundError(raw []byte) (*SealRegistrySoulbound, error) {
	out := new(SealRegistrySoulbound)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "Soulbound", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// SealRegistryUnexpectedFirstTokenId represents a UnexpectedFirstTokenId error raised by the SealRegistry contract.
type SealRegistryUnexpectedFirstTokenId struct {
	Expected *big.Int
	Given    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnexpectedFirstTokenId(uint256 expected, uint256 given)
func SealRegistryUnexpectedFirstTokenIdErrorID() common.Hash {
	return common.HexToHash("0x6c684a1a3a7ae2495ef09b6332e50401ee3c9815edcf435ea16c7014d0ed8113")
}

// UnpackUnexpectedFirstTokenIdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnexpectedFirstTokenId(uint256 expected, uint256 given)
func (sealRegistry *SealRegistry) UnpackUnexpectedFirstTokenIdError(raw []byte) (*SealRegistryUnexpectedFirstTokenId, error) {
	out := new(SealRegistryUnexpectedFirstTokenId)
	if err := sealRegistry.abi.UnpackIntoInterface(out, "UnexpectedFirstTokenId", raw); err != nil {
		return nil, err
	}
	return out, nil
}
