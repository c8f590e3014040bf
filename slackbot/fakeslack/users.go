package fakeslack

import (
	"slices"
	"strings"
)

// User is a person's profile as users.info shows it. The fake knows every user ID; a profile only
// gives one a name.
type User struct {
	ID string
	// Name is the handle ("alice"); default the ID in lower case.
	Name string
	// RealName is the full name; default the ID.
	RealName string
	// TZ is an IANA time zone; default "UTC".
	TZ string
	// What users.info says of the account: an app's bot user (the app's
	// own BotUserID always is), a deactivated account, a multi-channel
	// guest (restricted) or a single-channel guest (ultra restricted).
	IsBot, Deleted, IsRestricted, IsUltraRestricted bool
}

// SetUser adds or replaces a person's profile.
func (s *Server) SetUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.api.users[u.ID] = u
	s.notifyLocked()
}

// Users returns the profiles set with Options.Users or SetUser, by ID.
func (s *Server) Users() []User {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]User, 0, len(s.api.users))
	for _, u := range s.api.users {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b User) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Groups returns every usergroup's members, by group ID.
func (s *Server) Groups() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]string, len(s.api.groups))
	for id, members := range s.api.groups {
		out[id] = slices.Clone(members)
	}
	return out
}

func (s *Server) user(id string) map[string]any {
	s.mu.Lock()
	u, ok := s.api.users[id]
	s.mu.Unlock()
	if !ok {
		u = User{ID: id}
	}
	if u.Name == "" {
		u.Name = strings.ToLower(id)
	}
	if u.RealName == "" {
		u.RealName = id
	}
	if u.TZ == "" {
		u.TZ = "UTC"
	}
	return map[string]any{
		"id":                  id,
		"team_id":             s.opts.TeamID,
		"name":                u.Name,
		"real_name":           u.RealName,
		"is_bot":              u.IsBot || id == s.opts.BotUserID,
		"deleted":             u.Deleted,
		"tz":                  u.TZ,
		"is_restricted":       u.IsRestricted,
		"is_ultra_restricted": u.IsUltraRestricted,
		"is_app_user":         false,
		"profile":             map[string]any{"real_name": u.RealName, "display_name": u.Name},
	}
}
