package fakeslack

import "strings"

// Permalink is the link chat.getPermalink returns for a message: the workspace URL (auth.test's
// url) + archives/<channel>/p<ts without the dot>, with thread_ts and cid for a thread reply, as
// Slack formats it.
func (s *Server) Permalink(channel, ts, threadTS string) string {
	link := s.base + "/archives/" + channel + "/p" + strings.Replace(ts, ".", "", 1)
	if threadTS != "" && threadTS != ts {
		link += "?thread_ts=" + threadTS + "&cid=" + channel
	}
	return link
}

// chatGetPermalink knows the messages the fake holds, ephemeral ones excepted.
func (s *Server) chatGetPermalink(req *apiRequest) (map[string]any, *apiError) {
	channel, ts := req.params.Get("channel"), req.params.Get("message_ts")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.chat.channels[channel]; !ok {
		return nil, errCode("channel_not_found")
	}
	m := s.findLocked(channel, ts)
	if m == nil || m.Deleted {
		return nil, errCode("message_not_found")
	}
	return map[string]any{"channel": channel, "permalink": s.Permalink(channel, m.TS, m.ThreadTS)}, nil
}
