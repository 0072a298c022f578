package seald

import (
	"encoding/hex"

	"seald.dev/seald/proof"
)

// DisclosureCommitment is a record's selective-disclosure commitment (Record.Disclosure) and blinding node
// (Record.DisclosureBlind), both lowercase hex, from its canonical data and its wrapped data key
// (Record.DataKey). Both are a function of what acceptance persists (the sealed payload and the key), so the
// pipeline's store step computes them off the request path, and a crash before that step, or a store step run
// again, gives the same bytes (issue 45).
func DisclosureCommitment(k DisclosureKeyer, reference, dataKey string, canon []byte) (commitment, blind string, err error) {
	secret, err := k.DisclosureSecret(reference, dataKey)
	if err != nil {
		return "", "", err
	}
	c, err := proof.SDCommitment(canon, secret)
	if err != nil {
		return "", "", &Error{Code: EINTERNAL, Op: "DisclosureCommitment", Err: err}
	}
	b := disclosureBlind(secret)
	return hex.EncodeToString(c[:]), hex.EncodeToString(b[:]), nil
}
