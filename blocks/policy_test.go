package blocks

import (
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
	"github.com/sfnapprovals/approvals/workflow/workflowtest"
)

func withPolicy(a workflow.Approval, p workflow.Policy) workflow.Approval {
	a.Policy = p
	return a
}

// quorumApproval is a request for two approvals of the same draft, with
// one approval of each draft, a hand-over, a reminder and the escalation
// done, and its onDeadline rejection to come.
func quorumApproval() workflow.Approval {
	a := withPolicy(workflowtest.WithDrafts(workflowtest.SampleApproval()), workflow.Policy{
		Quorum: 2, AllowDelegation: true, EscalateTo: []string{"S0LEADS"}, OnDeadline: workflow.ActionReject,
	})
	at := func(m int) time.Time { return created.Add(time.Duration(m) * time.Minute) }
	a.Votes = []workflow.Vote{
		{UserID: "U0AAA", DraftIndex: 0, Comment: "Good <!here>\nship it", At: at(10)},
		{UserID: "U0BBB", DraftIndex: 1, At: at(20)},
	}
	a.Delegations = []workflow.Delegation{{From: "U0CCC", To: "U0DDD", At: at(15)}}
	a.Steps = []workflow.Step{
		{Kind: workflow.StepRemind, At: at(30), DoneAt: at(30)},
		{Kind: workflow.StepEscalate, At: at(40), DoneAt: at(41)},
		{Kind: workflow.StepRemind, At: at(50)},
		{Kind: workflow.StepDeadline, At: deadline.Add(-workflow.OnDeadlineLead)},
	}
	return a
}

func TestPolicyMessagesGolden(t *testing.T) {
	upcoming := quorumApproval()
	upcoming.Votes, upcoming.Delegations = nil, nil
	for i := range upcoming.Steps {
		upcoming.Steps[i].DoneAt = time.Time{}
	}
	byDeadline := func(a workflow.Approval, action workflow.Action) workflow.Approval {
		at := deadline.Add(-workflow.OnDeadlineLead)
		a.Status, a.ClosedAt = workflow.StatusDecided, at
		a.Decision = &workflow.Decision{Action: action, DraftIndex: workflow.NoDraft, DecidedBy: workflow.DecidedByDeadline, DecidedAt: at}
		if len(a.Steps) == 0 {
			a.Steps = []workflow.Step{{Kind: workflow.StepDeadline, At: at}}
		}
		a.Steps[len(a.Steps)-1].DoneAt = at
		return a
	}
	quorumMet := quorumApproval()
	quorumMet.Votes = append(quorumMet.Votes, workflow.Vote{UserID: "U0DDD", DraftIndex: 1, Comment: "agreed", At: decided})
	quorumMet = workflowtest.DecidedAs(quorumMet, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1, Text: "agreed"})
	quorumMet.Decision.DecidedBy = "U0DDD"
	commented := workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1, Text: "Numbers <check> out"})
	tests := map[string]Message{
		"request_quorum":            RequestMessage(quorumApproval()),
		"request_policy_upcoming":   RequestMessage(upcoming),
		"request_comment_required":  RequestMessage(withPolicy(workflowtest.SampleApproval(), workflow.Policy{RequireComment: []workflow.Action{workflow.ActionApprove}})),
		"outcome_deadline_rejected": OutcomeMessage(byDeadline(quorumApproval(), workflow.ActionReject)),
		"outcome_deadline_skipped":  OutcomeMessage(byDeadline(withPolicy(workflowtest.SampleApproval(), workflow.Policy{OnDeadline: workflow.ActionSkip}), workflow.ActionSkip)),
		"outcome_quorum_approved":   OutcomeMessage(quorumMet),
		"outcome_approved_comment":  OutcomeMessage(commented),
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			golden(t, name, m)
			if got := blocksLen(m.Blocks...); got > maxBlocksLen {
				t.Errorf("blocks take %d characters of JSON; the budget is %d", got, maxBlocksLen)
			}
		})
	}
	if s := string(mustJSON(t, tests["request_quorum"])); strings.Contains(s, "<!here>") {
		t.Error("a vote's comment carries a broadcast into the message")
	}
}

