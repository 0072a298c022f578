package seald

import (
	"strconv"
	"strings"
)

// ContractRange is a contract an issuer anchored on within a block range, as the secrets file keeps the
// retired ones (`seald trust retire-contract`).
type ContractRange struct {
	Network   string  `json:"network"`
	ChainID   string  `json:"chain_id"`
	Contract  string  `json:"contract"`
	Anchorer  string  `json:"anchorer"`
	FromBlock uint64  `json:"from_block"`
	ToBlock   *uint64 `json:"to_block"`
}

// Validate checks a range's form: a known network, a decimal chain id, 0x addresses and FromBlock <= ToBlock.
func (c ContractRange) Validate() error {
	if c.Network != NetworkPolygon && c.Network != NetworkEOS {
		return Errorf(EINVALID, "network must be POLYGON or EOS, not %q", c.Network)
	}
	if _, err := strconv.ParseUint(c.ChainID, 10, 64); err != nil {
		return Errorf(EINVALID, "chain id %q is not a decimal number", c.ChainID)
	}
	for _, a := range []struct{ name, v string }{{"contract", c.Contract}, {"anchorer", c.Anchorer}} {
		if len(a.v) != 42 || !strings.HasPrefix(a.v, "0x") {
			return Errorf(EINVALID, "%s %q is not a 0x address", a.name, a.v)
		}
	}
	if c.ToBlock != nil && *c.ToBlock < c.FromBlock {
		return Errorf(EINVALID, "block range %d to %d is empty", c.FromBlock, *c.ToBlock)
	}
	return nil
}
