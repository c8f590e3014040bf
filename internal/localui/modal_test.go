package localui

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/blocks"
	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

func viewJSON(t *testing.T, v slack.ModalViewRequest) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The product's modals as the page shows them, with an error under an input as Slack shows a
// response_action "errors".
func TestProductModals(t *testing.T) {
	t.Parallel()
	tests := map[string]fakeslack.View{
		"modal_reject": {ID: "V1", Hash: "h1", View: viewJSON(t, blocks.RejectModal(request()))},
		"modal_revise_error": {ID: "V2", Hash: "h2", View: viewJSON(t, blocks.ReviseModal(request())),
			Errors: map[string]string{"feedback": "Choose a change above or describe what should change."}},
		"modal_approve_comment_required": {ID: "V3", Hash: "h3", View: viewJSON(t, blocks.ApproveModal(policyRequest(), workflow.NoDraft)),
			Errors: map[string]string{"comment": "This request needs a comment to approve it."}},
		"modal_reject_reason_required": {ID: "V4", Hash: "h4", View: viewJSON(t, blocks.RejectModal(policyRequest()))},
		"modal_delegate": {ID: "V5", Hash: "h5", View: viewJSON(t, blocks.DelegateModal(policyRequest())),
			Errors: map[string]string{"delegate": "You cannot hand a request to yourself."}},
		"modal_edit":        {ID: "V6", Hash: "h6", View: viewJSON(t, blocks.EditModal(withEdits(request()), 1))},
		"modal_edit_pick":   {ID: "V7", Hash: "h7", View: viewJSON(t, blocks.EditPickModal(withEdits(request())))},
		"modal_withdraw_ja": {ID: "V8", Hash: "h8", View: viewJSON(t, blocks.WithdrawModal(japanese(request())))},
	}
	for name, v := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			golden(t, name, testRenderer("U0ALICE").modal(v))
		})
	}
}

func withEdits(a workflow.Approval) workflow.Approval {
	a.AllowEdit = true
	return a
}

// policyRequest is request under a policy: two approvals, one of them already given, comments
// required to approve and reject, hand-overs allowed.
func policyRequest() workflow.Approval {
	a := request()
	a.Policy = workflow.Policy{Quorum: 2, RequireComment: []workflow.Action{workflow.ActionApprove, workflow.ActionReject}, AllowDelegation: true}
	a.Votes = []workflow.Vote{{UserID: "U0CAROL", DraftIndex: 0, At: decided}}
	return a
}

// The hand-over modal's user picker offers the workspace's people; the person picked reaches the
// bot as slack-go reads a users_select, and Slack's own checks come first.
func TestUsersSelect(t *testing.T) {
	t.Parallel()
	view := viewJSON(t, blocks.DelegateModal(policyRequest()))
	html := testRenderer("U0ALICE").modal(fakeslack.View{ID: "V1", Hash: "h", View: view})
	for _, p := range DefaultWorkspace().People {
		if want := `<option value="` + p.ID + `">` + p.RealName + ` (@` + p.Name + `)</option>`; !strings.Contains(html, want) {
			t.Errorf("the picker does not offer %s:\n%s", want, html)
		}
	}
	// Blocks: 0 the question, 1 the picker.
	values, errs, err := submission(view, url.Values{"in-1": {"U0CAROL"}}, DefaultWorkspace())
	if err != nil || errs != nil {
		t.Fatalf("submission = %v, %v", errs, err)
	}
	raw, err := json.Marshal(map[string]any{"values": values})
	if err != nil {
		t.Fatal(err)
	}
	var state slack.ViewState
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatalf("slack-go cannot read the state %s: %v", raw, err)
	}
	if got := state.Values["delegate"]["delegate"]; got.Type != "users_select" || got.SelectedUser != "U0CAROL" {
		t.Errorf("delegate = %+v", got)
	}
	if _, errs, err := submission(view, url.Values{}, DefaultWorkspace()); err != nil || errs["delegate"] != errRequired {
		t.Errorf("nobody picked: %v, %v", errs, err)
	}
	if _, _, err := submission(view, url.Values{"in-1": {"U0NOBODY"}}, DefaultWorkspace()); err == nil {
		t.Error("somebody outside the workspace was picked")
	}
	optional := json.RawMessage(`{"type":"modal","blocks":[{"type":"input","block_id":"cc","optional":true,"label":{"type":"plain_text","text":"Copy"},
		"element":{"type":"users_select","action_id":"who","initial_user":"U0BOB"}}]}`)
	values, errs, err = submission(optional, url.Values{}, DefaultWorkspace())
	if err != nil || errs != nil {
		t.Fatalf("an optional picker left empty: %v, %v", errs, err)
	}
	if got, _ := json.Marshal(values); string(got) != `{"cc":{"who":{"selected_user":null,"type":"users_select"}}}` {
		t.Errorf("an optional picker left empty = %s", got)
	}
	if html := testRenderer("").modal(fakeslack.View{ID: "V2", View: optional}); !strings.Contains(html, `<option value="U0BOB" selected>`) {
		t.Errorf("initial_user is not selected:\n%s", html)
	}
}

