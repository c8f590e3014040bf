package slackbot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/slack-go/slack"

	"github.com/sfnapprovals/approvals/slackbot/chat"
	"github.com/sfnapprovals/approvals/workflow"
)

// Directory answers who is in a Slack user group with
// usergroups.users.list (a Tier 2 method), cached.
type Directory struct {
	api *slack.Client
	ttl time.Duration
	// grace is how long past ttl a cached answer is still served when a
	// refresh fails: how long somebody removed from a group may still
	// decide while Slack cannot say so.
	grace time.Duration
	// retry is how long a failed refresh is not repeated while a stale
	// answer is served.
	retry time.Duration
	now   func() time.Time

	mu      sync.Mutex
	groups  map[string]*groupEntry
	loading map[string]*groupLoad
}

var _ workflow.Directory = (*Directory)(nil)

type groupEntry struct {
	members  []string
	loaded   time.Time
	failedAt time.Time
}

type groupLoad struct {
	done    chan struct{}
	members []string
	err     error
}

// DefaultDirectoryTTL is how long group members are cached by default.
const DefaultDirectoryTTL = time.Minute

// Bounds of the stale grace (DirectoryStaleGrace).
const (
	DefaultStaleGrace = 2 * time.Minute
	MaxStaleGrace     = 5 * time.Minute
)

// ErrMembershipUnknown is in the chain of GroupMembers' error when Slack
// could not say who is in the group and no answer recent enough is cached.
var ErrMembershipUnknown = errors.New("slack cannot confirm the members of the user group")

// DirectoryOption changes a Directory.
type DirectoryOption func(*Directory)

// DirectoryStaleGrace sets how long past the TTL cached members are still
// used while usergroups.users.list fails: from 0 (never) to MaxStaleGrace,
// DefaultStaleGrace by default. Values outside are clamped.
func DirectoryStaleGrace(d time.Duration) DirectoryOption {
	return func(dir *Directory) { dir.grace = min(max(d, 0), MaxStaleGrace) }
}

// NewDirectory returns a Directory that caches each group's members for ttl
// (DefaultDirectoryTTL when ttl <= 0).
func NewDirectory(client *slack.Client, ttl time.Duration, opts ...DirectoryOption) *Directory {
	if ttl <= 0 {
		ttl = DefaultDirectoryTTL
	}
	d := &Directory{
		api:     client,
		ttl:     ttl,
		grace:   DefaultStaleGrace,
		retry:   5 * time.Second,
		now:     time.Now,
		groups:  map[string]*groupEntry{},
		loading: map[string]*groupLoad{},
	}
	for _, o := range opts {
		o(d)
	}
	return d
}

// GroupMembers implements workflow.Directory. Concurrent callers share one
// lookup per group. When Slack fails, members cached within the grace
// period are returned instead of the error; past it, the error wraps
// ErrMembershipUnknown. A group Slack does not know has no members.
func (d *Directory) GroupMembers(ctx context.Context, group string) ([]string, error) {
	d.mu.Lock()
	now := d.now()
	e := d.groups[group]
	if e != nil && (now.Sub(e.loaded) < d.ttl || d.usableStale(e, now) && now.Sub(e.failedAt) < d.retry) {
		members := slices.Clone(e.members)
		d.mu.Unlock()
		return members, nil
	}
	load, ok := d.loading[group]
	if !ok {
		load = &groupLoad{done: make(chan struct{})}
		d.loading[group] = load
		go d.load(context.WithoutCancel(ctx), group, load)
	}
	d.mu.Unlock()

	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-load.done:
	}
	return slices.Clone(load.members), load.err
}

func (d *Directory) usableStale(e *groupEntry, now time.Time) bool {
	return !e.loaded.IsZero() && now.Sub(e.loaded) < d.ttl+d.grace
}

func (d *Directory) load(ctx context.Context, group string, load *groupLoad) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	members, err := d.api.GetUserGroupMembersContext(ctx, group)
	if chat.Code(err) == "no_such_subteam" {
		members, err = nil, nil
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.loading, group)
	now := d.now()
	e := d.groups[group]
	switch {
	case err == nil:
		d.groups[group] = &groupEntry{members: members, loaded: now}
		load.members = members
	case e != nil && d.usableStale(e, now):
		e.failedAt = now
		load.members = e.members
	default:
		load.err = fmt.Errorf("%w: %w", ErrMembershipUnknown, chat.NewAPIError("usergroups.users.list", err))
	}
	close(load.done)
}
