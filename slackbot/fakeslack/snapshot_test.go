package fakeslack_test

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

// A fake restored from another's snapshot holds the same messages, edits
// and ephemerals; the app can update its restored messages and reply in
// their threads, and new messages sort after the restored ones.
func TestSnapshotSurvivesARestart(t *testing.T) {
	t.Parallel()
	first := newServer(t, fakeslack.Options{})
	api := newAPI(t, first, first.BotToken())
	_, ts, err := api.PostMessage("C0PUBLISH", slack.MsgOptionText("Ship it?", false),
		slack.MsgOptionBlocks(slack.NewSectionBlock(slack.NewTextBlockObject("mrkdwn", "*Ship it?*", false, false), nil, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessage("C0PUBLISH", ts, slack.MsgOptionText("Approved", false)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.PostMessage("C0PUBLISH", slack.MsgOptionText("Approved by alice", false), slack.MsgOptionTS(ts)); err != nil {
		t.Fatal(err)
	}
	if _, err := api.PostEphemeral("C0PUBLISH", "U0MALLORY", slack.MsgOptionText("You may not decide", false)); err != nil {
		t.Fatal(err)
	}
	human := first.PostMessage("C0OTHER", "hello")

	raw, err := json.Marshal(first.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap fakeslack.Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatal(err)
	}
	second := newServer(t, fakeslack.Options{})
	if err := second.Restore(snap); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	for _, ch := range []string{"C0PUBLISH", "C0OTHER"} {
		if got, want := second.Messages(ch), first.Messages(ch); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after the restore:\n got %+v\nwant %+v", ch, got, want)
		}
	}
	if got, want := second.History("C0PUBLISH", ts), first.History("C0PUBLISH", ts); !reflect.DeepEqual(got, want) || len(got) != 1 {
		t.Errorf("history after the restore:\n got %+v\nwant %+v", got, want)
	}
	if got, want := second.Ephemerals("U0MALLORY"), first.Ephemerals("U0MALLORY"); !reflect.DeepEqual(got, want) || len(got) != 1 {
		t.Errorf("ephemerals after the restore:\n got %+v\nwant %+v", got, want)
	}

	api2 := newAPI(t, second, second.BotToken())
	if _, _, _, err := api2.UpdateMessage("C0PUBLISH", ts, slack.MsgOptionText("Rejected", false)); err != nil {
		t.Errorf("the app cannot update its restored message: %v", err)
	}
	if _, _, _, err := api2.UpdateMessage("C0OTHER", human, slack.MsgOptionText("edited", false)); err == nil || !strings.Contains(err.Error(), "cant_update_message") {
		t.Errorf("a restored human message is the app's to update: %v", err)
	}
	_, reply, err := api2.PostMessage("C0PUBLISH", slack.MsgOptionText("later", false), slack.MsgOptionTS(ts))
	if err != nil {
		t.Fatalf("reply in a restored thread: %v", err)
	}
	if msgs := second.Messages("C0PUBLISH"); msgs[len(msgs)-1].TS != reply || reply <= msgs[len(msgs)-2].TS {
		t.Errorf("a new message's ts %s does not sort after the restored ones: %+v", reply, msgs)
	}
}

func TestRestoreRefusesABadSnapshot(t *testing.T) {
	t.Parallel()
	ok := fakeslack.SavedMessage{Channel: "C1", TS: "1.000100", User: "UBOT", Text: "kept"}
	tests := []struct {
		name string
		snap fakeslack.Snapshot
		want string
	}{
		{"another version", fakeslack.Snapshot{Version: 2}, "version 2"},
		{"no channel", fakeslack.Snapshot{Version: 1, Messages: []fakeslack.SavedMessage{{TS: "1.1"}}}, "no channel or ts"},
		{"no ts", fakeslack.Snapshot{Version: 1, Messages: []fakeslack.SavedMessage{{Channel: "C1"}}}, "no channel or ts"},
		{"ephemeral without recipient", fakeslack.Snapshot{Version: 1, Messages: []fakeslack.SavedMessage{{Channel: "C1", TS: "1.1", Ephemeral: true}}}, "no recipient"},
		{"blocks not JSON", fakeslack.Snapshot{Version: 1, Messages: []fakeslack.SavedMessage{{Channel: "C1", TS: "1.1", Blocks: json.RawMessage("[")}}}, "not JSON"},
		{"same message twice", fakeslack.Snapshot{Version: 1, Messages: []fakeslack.SavedMessage{ok, ok}}, "two messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, fakeslack.Options{})
			before := s.PostMessage("C1", "before")
			err := s.Restore(tt.snap)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Restore = %v, want an error saying %q", err, tt.want)
			}
			if msgs := s.Messages("C1"); len(msgs) != 1 || msgs[0].TS != before {
				t.Errorf("a refused snapshot changed the messages: %+v", msgs)
			}
		})
	}
}

// A fake on a listener of the caller's serves there, and its links name it.
func TestStartOnAListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, fakeslack.Options{Listener: ln})
	if want := "http://" + ln.Addr().String() + "/api/"; s.APIURL() != want {
		t.Errorf("APIURL = %s, want %s", s.APIURL(), want)
	}
	if _, err := newAPI(t, s, s.BotToken()).AuthTest(); err != nil {
		t.Errorf("auth.test on the listener: %v", err)
	}
}

// A fake whose clock is behind the snapshot's (another machine, a clock
// set back) still stamps new messages after the restored ones, as the
// app's threads and message order need.
func TestRestoreMovesTheClockForward(t *testing.T) {
	t.Parallel()
	first := newServer(t, fakeslack.Options{})
	last := first.PostMessage("C1", "before")
	behind := newServer(t, fakeslack.Options{Now: func() time.Time { return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if err := behind.Restore(first.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if next := behind.PostMessage("C1", "after"); next <= last {
		t.Errorf("a message posted after the restore has ts %s, not after the restored %s", next, last)
	}
}
