package slackbot

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
)

func TestDirectory(t *testing.T) {
	fs, err := fakeslack.Start(fakeslack.Options{Groups: map[string][]string{"S1": {"U1", "U2"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	api := slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL()))
	d := NewDirectory(api, time.Minute)
	clock := &fakeClock{t: time.Now()}
	var mu sync.Mutex
	d.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock.now() }
	advance := func(by time.Duration) { mu.Lock(); defer mu.Unlock(); clock.advance(by) }
	ctx := context.Background()

	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			got, err := d.GroupMembers(ctx, "S1")
			if err != nil || !slices.Equal(got, []string{"U1", "U2"}) {
				t.Errorf("GroupMembers = %v, %v", got, err)
			}
		})
	}
	wg.Wait()
	if got := fs.Calls("usergroups.users.list"); got != 1 {
		t.Errorf("10 concurrent lookups made %d calls, want 1", got)
	}

	fs.SetGroup("S1", []string{"U3"})
	advance(2 * time.Minute)
	if got, _ := d.GroupMembers(ctx, "S1"); !cmp.Equal(got, []string{"U3"}) {
		t.Errorf("after the TTL: %v, want the new members", got)
	}

	fs.FailMethod("usergroups.users.list", -1, 503)
	advance(2 * time.Minute)
	if got, err := d.GroupMembers(ctx, "S1"); err != nil || !cmp.Equal(got, []string{"U3"}) {
		t.Errorf("during an outage: %v, %v; want the stale members", got, err)
	}
	calls := fs.Calls("usergroups.users.list")
	if _, err := d.GroupMembers(ctx, "S1"); err != nil || fs.Calls("usergroups.users.list") != calls {
		t.Errorf("a failed refresh was repeated at once (err %v)", err)
	}
	advance(time.Hour)
	if _, err := d.GroupMembers(ctx, "S1"); err == nil {
		t.Error("members older than the grace period were served")
	}
	fs.Heal("usergroups.users.list")

	if got, err := d.GroupMembers(ctx, "S404"); err != nil || len(got) != 0 {
		t.Errorf("unknown group: %v, %v; want no members", got, err)
	}
}

func TestDirectoryStaleGrace(t *testing.T) {
	fs, err := fakeslack.Start(fakeslack.Options{Groups: map[string][]string{"S1": {"U1"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fs.Close)
	api := slack.New(fs.BotToken(), slack.OptionAPIURL(fs.APIURL()))
	tests := []struct {
		name  string
		opts  []DirectoryOption
		grace time.Duration
	}{
		{"default", nil, DefaultStaleGrace},
		{"none", []DirectoryOption{DirectoryStaleGrace(0)}, 0},
		{"longest", []DirectoryOption{DirectoryStaleGrace(MaxStaleGrace)}, MaxStaleGrace},
		{"clamped", []DirectoryOption{DirectoryStaleGrace(time.Hour)}, MaxStaleGrace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs.Heal("usergroups.users.list")
			d := NewDirectory(api, time.Minute, tt.opts...)
			clock := &fakeClock{t: time.Now()}
			d.now = clock.now
			ctx := context.Background()
			if _, err := d.GroupMembers(ctx, "S1"); err != nil {
				t.Fatal(err)
			}
			fs.FailMethod("usergroups.users.list", -1, 503)
			if tt.grace > 0 {
				clock.advance(time.Minute + tt.grace - time.Second)
				if got, err := d.GroupMembers(ctx, "S1"); err != nil || !cmp.Equal(got, []string{"U1"}) {
					t.Errorf("within the grace: %v, %v; want the cached members", got, err)
				}
				clock.advance(time.Second)
			} else {
				clock.advance(time.Minute)
			}
			got, err := d.GroupMembers(ctx, "S1")
			if !errors.Is(err, ErrMembershipUnknown) || got != nil {
				t.Errorf("past the grace: %v, %v; want ErrMembershipUnknown", got, err)
			}
		})
	}
}
