package service

import (
	"context"
	"time"

	"seald.dev/seald"
)

// Who may manage which keys. Authority over keys only ever shrinks:
//
//   - The operator (Operator: the CLI, holding the master key and the database) manages every key.
//   - A business's caller manages keys of its own business only: a project's API key those of its project,
//     the business's subscription key (the caller always presents one) any key of the business. The console
//     acts as the project it signed in to, so it offers only that project's API keys.
//   - A caller whose API key or subscription key is in its rotation overlap (rotated, working until its
//     expiry) or no longer active cannot issue, rotate or revoke any key: rotating a leaked key must end
//     what its holder can do, not hand the holder a successor or a longer life.
//   - A rotation never extends an expiry (RotateKey keeps the sooner one).
//
// The caller's keys are read from the store, not from the authentication cache, so a rotation made by
// another instance a moment ago already counts.

// mayManageKeys checks that c may issue, rotate or revoke keys at all.
func (s *Service) mayManageKeys(ctx context.Context, c *seald.Caller) error {
	if c == nil {
		return errNoCaller()
	}
	if c.IsOperator() {
		return nil
	}
	if c.Business == nil || c.KeyID == "" || c.SubscriptionKeyID == "" {
		return seald.Errorf(seald.EUNAUTHORIZED, "managing keys needs a business's keys")
	}
	now := s.now()
	for _, id := range []string{c.KeyID, c.SubscriptionKeyID} {
		k, err := s.Store.Key(ctx, id)
		if err != nil {
			return internalOr(err, seald.Errorf(seald.EUNAUTHORIZED, "key %s no longer authenticates", id))
		}
		if !k.Active(now) || k.BusinessID != c.Business.BusinessID {
			return seald.Errorf(seald.EUNAUTHORIZED, "key %s no longer authenticates", id)
		}
		if k.ExpiresAt != nil {
			return seald.Errorf(seald.EUNAUTHORIZED, "key %s was rotated and works only until %s: a key in its rotation overlap cannot issue, rotate or revoke keys; use its successor",
				k.ID, k.ExpiresAt.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// mayManageKey checks that c may rotate or revoke target: mayManageKeys, and target is a key of c's
// business. (Every business caller presents the subscription key, which covers all of the business's keys;
// the console narrows that to its project's API keys in projectKey.)
func (s *Service) mayManageKey(ctx context.Context, c *seald.Caller, target *seald.Key) error {
	if err := s.mayManageKeys(ctx, c); err != nil || c.IsOperator() {
		return err
	}
	if target.BusinessID != c.Business.BusinessID {
		return seald.Errorf(seald.ENOTFOUND, "no key %s", target.ID)
	}
	return nil
}
