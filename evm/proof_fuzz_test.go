package evm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// FuzzVerifyProof feeds VerifyProof bundles that are not what they claim. Whatever the bundle, it must
// return an error (the node here is unreachable, so nothing can pass) of one of the two documented kinds,
// and never panic: `seald proof verify` runs it on files from anyone.
func FuzzVerifyProof(f *testing.F) {
	h := contentHashes("fuzz", 1)[0]
	leaf := LeafHash(42, h)
	good := proof.Bundle{Version: 1, Reference: "r", Hash: hex.EncodeToString(h[:]), Network: "POLYGON", ChainID: "1337",
		Contract: "0x000000000000000000000000000000000000dEaD", TokenID: "42", Leaf: hexutil.Encode(leaf[:]),
		MerklePath: []string{}, Root: hexutil.Encode(leaf[:]), TxHash: "0x" + hex.EncodeToString(make([]byte, 32)),
		PublicKey: "AAAA", Signature: "AAAA"}
	b, _ := json.Marshal(good)
	f.Add(b)
	good.MerklePath = []string{"0x01", hexutil.Encode(h[:])}
	b, _ = json.Marshal(good)
	f.Add(b)
	f.Add([]byte(`{"version":1,"token_id":"18446744073709551616","hash":"zz"}`))

	dead, err := ethclient.Dial("http://127.0.0.1:1")
	if err != nil {
		f.Fatal(err)
	}
	defer dead.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		var p proof.Bundle
		if json.Unmarshal(data, &p) != nil {
			return
		}
		err := VerifyProof(context.Background(), dead, &p)
		if err == nil {
			t.Fatal("a bundle verified against no chain")
		}
		if c := seald.ErrorCode(err); c != seald.EINVALID && c != seald.EUNAVAILABLE {
			t.Fatalf("error code %q: %v", c, err)
		}
	})
}
