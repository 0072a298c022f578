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

// PlainERC721MetaData contains all meta data concerning the PlainERC721 contract.
var PlainERC721MetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ERC721IncorrectOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ERC721InsufficientApproval\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC721InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"}],\"name\":\"ERC721InvalidOperator\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"ERC721InvalidOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC721InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC721InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ERC721NonexistentToken\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"approved\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"}],\"name\":\"ApprovalForAll\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"getApproved\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"}],\"name\":\"isApprovedForAll\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"ownerOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"safeTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"safeTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"approved\",\"type\":\"bool\"}],\"name\":\"setApprovalForAll\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"tokenURI\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"tokenId\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "PlainERC721",
	Bin: "0x608060405234801561000f575f5ffd5b5060405180604001604052806005815260200164383630b4b760d91b81525060405180604001604052806005815260200164282620a4a760d91b815250815f908161005a9190610107565b5060016100678282610107565b5050506101c1565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061009757607f821691505b6020821081036100b557634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561010257805f5260205f20601f840160051c810160208510156100e05750805b601f840160051c820191505b818110156100ff575f81556001016100ec565b50505b505050565b81516001600160401b038111156101205761012061006f565b6101348161012e8454610083565b846100bb565b6020601f821160018114610166575f831561014f5750848201515b5f19600385901b1c1916600184901b1784556100ff565b5f84815260208120601f198516915b828110156101955787850151825560209485019460019092019101610175565b50848210156101b257868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b610f0f806101ce5f395ff3fe608060405234801561000f575f5ffd5b50600436106100e5575f3560e01c80636352211e11610088578063a22cb46511610063578063a22cb465146101db578063b88d4fde146101ee578063c87b56dd14610201578063e985e9c514610214575f5ffd5b80636352211e1461019f57806370a08231146101b257806395d89b41146101d3575f5ffd5b8063095ea7b3116100c3578063095ea7b31461015157806323b872dd1461016657806340c10f191461017957806342842e0e1461018c575f5ffd5b806301ffc9a7146100e957806306fdde0314610111578063081812fc14610126575b5f5ffd5b6100fc6100f7366004610bbc565b610227565b60405190151581526020015b60405180910390f35b610119610278565b6040516101089190610c05565b610139610134366004610c17565b610307565b6040516001600160a01b039091168152602001610108565b61016461015f366004610c49565b61032e565b005b610164610174366004610c71565b61033d565b610164610187366004610c49565b6103cb565b61016461019a366004610c71565b6103d5565b6101396101ad366004610c17565b6103f4565b6101c56101c0366004610cab565b6103fe565b604051908152602001610108565b610119610443565b6101646101e9366004610cc4565b610452565b6101646101fc366004610d11565b61045d565b61011961020f366004610c17565b610475565b6100fc610222366004610dee565b6104e6565b5f6001600160e01b031982166380ac58cd60e01b148061025757506001600160e01b03198216635b5e139f60e01b145b8061027257506301ffc9a760e01b6001600160e01b03198316145b92915050565b60605f805461028690610e1f565b80601f01602080910402602001604051908101604052809291908181526020018280546102b290610e1f565b80156102fd5780601f106102d4576101008083540402835291602001916102fd565b820191905f5260205f20905b8154815290600101906020018083116102e057829003601f168201915b5050505050905090565b5f61031182610513565b505f828152600460205260409020546001600160a01b0316610272565b61033982823361054b565b5050565b6001600160a01b03821661036b57604051633250574960e11b81525f60048201526024015b60405180910390fd5b5f610377838333610558565b9050836001600160a01b0316816001600160a01b0316146103c5576040516364283d7b60e01b81526001600160a01b0380861660048301526024820184905282166044820152606401610362565b50505050565b610339828261064a565b6103ef83838360405180602001604052805f81525061045d565b505050565b5f61027282610513565b5f6001600160a01b038216610428576040516322718ad960e21b81525f6004820152602401610362565b506001600160a01b03165f9081526003602052604090205490565b60606001805461028690610e1f565b6103393383836106ab565b61046884848461033d565b6103c53385858585610749565b606061048082610513565b505f61049660408051602081019091525f815290565b90505f8151116104b45760405180602001604052805f8152506104df565b806104be84610871565b6040516020016104cf929190610e6e565b6040516020818303038152906040525b9392505050565b6001600160a01b039182165f90815260056020908152604080832093909416825291909152205460ff1690565b5f818152600260205260408120546001600160a01b03168061027257604051637e27328960e01b815260048101849052602401610362565b6103ef8383836001610901565b5f828152600260205260408120546001600160a01b039081169083161561058457610584818486610a05565b6001600160a01b038116156105be5761059f5f855f5f610901565b6001600160a01b0381165f90815260036020526040902080545f190190555b6001600160a01b038516156105ec576001600160a01b0385165f908152600360205260409020805460010190555b5f8481526002602052604080822080546001600160a01b0319166001600160a01b0389811691821790925591518793918516917fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef91a4949350505050565b6001600160a01b03821661067357604051633250574960e11b81525f6004820152602401610362565b5f61067f83835f610558565b90506001600160a01b038116156103ef576040516339e3563760e11b81525f6004820152602401610362565b6001600160a01b0382166106dd57604051630b61174360e31b81526001600160a01b0383166004820152602401610362565b6001600160a01b038381165f81815260056020908152604080832094871680845294825291829020805460ff191686151590811790915591519182527f17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31910160405180910390a3505050565b6001600160a01b0383163b1561086a57604051630a85bd0160e11b81526001600160a01b0384169063150b7a029061078b908890889087908790600401610e82565b6020604051808303815f875af19250505080156107c5575060408051601f3d908101601f191682019092526107c291810190610ebe565b60015b61082c573d8080156107f2576040519150601f19603f3d011682016040523d82523d5f602084013e6107f7565b606091505b5080515f0361082457604051633250574960e11b81526001600160a01b0385166004820152602401610362565b805160208201fd5b6001600160e01b03198116630a85bd0160e11b1461086857604051633250574960e11b81526001600160a01b0385166004820152602401610362565b505b5050505050565b60605f61087d83610a69565b60010190505f8167ffffffffffffffff81111561089c5761089c610cfd565b6040519080825280601f01601f1916602001820160405280156108c6576020820181803683370190505b5090508181016020015b5f19016f181899199a1a9b1b9c1cb0b131b232b360811b600a86061a8153600a85049450846108d057509392505050565b808061091557506001600160a01b03821615155b156109d6575f61092484610513565b90506001600160a01b038316158015906109505750826001600160a01b0316816001600160a01b031614155b8015610963575061096181846104e6565b155b1561098c5760405163a9fbf51f60e01b81526001600160a01b0384166004820152602401610362565b81156109d45783856001600160a01b0316826001600160a01b03167f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560405160405180910390a45b505b50505f90815260046020526040902080546001600160a01b0319166001600160a01b0392909216919091179055565b610a10838383610b40565b6103ef576001600160a01b038316610a3e57604051637e27328960e01b815260048101829052602401610362565b60405163177e802f60e01b81526001600160a01b038316600482015260248101829052604401610362565b5f8072184f03e93ff9f4daa797ed6e38ed64bf6a1f0160401b8310610aa75772184f03e93ff9f4daa797ed6e38ed64bf6a1f0160401b830492506040015b6d04ee2d6d415b85acef81000000008310610ad3576d04ee2d6d415b85acef8100000000830492506020015b662386f26fc100008310610af157662386f26fc10000830492506010015b6305f5e1008310610b09576305f5e100830492506008015b6127108310610b1d57612710830492506004015b60648310610b2f576064830492506002015b600a83106102725760010192915050565b5f6001600160a01b03831615801590610b9c5750826001600160a01b0316846001600160a01b03161480610b795750610b7984846104e6565b80610b9c57505f828152600460205260409020546001600160a01b038481169116145b949350505050565b6001600160e01b031981168114610bb9575f5ffd5b50565b5f60208284031215610bcc575f5ffd5b81356104df81610ba4565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6104df6020830184610bd7565b5f60208284031215610c27575f5ffd5b5035919050565b80356001600160a01b0381168114610c44575f5ffd5b919050565b5f5f60408385031215610c5a575f5ffd5b610c6383610c2e565b946020939093013593505050565b5f5f5f60608486031215610c83575f5ffd5b610c8c84610c2e565b9250610c9a60208501610c2e565b929592945050506040919091013590565b5f60208284031215610cbb575f5ffd5b6104df82610c2e565b5f5f60408385031215610cd5575f5ffd5b610cde83610c2e565b915060208301358015158114610cf2575f5ffd5b809150509250929050565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f60808587031215610d24575f5ffd5b610d2d85610c2e565b9350610d3b60208601610c2e565b925060408501359150606085013567ffffffffffffffff811115610d5d575f5ffd5b8501601f81018713610d6d575f5ffd5b803567ffffffffffffffff811115610d8757610d87610cfd565b604051601f8201601f19908116603f0116810167ffffffffffffffff81118282101715610db657610db6610cfd565b604052818152828201602001891015610dcd575f5ffd5b816020840160208301375f6020838301015280935050505092959194509250565b5f5f60408385031215610dff575f5ffd5b610e0883610c2e565b9150610e1660208401610c2e565b90509250929050565b600181811c90821680610e3357607f821691505b602082108103610e5157634e487b7160e01b5f52602260045260245ffd5b50919050565b5f81518060208401855e5f93019283525090919050565b5f610b9c610e7c8386610e57565b84610e57565b6001600160a01b03858116825284166020820152604081018390526080606082018190525f90610eb490830184610bd7565b9695505050505050565b5f60208284031215610ece575f5ffd5b81516104df81610ba456fea26469706673582212206afdb90bb9550891880d314f09857f6318260515175ef290b6e076fde8393d6d64736f6c634300081e0033",
}

