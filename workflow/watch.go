package workflow

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// WatchFor is how long after somebody last opened their list of work (a
// Slack App Home) it is kept up to date when their work changes.
const WatchFor = 8 * time.Hour

// Watch records that user has their list of work in view now, so that
// it is refreshed when their work changes, for WatchFor.
func (s *Service) Watch(ctx context.Context, user string) error {
	if !IsUserID(user) {
		return Errorf(EINVALID, "only a Slack user has a list of work to watch")
	}
	if err := s.store.Watch(ctx, user, s.Now().UTC().Add(WatchFor)); err != nil {
		return fmt.Errorf("record that %s watches their work: %w", user, err)
	}
	return nil
}

// Watchers returns the people whose list of work is in view (Watch).
func (s *Service) Watchers(ctx context.Context) ([]string, error) {
	w, err := s.store.Watchers(ctx, s.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("list who watches their work: %w", err)
	}
	return w, nil
}

// Concerned returns the people whose list of work a is on, or was on
// before its last change: its approvers and, once escalated, EscalateTo,
// with the members of their user groups (a group whose members cannot be
// looked up now is left out), those it was handed to and from, who voted
// and who decided, and the requester, whose Home lists their open
// requests.
func (s *Service) Concerned(ctx context.Context, a Approval) []string {
	ids := slices.Clone(a.Approvers)
	if a.Escalated() {
		ids = append(ids, a.Policy.EscalateTo...)
	}
	for _, d := range a.Delegations {
		ids = append(ids, d.From, d.To)
	}
	for _, v := range a.Votes {
		ids = append(ids, v.UserID)
	}
	if a.Decision != nil {
		ids = append(ids, a.Decision.DecidedBy)
	}
	if a.RequestedBy != "" {
		ids = append(ids, a.RequestedBy) // their Home lists their open requests
	}
	var people []string
	for _, id := range unique(ids) {
		switch {
		case IsUserID(id):
			people = append(people, id)
		case IsGroupID(id) && s.directory != nil:
			members, err := s.directory.GroupMembers(ctx, id)
			if err == nil {
				people = append(people, members...)
			}
		}
	}
	return unique(people)
}
