package validate

import (
	"errors"

	"github.com/sfnapprovals/approvals/sfnlocal/intrinsics"
)

// checkIntrinsic checks the syntax of an intrinsic function call such as
// States.Format('Hi {}', $.name). Argument counts and types are left to the
// evaluator: AWS reports them as States.Runtime when the state runs.
func checkIntrinsic(s string) error {
	err := intrinsics.Validate(s)
	if e, ok := errors.AsType[*intrinsics.Error](err); ok && e.Name == intrinsics.ErrRuntime {
		return nil
	}
	return err
}