// PlainERC721 is an auto generated Go binding around an Ethereum contract.
type PlainERC721 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *PlainERC721) GetABI() abi.ABI {
	return c.abi
}

// NewPlainERC721 creates a new instance of PlainERC721.
func NewPlainERC721() *PlainERC721 {
	parsed, err := PlainERC721MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &PlainERC721{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *PlainERC721) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) PackApprove(to common.Address, tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("approve", to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) TryPackApprove(to common.Address, tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("approve", to, tokenId)
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address owner) view returns(uint256)
func (plainERC721 *PlainERC721) PackBalanceOf(owner common.Address) []byte {
	enc, err := plainERC721.abi.Pack("balanceOf", owner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address owner) view returns(uint256)
func (plainERC721 *PlainERC721) TryPackBalanceOf(owner common.Address) ([]byte, error) {
	return plainERC721.abi.Pack("balanceOf", owner)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address owner) view returns(uint256)
func (plainERC721 *PlainERC721) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := plainERC721.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetApproved is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x081812fc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (plainERC721 *PlainERC721) PackGetApproved(tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("getApproved", tokenId)
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
func (plainERC721 *PlainERC721) TryPackGetApproved(tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("getApproved", tokenId)
}

// UnpackGetApproved is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x081812fc.
//
// Solidity: function getApproved(uint256 tokenId) view returns(address)
func (plainERC721 *PlainERC721) UnpackGetApproved(data []byte) (common.Address, error) {
	out, err := plainERC721.abi.Unpack("getApproved", data)
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
// Solidity: function isApprovedForAll(address owner, address operator) view returns(bool)
func (plainERC721 *PlainERC721) PackIsApprovedForAll(owner common.Address, operator common.Address) []byte {
	enc, err := plainERC721.abi.Pack("isApprovedForAll", owner, operator)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsApprovedForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe985e9c5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isApprovedForAll(address owner, address operator) view returns(bool)
func (plainERC721 *PlainERC721) TryPackIsApprovedForAll(owner common.Address, operator common.Address) ([]byte, error) {
	return plainERC721.abi.Pack("isApprovedForAll", owner, operator)
}

// UnpackIsApprovedForAll is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe985e9c5.
//
// Solidity: function isApprovedForAll(address owner, address operator) view returns(bool)
func (plainERC721 *PlainERC721) UnpackIsApprovedForAll(data []byte) (bool, error) {
	out, err := plainERC721.abi.Unpack("isApprovedForAll", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) PackMint(to common.Address, tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("mint", to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) TryPackMint(to common.Address, tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("mint", to, tokenId)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (plainERC721 *PlainERC721) PackName() []byte {
	enc, err := plainERC721.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (plainERC721 *PlainERC721) TryPackName() ([]byte, error) {
	return plainERC721.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (plainERC721 *PlainERC721) UnpackName(data []byte) (string, error) {
	out, err := plainERC721.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackOwnerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6352211e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (plainERC721 *PlainERC721) PackOwnerOf(tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("ownerOf", tokenId)
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
func (plainERC721 *PlainERC721) TryPackOwnerOf(tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("ownerOf", tokenId)
}

// UnpackOwnerOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6352211e.
//
// Solidity: function ownerOf(uint256 tokenId) view returns(address)
func (plainERC721 *PlainERC721) UnpackOwnerOf(data []byte) (common.Address, error) {
	out, err := plainERC721.abi.Unpack("ownerOf", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSafeTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42842e0e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) PackSafeTransferFrom(from common.Address, to common.Address, tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("safeTransferFrom", from, to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSafeTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42842e0e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) TryPackSafeTransferFrom(from common.Address, to common.Address, tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("safeTransferFrom", from, to, tokenId)
}

// PackSafeTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb88d4fde.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId, bytes data) returns()
func (plainERC721 *PlainERC721) PackSafeTransferFrom0(from common.Address, to common.Address, tokenId *big.Int, data []byte) []byte {
	enc, err := plainERC721.abi.Pack("safeTransferFrom0", from, to, tokenId, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSafeTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb88d4fde.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function safeTransferFrom(address from, address to, uint256 tokenId, bytes data) returns()
func (plainERC721 *PlainERC721) TryPackSafeTransferFrom0(from common.Address, to common.Address, tokenId *big.Int, data []byte) ([]byte, error) {
	return plainERC721.abi.Pack("safeTransferFrom0", from, to, tokenId, data)
}

// PackSetApprovalForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa22cb465.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setApprovalForAll(address operator, bool approved) returns()
func (plainERC721 *PlainERC721) PackSetApprovalForAll(operator common.Address, approved bool) []byte {
	enc, err := plainERC721.abi.Pack("setApprovalForAll", operator, approved)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetApprovalForAll is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa22cb465.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setApprovalForAll(address operator, bool approved) returns()
func (plainERC721 *PlainERC721) TryPackSetApprovalForAll(operator common.Address, approved bool) ([]byte, error) {
	return plainERC721.abi.Pack("setApprovalForAll", operator, approved)
}

// PackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (plainERC721 *PlainERC721) PackSupportsInterface(interfaceId [4]byte) []byte {
	enc, err := plainERC721.abi.Pack("supportsInterface", interfaceId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (plainERC721 *PlainERC721) TryPackSupportsInterface(interfaceId [4]byte) ([]byte, error) {
	return plainERC721.abi.Pack("supportsInterface", interfaceId)
}

// UnpackSupportsInterface is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (plainERC721 *PlainERC721) UnpackSupportsInterface(data []byte) (bool, error) {
	out, err := plainERC721.abi.Unpack("supportsInterface", data)
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
// Solidity: function symbol() view returns(string)
func (plainERC721 *PlainERC721) PackSymbol() []byte {
	enc, err := plainERC721.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (plainERC721 *PlainERC721) TryPackSymbol() ([]byte, error) {
	return plainERC721.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (plainERC721 *PlainERC721) UnpackSymbol(data []byte) (string, error) {
	out, err := plainERC721.abi.Unpack("symbol", data)
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
func (plainERC721 *PlainERC721) PackTokenURI(tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("tokenURI", tokenId)
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
func (plainERC721 *PlainERC721) TryPackTokenURI(tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("tokenURI", tokenId)
}

// UnpackTokenURI is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc87b56dd.
//
// Solidity: function tokenURI(uint256 tokenId) view returns(string)
func (plainERC721 *PlainERC721) UnpackTokenURI(data []byte) (string, error) {
	out, err := plainERC721.abi.Unpack("tokenURI", data)
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
// Solidity: function transferFrom(address from, address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) PackTransferFrom(from common.Address, to common.Address, tokenId *big.Int) []byte {
	enc, err := plainERC721.abi.Pack("transferFrom", from, to, tokenId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 tokenId) returns()
func (plainERC721 *PlainERC721) TryPackTransferFrom(from common.Address, to common.Address, tokenId *big.Int) ([]byte, error) {
	return plainERC721.abi.Pack("transferFrom", from, to, tokenId)
}

// PlainERC721Approval represents a Approval event raised by the PlainERC721 contract.
type PlainERC721Approval struct {
	Owner    common.Address
	Approved common.Address
	TokenId  *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const PlainERC721ApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (PlainERC721Approval) ContractEventName() string {
	return PlainERC721ApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)
func (plainERC721 *PlainERC721) UnpackApprovalEvent(log *types.Log) (*PlainERC721Approval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != plainERC721.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PlainERC721Approval)
	if len(log.Data) > 0 {
		if err := plainERC721.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range plainERC721.abi.Events[event].Inputs {
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

// PlainERC721ApprovalForAll represents a ApprovalForAll event raised by the PlainERC721 contract.
type PlainERC721ApprovalForAll struct {
	Owner    common.Address
	Operator common.Address
	Approved bool
	Raw      *types.Log // Blockchain specific contextual infos
}

const PlainERC721ApprovalForAllEventName = "ApprovalForAll"

// ContractEventName returns the user-defined event name.
func (PlainERC721ApprovalForAll) ContractEventName() string {
	return PlainERC721ApprovalForAllEventName
}

// UnpackApprovalForAllEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ApprovalForAll(address indexed owner, address indexed operator, bool approved)
func (plainERC721 *PlainERC721) UnpackApprovalForAllEvent(log *types.Log) (*PlainERC721ApprovalForAll, error) {
	event := "ApprovalForAll"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != plainERC721.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PlainERC721ApprovalForAll)
	if len(log.Data) > 0 {
		if err := plainERC721.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range plainERC721.abi.Events[event].Inputs {
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

// PlainERC721Transfer represents a Transfer event raised by the PlainERC721 contract.
type PlainERC721Transfer struct {
	From    common.Address
	To      common.Address
	TokenId *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const PlainERC721TransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (PlainERC721Transfer) ContractEventName() string {
	return PlainERC721TransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)
func (plainERC721 *PlainERC721) UnpackTransferEvent(log *types.Log) (*PlainERC721Transfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != plainERC721.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PlainERC721Transfer)
	if len(log.Data) > 0 {
		if err := plainERC721.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range plainERC721.abi.Events[event].Inputs {
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
func (plainERC721 *PlainERC721) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721IncorrectOwner"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721IncorrectOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721InsufficientApproval"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721InsufficientApprovalError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721InvalidApprover"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721InvalidOperator"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721InvalidOperatorError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721InvalidOwner"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721InvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721InvalidReceiver"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721InvalidSender"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], plainERC721.abi.Errors["ERC721NonexistentToken"].ID.Bytes()[:4]) {
		return plainERC721.UnpackERC721NonexistentTokenError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PlainERC721ERC721IncorrectOwner represents a ERC721IncorrectOwner error raised by the PlainERC721 contract.
type PlainERC721ERC721IncorrectOwner struct {
	Sender  common.Address
	TokenId *big.Int
	Owner   common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
func PlainERC721ERC721IncorrectOwnerErrorID() common.Hash {
	return common.HexToHash("0x64283d7b313c8117c125f736876fa2b4e90ea3831a4716dfdb87d2f540e26289")
}

// UnpackERC721IncorrectOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
func (plainERC721 *PlainERC721) UnpackERC721IncorrectOwnerError(raw []byte) (*PlainERC721ERC721IncorrectOwner, error) {
	out := new(PlainERC721ERC721IncorrectOwner)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721IncorrectOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721InsufficientApproval represents a ERC721InsufficientApproval error raised by the PlainERC721 contract.
type PlainERC721ERC721InsufficientApproval struct {
	Operator common.Address
	TokenId  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InsufficientApproval(address operator, uint256 tokenId)
func PlainERC721ERC721InsufficientApprovalErrorID() common.Hash {
	return common.HexToHash("0x177e802f6f313bc89797ecace66d6d29ab4719cbaaacbb87367264048b1eb861")
}

// UnpackERC721InsufficientApprovalError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InsufficientApproval(address operator, uint256 tokenId)
func (plainERC721 *PlainERC721) UnpackERC721InsufficientApprovalError(raw []byte) (*PlainERC721ERC721InsufficientApproval, error) {
	out := new(PlainERC721ERC721InsufficientApproval)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721InsufficientApproval", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721InvalidApprover represents a ERC721InvalidApprover error raised by the PlainERC721 contract.
type PlainERC721ERC721InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidApprover(address approver)
func PlainERC721ERC721InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xa9fbf51f86b8e03595d59dc726bb10c329bb24f62589be276d8dd193ca0b69ea")
}

// UnpackERC721InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidApprover(address approver)
func (plainERC721 *PlainERC721) UnpackERC721InvalidApproverError(raw []byte) (*PlainERC721ERC721InvalidApprover, error) {
	out := new(PlainERC721ERC721InvalidApprover)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721InvalidOperator represents a ERC721InvalidOperator error raised by the PlainERC721 contract.
type PlainERC721ERC721InvalidOperator struct {
	Operator common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidOperator(address operator)
func PlainERC721ERC721InvalidOperatorErrorID() common.Hash {
	return common.HexToHash("0x5b08ba185e8f577075361f3a3555a6580a227ce22734dcc979c1aeadf894658b")
}

// UnpackERC721InvalidOperatorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidOperator(address operator)
func (plainERC721 *PlainERC721) UnpackERC721InvalidOperatorError(raw []byte) (*PlainERC721ERC721InvalidOperator, error) {
	out := new(PlainERC721ERC721InvalidOperator)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721InvalidOperator", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721InvalidOwner represents a ERC721InvalidOwner error raised by the PlainERC721 contract.
type PlainERC721ERC721InvalidOwner struct {
	Owner common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidOwner(address owner)
func PlainERC721ERC721InvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x89c62b6479af2e623826dcc39c5133061d35b66d72de92833401dd2fd6567480")
}

// UnpackERC721InvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidOwner(address owner)
func (plainERC721 *PlainERC721) UnpackERC721InvalidOwnerError(raw []byte) (*PlainERC721ERC721InvalidOwner, error) {
	out := new(PlainERC721ERC721InvalidOwner)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721InvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721InvalidReceiver represents a ERC721InvalidReceiver error raised by the PlainERC721 contract.
type PlainERC721ERC721InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidReceiver(address receiver)
func PlainERC721ERC721InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0x64a0ae9278f805eaf991dcd18ca78756d280b7508b764ef1b255c55845c11df9")
}

// UnpackERC721InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidReceiver(address receiver)
func (plainERC721 *PlainERC721) UnpackERC721InvalidReceiverError(raw []byte) (*PlainERC721ERC721InvalidReceiver, error) {
	out := new(PlainERC721ERC721InvalidReceiver)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721InvalidSender represents a ERC721InvalidSender error raised by the PlainERC721 contract.
type PlainERC721ERC721InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721InvalidSender(address sender)
func PlainERC721ERC721InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x73c6ac6e10798e95d99e1f130d923eb40193ecb8d094ec3dce93292564eb3b17")
}

// UnpackERC721InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721InvalidSender(address sender)
func (plainERC721 *PlainERC721) UnpackERC721InvalidSenderError(raw []byte) (*PlainERC721ERC721InvalidSender, error) {
	out := new(PlainERC721ERC721InvalidSender)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PlainERC721ERC721NonexistentToken represents a ERC721NonexistentToken error raised by the PlainERC721 contract.
type PlainERC721ERC721NonexistentToken struct {
	TokenId *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC721NonexistentToken(uint256 tokenId)
func PlainERC721ERC721NonexistentTokenErrorID() common.Hash {
	return common.HexToHash("0x7e273289a3a9ef6670f06df7dca227856fc925e956db96980692764a8bc734d7")
}

// UnpackERC721NonexistentTokenError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC721NonexistentToken(uint256 tokenId)
func (plainERC721 *PlainERC721) UnpackERC721NonexistentTokenError(raw []byte) (*PlainERC721ERC721NonexistentToken, error) {
	out := new(PlainERC721ERC721NonexistentToken)
	if err := plainERC721.abi.UnpackIntoInterface(out, "ERC721NonexistentToken", raw); err != nil {
		return nil, err
	}
	return out, nil
}
