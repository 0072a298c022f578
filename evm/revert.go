package evm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"seald.dev/seald/evm/registry"
)

var (
	registryABIOnce sync.Once
	registryABI     *abi.ABI
	registryABIErr  error
)

// contractABI is the parsed ABI of SealRegistry, parsed once: every call and revert decode needs it.
func contractABI() *abi.ABI {
	registryABIOnce.Do(func() {
		registryABI, registryABIErr = registry.SealRegistryMetaData.ParseABI()
	})
	if registryABIErr != nil {
		panic("evm: the committed SealRegistry ABI does not parse: " + registryABIErr.Error())
	}
	return registryABI
}

// revertData returns the revert payload carried by a JSON-RPC error from eth_call or eth_estimateGas, if
// there is one. Nodes put it in the error's data member as hex.
func revertData(err error) ([]byte, bool) {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil, false
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return nil, false
	}
	b, derr := hexutil.Decode(s)
	if derr != nil {
		return nil, false
	}
	return b, true
}

// isRevert reports whether err is the node saying that the call reverted, as opposed to the node being
// unreachable or refusing the request.
func isRevert(err error) bool {
	if _, ok := revertData(err); ok {
		return true
	}
	return err != nil && strings.Contains(err.Error(), "execution reverted")
}

// revertName returns the name of the contract's custom error in a revert payload ("" if none matches), so
// callers can tell "this batch was already minted" from "this key is not the owner".
func revertName(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	for name, e := range contractABI().Errors {
		if bytes.Equal(e.ID[:4], data[:4]) {
			return name
		}
	}
	return ""
}

// describeRevert renders a revert payload for people: the custom error with its arguments, a require
// message, or the raw bytes.
func describeRevert(data []byte) string {
	if len(data) < 4 {
		return "reverted without a reason"
	}
	if name := revertName(data); name != "" {
		e := contractABI().Errors[name]
		vals, err := e.Unpack(data)
		if err != nil {
			return name
		}
		if list, ok := vals.([]any); ok {
			parts := make([]string, len(list))
			for i, v := range list {
				parts[i] = fmt.Sprint(v)
			}
			return name + "(" + strings.Join(parts, ", ") + ")"
		}
		return name
	}
	if msg, err := abi.UnpackRevert(data); err == nil {
		return msg
	}
	return "reverted with " + hexutil.Encode(data)
}

// revertError turns an eth_call/eth_estimateGas failure into a message naming the contract's reason.
func revertError(err error) string {
	if data, ok := revertData(err); ok {
		return describeRevert(data)
	}
	return err.Error()
}
