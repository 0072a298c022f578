package service

import (
	"context"
	"time"

	"seald.dev/seald"
)

// ProjectKeys returns the API keys of the caller's project, active or not, oldest first.
func (s *Service) ProjectKeys(ctx context.Context, c *seald.Caller) ([]*seald.Key, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	all, err := s.Store.Keys(ctx, c.Business.BusinessID)
	if err != nil {
		return nil, err
	}
	var out []*seald.Key
	for _, k := range all {
		if k.Kind == seald.KeyProject && k.ProjectID == c.Project.ProjectID {
			out = append(out, k)
		}
	}
	return out, nil
}

// IssueProjectKey issues a new API key of the caller's project and returns its secret, shown this once.
func (s *Service) IssueProjectKey(ctx context.Context, c *seald.Caller) (string, *seald.Key, error) {
	if err := projectCaller(c); err != nil {
		return "", nil, err
	}
	if err := s.mayManageKeys(ctx, c); err != nil {
		return "", nil, err
	}
	return s.issueKey(ctx, c.Business.BusinessID, c.Project.ProjectID)
}

// projectKey returns a key of the caller's project; any other key does not exist for it.
func (s *Service) projectKey(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error) {
	if err := projectCaller(c); err != nil {
		return nil, err
	}
	k, err := s.Store.Key(ctx, keyID)
	if err != nil && seald.ErrorCode(err) != seald.ENOTFOUND {
		return nil, err
	}
	if err != nil || k.Kind != seald.KeyProject || k.ProjectID != c.Project.ProjectID || k.BusinessID != c.Business.BusinessID {
		return nil, seald.Errorf(seald.ENOTFOUND, "no API key %s in this project", keyID)
	}
	if err := s.mayManageKey(ctx, c, k); err != nil {
		return nil, err
	}
	return k, nil
}

// RotateProjectKey issues the successor of one of the caller's project's API keys; the old key keeps
// working for overlap (at most MaxKeyOverlap; zero revokes it at once).
func (s *Service) RotateProjectKey(ctx context.Context, c *seald.Caller, keyID string, overlap time.Duration) (string, *seald.Key, error) {
	if overlap < 0 || overlap > seald.MaxKeyOverlap {
		return "", nil, seald.Errorf(seald.EINVALID, "overlap must be between 0 and %s", seald.MaxKeyOverlap)
	}
	if _, err := s.projectKey(ctx, c, keyID); err != nil {
		return "", nil, err
	}
	return s.rotateKey(ctx, keyID, overlap)
}

// RevokeProjectKey revokes one of the caller's project's API keys. The project's last active API key is
// refused: revoking it would leave the project with no way in but the operator.
func (s *Service) RevokeProjectKey(ctx context.Context, c *seald.Caller, keyID string) (*seald.Key, error) {
	k, err := s.projectKey(ctx, c, keyID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if k.Active(now) {
		keys, err := s.ProjectKeys(ctx, c)
		if err != nil {
			return nil, err
		}
		others := 0
		for _, o := range keys {
			if o.ID != k.ID && o.Active(now) {
				others++
			}
		}
		if others == 0 {
			return nil, seald.Errorf(seald.EINVALID, "key %s is the project's last active API key: issue another before revoking it", keyID)
		}
	}
	return s.revokeKey(ctx, keyID)
}
