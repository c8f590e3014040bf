package slackbot

import (
	"context"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// toldLater queues a, whose message now shows its outcome, for its
// requester's notice.
func (u *updater) toldLater(a workflow.Approval) {
	if !a.NotifyRequester || a.RequestedBy == "" || !a.RequesterToldAt.IsZero() {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.stopping {
		return
	}
	u.told = append(u.told, a)
	u.wake()
}

func (u *updater) nextTold(ctx context.Context) (workflow.Approval, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for ctx.Err() == nil {
		if len(u.told) > 0 {
			a := u.told[0]
			u.told = u.told[1:]
			return a, true
		}
		if !u.waitWork(ctx) {
			return workflow.Approval{}, false
		}
	}
	return workflow.Approval{}, false
}

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
