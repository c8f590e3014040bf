package fakeslack

import (
	"regexp"
	"strings"
)

// Direct messages between the app and a person. As in Slack, the app opens
// one with conversations.open (users=U…), which answers the D… channel,
// the same one every time; chat.postMessage to a user ID posts there too
// and answers the D… channel. Only that person sees the conversation, so
// an ephemeral message in it can go to them only (user_not_in_channel
// otherwise).

// userIDPattern is a user ID the fake opens a direct message with; one
// of 20 characters at most, so that its channel ID is a valid one.
var userIDPattern = regexp.MustCompile(`^[UW][A-Z0-9]{2,19}$`)

// DMChannel is the ID of the direct message between the app and user
// ("D" and the user ID): stable, so it survives a Restore.
func DMChannel(user string) string { return "D" + user }

// DMUser is the person of a direct message channel the fake opened, or "".
func DMUser(channel string) string {
	if rest, ok := strings.CutPrefix(channel, "D"); ok && userIDPattern.MatchString(rest) {
		return rest
	}
	return ""
}

// conversationsOpen opens the direct message with one person. Group direct
// messages (several users) and opening by channel are not modelled.
func (s *Server) conversationsOpen(req *apiRequest) (map[string]any, *apiError) {
	users := req.params.Get("users")
	switch {
	case users == "" && req.params.Get("channel") != "":
		return nil, errCode("not_supported")
	case users == "":
		return nil, errCode("users_list_not_supplied")
	case strings.Contains(users, ","):
		return nil, errCode("not_supported")
	case users == s.opts.BotUserID:
		return nil, errCode("cannot_dm_bot")
	case !userIDPattern.MatchString(users):
		return nil, errCode("user_not_found")
	}
	ch := DMChannel(users)
	s.mu.Lock()
	_, open := s.chat.channels[ch]
	s.mu.Unlock()
	return map[string]any{
		"no_op":        open,
		"already_open": open,
		"channel":      map[string]any{"id": ch, "is_im": true, "user": users},
	}, nil
}

// targetChannel is where chat.postMessage to channel posts: the direct
// message for a user ID.
func (s *Server) targetChannel(channel string) (string, *apiError) {
	if !userIDPattern.MatchString(channel) {
		return channel, nil
	}
	if channel == s.opts.BotUserID {
		return "", errCode("cannot_dm_bot")
	}
	return DMChannel(channel), nil
}

// ephemeralAllowed refuses an ephemeral message in a direct message to
// anybody but its person.
func ephemeralAllowed(channel, user string) *apiError {
	if owner := DMUser(channel); owner != "" && owner != user {
		return errCode("user_not_in_channel")
	}
	return nil
}
