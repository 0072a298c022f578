package pipeline

import (
	"seald.dev/seald"
)

// disclose gives the store step's update u the record's selective-disclosure commitment, computed here rather
// than when the record was accepted (issue 45: off the request path). It is a function of the sealed payload
// env and the record's data key, both persisted at acceptance, so a crash before this step, or this step run
// again, gives the same commitment. A record that has one already (sealed by an earlier version, which
// computed it at acceptance), or has no data key (its payload kept in the clear by an older version, sealed
// here without one), gets none.
func (p *Pipeline) disclose(r *seald.Record, env []byte, u *seald.RecordUpdate) error {
	if r.Disclosure != "" || r.DataKey == "" {
		return nil
	}
	canon, err := p.Secrets.OpenDetached(r.Reference, r.DataKey, env)
	if err != nil {
		return err
	}
	u.Disclosure, u.DisclosureBlind, err = seald.DisclosureCommitment(p.Secrets, r.Reference, r.DataKey, canon)
	return err
}
