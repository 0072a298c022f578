package service

import (
	"seald.dev/seald"
)

func errNoCaller() error { return seald.ErrNoCaller }

// operatorCaller checks that c is the operator's caller, for the operator's actions: nobody is EUNAUTHORIZED,
// and so is a project's caller, whose keys grant nothing beyond its project.
func operatorCaller(c *seald.Caller) error {
	switch {
	case c == nil:
		return errNoCaller()
	case !c.IsOperator():
		return seald.Errorf(seald.EUNAUTHORIZED, "this operation belongs to the operator")
	}
	return nil
}

// projectCaller checks that c is a project's caller, for the operations that belong to a project (sealing,
// webhooks): nobody is EUNAUTHORIZED, and so is the operator, who has no project.
func projectCaller(c *seald.Caller) error {
	switch {
	case c == nil:
		return errNoCaller()
	case c.IsOperator() || c.Project == nil || c.Business == nil:
		return seald.Errorf(seald.EUNAUTHORIZED, "this operation belongs to a project: call it with the project's keys")
	}
	return nil
}
