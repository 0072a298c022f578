package service

import (
	"cmp"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/proof"
)

// TrustRoot returns the service's trust root document, signed.
func (s *Service) TrustRoot() *proof.TrustRoot {
	t := &proof.TrustRoot{Version: proof.TrustRootVersion, Issuer: strings.TrimRight(s.PublicURL, "/"), Networks: []proof.TrustNetwork{}}
	retired := s.Secrets.RetiredContracts()
	network := func(name, chainID string) *proof.TrustNetwork {
		for i := range t.Networks {
			if t.Networks[i].Network == name && t.Networks[i].ChainID == chainID {
				return &t.Networks[i]
			}
		}
		t.Networks = append(t.Networks, proof.TrustNetwork{Network: name, ChainID: chainID,
			ChainName: seald.Chain{Network: name, ChainID: chainID}.Name(), Contracts: []proof.TrustContract{}})
		return &t.Networks[len(t.Networks)-1]
	}
	for _, c := range retired {
		n := network(c.Network, c.ChainID)
		n.Contracts = append(n.Contracts, proof.TrustContract{Contract: c.Contract, Anchorer: c.Anchorer, FromBlock: c.FromBlock, ToBlock: c.ToBlock})
	}
	for _, ch := range s.Chains {
		n := network(ch.Network, ch.ChainID)
		n.ChainName, n.Development = ch.Name(), ch.Development
		// The current contract's range starts after the last retired one of its chain ended: anchors on it
		// before then were not the issuer's. A contract the operator retired stays retired even when an
		// instance still runs with it: its later anchors are refused, which is what retiring it means.
		from, listed := uint64(0), false
		for _, c := range n.Contracts {
			if c.ToBlock != nil && *c.ToBlock+1 > from {
				from = *c.ToBlock + 1
			}
			listed = listed || strings.EqualFold(c.Contract, ch.Contract)
		}
		if !listed {
			n.Contract, n.Anchorer = ch.Contract, ch.Anchorer
			n.Contracts = append(n.Contracts, proof.TrustContract{Contract: ch.Contract, Anchorer: ch.Anchorer, FromBlock: from})
		}
	}
	slices.SortFunc(t.Networks, func(a, b proof.TrustNetwork) int {
		return cmp.Or(cmp.Compare(a.Network, b.Network), cmp.Compare(a.ChainID, b.ChainID))
	})
	for i := range t.Networks {
		slices.SortStableFunc(t.Networks[i].Contracts, func(a, b proof.TrustContract) int { return cmp.Compare(a.FromBlock, b.FromBlock) })
	}
	for _, k := range s.Secrets.SigningKeys() {
		tk := proof.TrustKey{KeyID: k.ID, Algorithm: "Ed25519", PublicKey: base64.StdEncoding.EncodeToString(k.Public),
			Status: "retired", CurrentFrom: seconds(k.Created), RetiredAt: seconds(k.Retired), CompromisedAt: seconds(k.Compromised)}
		switch {
		case !k.Compromised.IsZero():
			tk.Status = "compromised"
		case k.Current:
			tk.Status = "current"
		case k.Retired.IsZero():
			// A retired key of a file from before key dates: trusted for no anchor rather than for all.
			tk.RetiredAt = seconds(time.Unix(0, 0))
		}
		t.Keys = append(t.Keys, tk)
	}
	digest := t.DigestForSigning()
	for _, sig := range s.Secrets.SignAll(digest[:]) {
		t.Signatures = append(t.Signatures, proof.TrustSignature{KeyID: sig.KeyID, Signature: base64.StdEncoding.EncodeToString(sig.Signature)})
	}
	return t
}

// seconds is t in UTC to the second, nil when zero: block times are whole seconds, and a verifier in another
// language compares them with these without parsing fractions.
func seconds(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Truncate(time.Second)
	return &s
}
