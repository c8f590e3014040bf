package slackbot

import (
	"context"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// tellRequester sends the requester of the final approval a their one
// direct message about its outcome (decided, expired or cancelled), once
// its message shows it: the replica whose claim
// (workflow.Service.ClaimRequesterNotice) lands sends it, at most once; a
// failed send is logged and not repeated. Requests without a requester
// or with notifyRequester false get none.
func (u *updater) tellRequester(ctx context.Context, a workflow.Approval, log *zap.Logger) {
	if !a.NotifyRequester || a.RequestedBy == "" || !a.RequesterToldAt.IsZero() {
		return
	}
	callCtx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	claimed, ok, err := u.approvals.ClaimRequesterNotice(callCtx, a.ID)
	cancel()
	switch {
	case err != nil:
		log.Warn("requester's notice not claimed; not sent", zap.Error(chat.Redacted(err)))
		return
	case !ok:
		return
	}
	callCtx, cancel = context.WithTimeout(ctx, 2*u.cfg.CallTimeout)
	defer cancel()
	if err := chat.NewPoster(u.api).PostRequesterNotice(callCtx, claimed); err != nil {
		log.Warn("requester's notice not sent", zap.String("requested_by", a.RequestedBy), zap.Error(err))
		return
	}
	log.Info("requester told the outcome", zap.String("requested_by", a.RequestedBy))
}