// The form of the revise modal becomes the view_submission state the bot reads with slack-go.
func TestSubmissionAsTheBotReadsIt(t *testing.T) {
	t.Parallel()
	view := viewJSON(t, blocks.ReviseModal(request()))
	// Blocks: 0 the question, 1 the presets, 2 the feedback.
	values, errs, err := submission(view, url.Values{"in-1": {"1"}, "in-2": {"Lead with the benefit."}}, DefaultWorkspace())
	if err != nil || errs != nil {
		t.Fatalf("submission = %v, %v", errs, err)
	}
	raw, err := json.Marshal(map[string]any{"values": values})
	if err != nil {
		t.Fatal(err)
	}
	var state slack.ViewState
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatalf("slack-go cannot read the state %s: %v", raw, err)
	}
	if got := state.Values["preset"]["preset"]; got.Type != "radio_buttons" || got.SelectedOption.Value != "More detail" || got.SelectedOption.Text.Text != "More detail" {
		t.Errorf("preset = %+v", got)
	}
	if got := state.Values["feedback"]["feedback"]; got.Type != "plain_text_input" || got.Value != "Lead with the benefit." {
		t.Errorf("feedback = %+v", got)
	}
}

func TestSubmission(t *testing.T) {
	t.Parallel()
	view := json.RawMessage(`{"type":"modal","blocks":[
		{"type":"section","text":{"type":"mrkdwn","text":"Hi"}},
		{"type":"input","block_id":"name","label":{"type":"plain_text","text":"Name"},"element":{"type":"plain_text_input","action_id":"n","min_length":3,"max_length":5}},
		{"type":"input","block_id":"pick","optional":true,"label":{"type":"plain_text","text":"Pick"},"element":{"type":"static_select","action_id":"p",
			"options":[{"text":{"type":"plain_text","text":"A"},"value":"a"}],
			"option_groups":[{"label":{"type":"plain_text","text":"More"},"options":[{"text":{"type":"plain_text","text":"B"},"value":"b"}]}]}},
		{"type":"input","block_id":"boxes","optional":true,"label":{"type":"plain_text","text":"Boxes"},"element":{"type":"checkboxes","action_id":"c",
			"options":[{"text":{"type":"plain_text","text":"X"},"value":"x"},{"text":{"type":"plain_text","text":"Y"},"value":"y"}]}},
		{"type":"input","block_id":"when","optional":true,"label":{"type":"plain_text","text":"When"},"element":{"type":"datepicker","action_id":"d"}}
	]}`)
	tests := []struct {
		name    string
		form    url.Values
		want    map[string]map[string]any
		errs    map[string]string
		invalid bool
	}{
		{"filled", url.Values{"in-1": {"abcd"}, "in-2": {"1"}, "in-3": {"0", "1"}}, map[string]map[string]any{
			"name":  {"n": map[string]any{"type": "plain_text_input", "value": "abcd"}},
			"pick":  {"p": map[string]any{"type": "static_select", "selected_option": map[string]any{"text": map[string]any{"type": "plain_text", "text": "B"}, "value": "b"}}},
			"boxes": {"c": map[string]any{"type": "checkboxes", "selected_options": []any{map[string]any{"text": map[string]any{"type": "plain_text", "text": "X"}, "value": "x"}, map[string]any{"text": map[string]any{"type": "plain_text", "text": "Y"}, "value": "y"}}}},
		}, nil, false},
		{"optional inputs left empty", url.Values{"in-1": {"abc"}}, map[string]map[string]any{
			"name":  {"n": map[string]any{"type": "plain_text_input", "value": "abc"}},
			"pick":  {"p": map[string]any{"type": "static_select", "selected_option": nil}},
			"boxes": {"c": map[string]any{"type": "checkboxes", "selected_options": []any{}}},
		}, nil, false},
		{"required input empty", url.Values{"in-1": {"  "}}, nil, map[string]string{"name": errRequired}, false},
		{"too short", url.Values{"in-1": {"ab"}}, nil, map[string]string{"name": "Please enter at least 3 characters."}, false},
		{"too long", url.Values{"in-1": {"abcdéf"}}, nil, map[string]string{"name": "Please enter no more than 5 characters."}, false},
		{"no such option", url.Values{"in-1": {"abc"}, "in-2": {"7"}}, nil, nil, true},
		{"not an option index", url.Values{"in-1": {"abc"}, "in-3": {"x"}}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values, errs, err := submission(view, tt.form, DefaultWorkspace())
			if (err != nil) != tt.invalid {
				t.Fatalf("error = %v, want one: %v", err, tt.invalid)
			}
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if tt.want == nil {
				return
			}
			gotJSON, _ := json.Marshal(values)
			var got map[string]map[string]any
			_ = json.Unmarshal(gotJSON, &got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModalKeepsTheViewsTextAsText(t *testing.T) {
	t.Parallel()
	v := fakeslack.View{ID: `V"1`, Hash: "h", View: json.RawMessage(`{"type":"modal","title":{"type":"plain_text","text":"<b>T</b>"},
		"submit":{"type":"plain_text","text":"Go\"><script>"},
		"blocks":[{"type":"input","block_id":"x","label":{"type":"plain_text","text":"<i>L</i>"},"hint":{"type":"plain_text","text":"<u>h</u>"},
		"element":{"type":"plain_text_input","action_id":"a","multiline":true,"initial_value":"</textarea><script>","placeholder":{"type":"plain_text","text":"\"p"}}}]}`),
		Errors: map[string]string{"x": "<b>bad</b>"}}
	html := testRenderer("").modal(v)
	for _, bad := range []string{"<b>", "<i>", "<u>", "<script", `V"1`, `"p"`} {
		if strings.Contains(html, bad) {
			t.Errorf("the modal's HTML holds %s:\n%s", bad, html)
		}
	}
}
