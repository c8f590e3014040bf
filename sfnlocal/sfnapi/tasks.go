package sfnapi

import (
	"context"

	"github.com/sfnapprovals/approvals/sfnlocal"
)

// sendTaskSuccess serves SendTaskSuccess. The output must be present but
// may be any text; the engine answers InvalidOutput when it is not JSON.
func (h *handler) sendTaskSuccess(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.SendTaskSuccessInput{
		TaskToken: r.required("taskToken", maxToken, true),
		Output:    r.present("output", maxData, true),
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	if err := h.engine.SendTaskSuccess(ctx, in); err != nil {
		return nil, err
	}
	return empty{}, nil
}

// sendTaskFailure serves SendTaskFailure; error and cause are optional.
func (h *handler) sendTaskFailure(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.SendTaskFailureInput{
		TaskToken: r.required("taskToken", maxToken, true),
		Error:     r.optional("error", maxError, true),
		Cause:     r.optional("cause", maxCause, true),
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	if err := h.engine.SendTaskFailure(ctx, in); err != nil {
		return nil, err
	}
	return empty{}, nil
}

// sendTaskHeartbeat serves SendTaskHeartbeat.
func (h *handler) sendTaskHeartbeat(ctx context.Context, r *request) (any, error) {
	in := sfnlocal.SendTaskHeartbeatInput{TaskToken: r.required("taskToken", maxToken, true)}
	if err := r.err(); err != nil {
		return nil, err
	}
	if err := h.engine.SendTaskHeartbeat(ctx, in); err != nil {
		return nil, err
	}
	return empty{}, nil
}
