package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"time"
)

// approvalID matches an approval ID, as workflow.NewApprovalID makes them.
var approvalID = regexp.MustCompile(`ap_[a-z2-7]{26}`)

// approvalIDs names the approvals a DynamoDB request is about.
func approvalIDs(body []byte) []string {
	return slices.Compact(slices.Sorted(slices.Values(approvalID.FindAllString(string(body), -1))))
}

// tokenSubject names the approval of a SendTask* request, by its token,
// never the token itself.
func (r *run) tokenSubject(body []byte) []string {
	var in struct {
		TaskToken string `json:"taskToken"`
	}
	if json.Unmarshal(body, &in) != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if it := r.byToken[in.TaskToken]; it != nil && it.id() != "" {
		return []string{it.id()}
	}
	return nil
}

// slackSubjects names the approvals a Slack Web API call is about: the
// IDs in its parameters (blocks, a form's metadata), or the request
// message its ts or thread_ts names.
func (r *run) slackSubjects(params url.Values) []string {
	var ids []string
	for _, vs := range params {
		for _, v := range vs {
			ids = append(ids, approvalID.FindAllString(v, -1)...)
		}
	}
	r.mu.Lock()
	for _, key := range []string{"ts", "thread_ts"} {
		if it := r.byTS[params.Get("channel")+" "+params.Get(key)]; it != nil {
			ids = append(ids, it.id())
		}
	}
	r.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(ids)))
}

// watchSockets maps each socket the fake Slack accepts to the replica that
// opened it, while that process lives.
func (r *run) watchSockets(ctx context.Context) {
	port := r.slackPort()
	for {
		ch := r.slack.Changed()
		for _, s := range r.slack.Sockets() {
			r.mu.Lock()
			_, known := r.sockets[s.ID]
			r.mu.Unlock()
			if known || !s.Closed.IsZero() {
				continue
			}
			var pids []int
			byPID := map[int]*replica{}
			for _, rep := range r.fleet.every() {
				if rep.alive() {
					pids = append(pids, rep.pid)
					byPID[rep.pid] = rep
				}
			}
			if owner := byPID[socketOwner(s.Remote, port, pids)]; owner != nil {
				r.mu.Lock()
				r.sockets[s.ID] = owner
				r.mu.Unlock()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-time.After(time.Second): // a socket whose owner was not found yet
		}
	}
}

func (r *run) slackPort() int {
	var port int
	_, _ = fmt.Sscanf(r.slack.URL(), "http://127.0.0.1:%d/", &port)
	return port
}

// replicaOf names the replica a socket belonged to.
func (r *run) replicaOf(socket int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rep := r.sockets[socket]; rep != nil {
		return rep.String()
	}
	if socket == 0 {
		return "no socket"
	}
	return fmt.Sprintf("socket %d (replica unknown)", socket)
}

// ownsSocket reports whether the replica has an open socket.
func (r *run) ownsSocket(rep *replica) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, owner := range r.sockets {
		if owner == rep {
			for _, s := range r.slack.Sockets() {
				if s.ID == id && s.Closed.IsZero() {
					return true
				}
			}
		}
	}
	return false
}
