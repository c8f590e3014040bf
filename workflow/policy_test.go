package workflow_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/workflow"
)

// withPolicy is validPayload with the keys set (nil deletes a key).
func withPolicy(keys map[string]any) map[string]any {
	p := validPayload()
	for k, v := range keys {
		if v == nil {
			delete(p, k)
			continue
		}
		p[k] = v
	}
	return p
}

func TestParseRequestPolicyInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keys map[string]any
		want string
	}{
		{"quorum 0", map[string]any{"quorum": 0}, "quorum must be a whole number from 1 to 10"},
		{"quorum 11", map[string]any{"quorum": 11}, "quorum must be a whole number from 1 to 10"},
		{"quorum fraction", map[string]any{"quorum": 1.5}, `field "quorum" must be a whole number, not a number with a fraction`},
		{"quorum string", map[string]any{"quorum": "2"}, `field "quorum" must be a whole number, not a string`},
		{"quorum beyond the people", map[string]any{"quorum": 3, "approvers": []string{"U0A", "U0B", "U0999XYZ"}}, "quorum 3 needs at least 3 people who may approve, but approvers and escalateTo name 2"},
		{"allowSelfApproval string", map[string]any{"allowSelfApproval": "yes"}, `field "allowSelfApproval" must be true or false, not a string`},
		{"allowDelegation number", map[string]any{"allowDelegation": 1}, `field "allowDelegation" must be true or false, not a number`},
		{"requireComment unknown", map[string]any{"requireComment": []string{"revise"}}, `requireComment holds "revise"; it may hold only "approve" and "reject"`},
		{"requireComment repeated", map[string]any{"requireComment": []string{"approve", "approve"}}, `requireComment repeats "approve"`},
		{"requireComment not a list", map[string]any{"requireComment": "approve"}, `field "requireComment" must be an array of strings, not a string`},
		{"reminder garbage", map[string]any{"reminders": []string{"soon"}}, `reminders entry "soon" is neither a duration after the request such as 2h or 90m nor a percentage`},
		{"reminder 100%", map[string]any{"reminders": []string{"100%"}}, `reminders entry "100%" is not a percentage above 0% and below 100%`},
		{"reminder 0%", map[string]any{"reminders": []string{"0%"}}, `reminders entry "0%" is not a percentage above 0%`},
		{"reminder three decimals", map[string]any{"reminders": []string{"12.345%"}}, `reminders entry "12.345%" is not a percentage`},
		{"reminder negative", map[string]any{"reminders": []string{"-2h"}}, `reminders entry "-2h" is neither a duration`},
		{"reminder after the deadline", map[string]any{"reminders": []string{"24h"}}, `reminders entry "24h" does not fall before the deadline (timeoutSeconds 86400)`},
		{"reminder share without deadline", map[string]any{"reminders": []string{"50%"}, "timeoutSeconds": nil}, `reminders entry "50%" is a share of the time until the deadline, but the request has none`},
		{"reminders repeated", map[string]any{"reminders": []string{"2h", "2h"}}, `reminders repeats "2h"`},
		{"reminders too many", map[string]any{"reminders": []string{"1h", "2h", "3h", "4h", "5h", "6h", "7h", "8h", "9h", "10h", "11h"}}, "reminders has 11 entries; at most 10 are allowed"},
		{"reminder unresolved", map[string]any{"reminders": []string{"$.remind"}}, `reminders holds "$.remind", which Step Functions passed on unresolved`},
		{"escalateTo a channel", map[string]any{"escalateTo": []string{"C0123"}}, `escalateTo entry "C0123" is neither a user ID (U…/W…) nor a user-group ID (S…)`},
		{"escalateTo unresolved", map[string]any{"escalateTo": []string{"$.boss"}}, `escalateTo holds "$.boss"`},
		{"escalateAfter without escalateTo", map[string]any{"escalateAfter": "2h"}, "escalateAfter needs escalateTo"},
		{"escalateAfter garbage", map[string]any{"escalateTo": []string{"U0BOSS"}, "escalateAfter": "later"}, `escalateAfter "later" is neither a duration`},
		{"escalateAfter after the deadline", map[string]any{"escalateTo": []string{"U0BOSS"}, "escalateAfter": "25h"}, `escalateAfter "25h" does not fall before the deadline`},
		{"escalateTo without deadline nor escalateAfter", map[string]any{"escalateTo": []string{"U0BOSS"}, "timeoutSeconds": nil}, `escalateAfter "75%" is a share of the time until the deadline, but the request has none`},
		{"onDeadline unknown", map[string]any{"onDeadline": "approve"}, `onDeadline must be "reject" or "skip", not "approve"`},
		{"onDeadline skip without allowSkip", map[string]any{"onDeadline": "skip", "allowSkip": false}, `onDeadline "skip" needs allowSkip true`},
		{"onDeadline without deadline", map[string]any{"onDeadline": "reject", "timeoutSeconds": nil}, "onDeadline needs timeoutSeconds of at least 300"},
		{"onDeadline with a short deadline", map[string]any{"onDeadline": "reject", "timeoutSeconds": 299}, "onDeadline needs timeoutSeconds of at least 300"},
		{"heartbeatSeconds too short", map[string]any{"heartbeatSeconds": 30}, "heartbeatSeconds must be at least 60"},
		{"heartbeatSeconds beyond the deadline", map[string]any{"heartbeatSeconds": 86400}, "heartbeatSeconds must be less than timeoutSeconds"},
		{"heartbeatSeconds fraction", map[string]any{"heartbeatSeconds": 60.5}, `field "heartbeatSeconds" must be a whole number`},
		{"channel a user group", map[string]any{"channel": "S0456DEF"}, `channel "S0456DEF" is not a Slack channel ID (C…, G… or D…) nor a user ID (U…/W…, for a direct message)`},
		{"misspelt key", map[string]any{"qourum": 2}, `unknown field "qourum"; did you mean "quorum"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := workflow.ParseRequest(encode(t, withPolicy(tt.keys)))
			if workflow.ErrorCode(err) != workflow.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want EINVALID containing %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("error quotes the task token: %v", err)
			}
		})
	}
}

// Each new field is stored as the policy it asks for, and a request
// without them keeps v1's behaviour, reminders aside.
func TestRequestStoresThePolicy(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	tests := []struct {
		name       string
		keys       map[string]any
		wantPolicy workflow.Policy
		wantSteps  []workflow.Step // At as offsets from the request, kinds
	}{
		{
			name:       "no new field: quorum 1, delegation allowed, default reminders at 50% and 90%",
			keys:       nil,
			wantPolicy: workflow.Policy{Quorum: 1, AllowDelegation: true},
			wantSteps:  []workflow.Step{{Kind: workflow.StepRemind, At: at(day / 2)}, {Kind: workflow.StepRemind, At: at(day * 9 / 10)}},
		},
		{
			name:       "no deadline: no default reminders",
			keys:       map[string]any{"timeoutSeconds": nil},
			wantPolicy: workflow.Policy{Quorum: 1, AllowDelegation: true},
		},
		{
			name:       "reminders off",
			keys:       map[string]any{"reminders": []string{}},
			wantPolicy: workflow.Policy{Quorum: 1, AllowDelegation: true},
		},
		{
			name:       "durations without a deadline",
			keys:       map[string]any{"timeoutSeconds": nil, "reminders": []string{"90m", "2h"}, "escalateTo": []string{"U0BOSS"}, "escalateAfter": "3h"},
			wantPolicy: workflow.Policy{Quorum: 1, AllowDelegation: true, EscalateTo: []string{"U0BOSS"}},
			wantSteps: []workflow.Step{
				{Kind: workflow.StepRemind, At: at(90 * time.Minute)}, {Kind: workflow.StepRemind, At: at(2 * time.Hour)}, {Kind: workflow.StepEscalate, At: at(3 * time.Hour)},
			},
		},
		{
			name: "everything",
			keys: map[string]any{
				"quorum": 2, "allowSelfApproval": true, "requireComment": []string{"reject", "approve"}, "allowDelegation": false,
				"reminders": []string{"12.5%", "3h", "3h0m"}, "escalateTo": []string{"S0LEADS", "U0BOSS", "S0LEADS"},
				"onDeadline": "skip", "heartbeatSeconds": 300,
			},
			wantPolicy: workflow.Policy{
				Quorum: 2, AllowSelfApproval: true, RequireComment: []workflow.Action{workflow.ActionReject, workflow.ActionApprove},
				EscalateTo: []string{"S0LEADS", "U0BOSS"}, OnDeadline: workflow.ActionSkip, Heartbeat: 5 * time.Minute,
			},
			wantSteps: []workflow.Step{
				{Kind: workflow.StepRemind, At: at(3 * time.Hour)},
				{Kind: workflow.StepEscalate, At: at(day * 3 / 4)},
				{Kind: workflow.StepDeadline, At: at(day - workflow.OnDeadlineLead)},
			},
		},
		{
			name:       "steps at or after the onDeadline decision are left out",
			keys:       map[string]any{"timeoutSeconds": 600, "onDeadline": "reject", "escalateTo": []string{"U0BOSS"}, "escalateAfter": "9m"},
			wantPolicy: workflow.Policy{Quorum: 1, AllowDelegation: true, EscalateTo: []string{"U0BOSS"}, OnDeadline: workflow.ActionReject},
			wantSteps: []workflow.Step{
				{Kind: workflow.StepRemind, At: at(5 * time.Minute)},
				{Kind: workflow.StepDeadline, At: at(8 * time.Minute)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			r := must(workflow.ParseRequest(encode(t, withPolicy(tt.keys))))
			a, _, err := f.svc.Request(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantPolicy, a.Policy); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
			var got []workflow.Step
			for _, s := range a.Steps {
				got = append(got, workflow.Step{Kind: s.Kind, At: epoch.Add(s.At.Sub(a.CreatedAt))})
			}
			if diff := cmp.Diff(tt.wantSteps, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

var epoch = time.Unix(0, 0).UTC()

// at is a step time as an offset from the request, for comparing steps.
func at(d time.Duration) time.Time { return epoch.Add(d) }
