package seald_test

import (
	"testing"

	"seald.dev/seald"
)

func TestChainName(t *testing.T) {
	for _, c := range []struct {
		chain seald.Chain
		want  string
	}{
		{seald.Chain{Network: seald.NetworkEOS, ChainID: "17777"}, "EOS EVM mainnet (17777)"},
		{seald.Chain{Network: seald.NetworkEOS, ChainID: "15557"}, "EOS EVM testnet (15557)"},
		{seald.Chain{Network: seald.NetworkEOS, ChainID: "1337"}, "chain 1337, a development or private chain: not a public Polygon or EOS EVM network"},
		{seald.Chain{Network: seald.NetworkEOS, ChainID: "17777", Development: true}, "seald development chain (chain 17777), not EOS EVM"},
		{seald.Chain{Network: seald.NetworkPolygon, ChainID: "137"}, "Polygon PoS (chain 137)"},
		{seald.Chain{Network: seald.NetworkPolygon, ChainID: "80002"}, "Polygon Amoy testnet (chain 80002)"},
		{seald.Chain{Network: seald.NetworkPolygon, ChainID: "17777"}, "EOS EVM mainnet (17777)"},
		{seald.Chain{Network: seald.NetworkPolygon, ChainID: "1337"}, "chain 1337, a development or private chain: not a public Polygon or EOS EVM network"},
		{seald.Chain{Network: seald.NetworkPolygon, ChainID: "80001"}, "chain 80001, a development or private chain: not a public Polygon or EOS EVM network"},
	} {
		if got := c.chain.Name(); got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.chain.Network, c.chain.ChainID, got, c.want)
		}
	}
}