func TestPolicyTexts(t *testing.T) {
	at := deadline.Add(-workflow.OnDeadlineLead)
	byDeadline := workflowtest.SampleApproval()
	byDeadline.Status = workflow.StatusDecided
	byDeadline.Decision = &workflow.Decision{Action: workflow.ActionReject, DraftIndex: -1, DecidedBy: workflow.DecidedByDeadline, DecidedAt: at}
	skipped := byDeadline
	skipped.Decision = &workflow.Decision{Action: workflow.ActionSkip, DraftIndex: -1, DecidedBy: workflow.DecidedByDeadline, DecidedAt: at}
	quorum := quorumApproval()
	quorumMet := quorumApproval()
	quorumMet.Votes = append(quorumMet.Votes, workflow.Vote{UserID: "U0DDD", DraftIndex: 1, At: decided})
	quorumMet = workflowtest.DecidedAs(quorumMet, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1})
	atDate := "<!date^1796029080^{date_short_pretty} {time}|2026-11-30 08:58 UTC>"
	tests := []struct {
		name, got     string
		want, wantNot []string
	}{
		{"reply, rejected at the deadline", ReplyText(byDeadline), []string{"Rejected at its deadline: nobody decided in time."}, []string{"<@deadline>"}},
		{"reply, skipped at the deadline", ReplyText(skipped), []string{"Skipped at its deadline"}, nil},
		{"outcome, rejected at the deadline", outcomeText(byDeadline), []string{"⏰ *Rejected at the deadline*", "onDeadline rejected it at " + atDate}, []string{"<@deadline>"}},
		{"late click, rejected at the deadline", LateText(byDeadline, nil), []string{"Nobody decided this request in time, so it was rejected at its deadline (" + atDate + ")."}, []string{"<@deadline>"}},
		{"reply, quorum met", ReplyText(quorumMet), []string{"Approved draft 2 by <@U0BBB>, <@U0DDD>."}, nil},
		{"reply, comment", ReplyText(workflowtest.DecidedAs(workflowtest.SampleApproval(), workflow.Decision{Action: workflow.ActionApprove, DraftIndex: -1, Text: "fine <!here>\nreally"})), []string{"Approved by <@U0AAA>: fine &lt;!here&gt; — really"}, nil},
		{"progress", Progress(quorum), []string{"1 of 2 approvals"}, nil},
		{"vote", VoteText(quorum, workflow.Decision{Action: workflow.ActionApprove, DraftIndex: 1}),
			[]string{"Your approval of draft 2 of *Publish the post for 2026-11-29* is counted (1 of 2 approvals so far)", "once 2 people approved of the same draft."}, nil},
		{"reminder", ReminderNotice(quorum), []string{"🔔 Reminder: <!subteam^S0GRP>", "<!subteam^S0LEADS>", "<@U0DDD>", "(1 of 2 approvals so far)", "deadline is <!date^"}, []string{"U0AAA", "U0BBB", "U0CCC", "U0REQ"}},
		{"escalation", EscalationNotice(quorum), []string{"⏫ Escalated: <!subteam^S0LEADS>, nobody has decided", "deadline is"}, nil},
		{"delegation", DelegationNotice(quorum, quorum.Delegations[0]), []string{"↪️ <@U0CCC> handed this request to <@U0DDD>, who may decide it now."}, nil},
		{"who may decide", WhoMayDecide(quorum), []string{"<@U0AAA>", "<!subteam^S0LEADS>", "<@U0DDD>"}, []string{"U0CCC"}},
	}
	for _, tt := range tests {
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("%s: %q does not contain %q", tt.name, tt.got, w)
			}
		}
		for _, w := range tt.wantNot {
			if strings.Contains(tt.got, w) {
				t.Errorf("%s: %q contains %q", tt.name, tt.got, w)
			}
		}
	}
}
