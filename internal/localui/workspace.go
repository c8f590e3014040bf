package localui

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/sfnapprovals/approvals/slackbot/fakeslack"
	"github.com/sfnapprovals/approvals/workflow"
)

// Workspace is the stand-in's Slack workspace: its channels, the people one can act as, and the
// user groups. It is read from a JSON file (LoadWorkspace) such as the default one,
// DefaultWorkspace:
//
//	{
//	  "channels": [{"id": "C0PUBLISH", "name": "publishing"}],
//	  "people":   [{"id": "U0ALICE", "name": "alice", "realName": "Alice Archer", "title": "Approver"}],
//	  "groups":   [{"id": "S0EDITORS", "handle": "editors", "name": "Editors", "members": ["U0ALICE"]}]
//	}
type Workspace struct {
	Channels []Channel `json:"channels"`
	People   []Person  `json:"people"`
	Groups   []Group   `json:"groups"`
}

// Channel is a channel of the workspace.
type Channel struct {
	ID   string `json:"id"`   // C…, G… or D…
	Name string `json:"name"` // without the #
}

// Person is someone the page can act as.
type Person struct {
	ID       string `json:"id"`       // U… or W…
	Name     string `json:"name"`     // the handle mentions show, without the @
	RealName string `json:"realName"` // shown as the author of their messages; default Name
	Title    string `json:"title"`    // what they are here for, e.g. "Approver"; optional
}

// Group is a user group.
type Group struct {
	ID      string   `json:"id"`     // S…
	Handle  string   `json:"handle"` // without the @
	Name    string   `json:"name"`
	Members []string `json:"members"` // IDs of people of the workspace
}

//go:embed workspace.json
var defaultWorkspace []byte

// DefaultWorkspace is the workspace shipped with the stand-in: channel #publishing (C0PUBLISH),
// an approver (alice, U0ALICE), a member of the @editors group (carol, U0CAROL; the group is
// S0EDITORS), the requester (bob, U0BOB, definitions.Requester) and a stranger (mallory,
// U0MALLORY). State machines deployed with Channel=C0PUBLISH and Approvers=U0ALICE,S0EDITORS
// make each of them play their part.
func DefaultWorkspace() Workspace {
	w, err := ParseWorkspace(defaultWorkspace)
	if err != nil {
		panic("localui: the embedded workspace.json is invalid: " + err.Error())
	}
	return w
}

// LoadWorkspace reads and checks a workspace file.
func LoadWorkspace(path string) (Workspace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Workspace{}, fmt.Errorf("read the workspace file: %w", err)
	}
	w, err := ParseWorkspace(b)
	if err != nil {
		return Workspace{}, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

var channelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)

// ParseWorkspace decodes and checks a workspace: at least one person, IDs of the right kind and
// each once, names without spaces, group members who are people of the workspace. Unknown
// fields are an error, so a misspelt one is not silently ignored.
func ParseWorkspace(b []byte) (Workspace, error) {
	var w Workspace
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Workspace{}, fmt.Errorf("decode the workspace: %w", err)
	}
	if err := w.check(); err != nil {
		return Workspace{}, fmt.Errorf("invalid workspace: %w", err)
	}
	for i := range w.People {
		if w.People[i].RealName == "" {
			w.People[i].RealName = w.People[i].Name
		}
	}
	return w, nil
}

func (w Workspace) check() error {
	if len(w.People) == 0 {
		return fmt.Errorf("people: at least one person is needed to act as")
	}
	seen := map[string]string{}
	unique := func(where, id string) error {
		if first, ok := seen[id]; ok {
			return fmt.Errorf("%s: id %s is already used by %s", where, id, first)
		}
		seen[id] = where
		return nil
	}
	handle := func(where, field, v string) error {
		if v == "" || strings.ContainsAny(v, " \t\n@#<>&") {
			return fmt.Errorf("%s: %s %q must be a non-empty handle without spaces, @, #, <, > or &", where, field, v)
		}
		return nil
	}
	for i, c := range w.Channels {
		where := fmt.Sprintf("channels[%d]", i)
		if !channelID.MatchString(c.ID) {
			return fmt.Errorf("%s: id %q is not a Slack channel ID (C…, G… or D…)", where, c.ID)
		}
		if err := handle(where, "name", c.Name); err != nil {
			return err
		}
		if err := unique(where, c.ID); err != nil {
			return err
		}
	}
	people := map[string]bool{}
	for i, p := range w.People {
		where := fmt.Sprintf("people[%d]", i)
		if !workflow.IsUserID(p.ID) {
			return fmt.Errorf("%s: id %q is not a Slack user ID (U… or W…)", where, p.ID)
		}
		if err := handle(where, "name", p.Name); err != nil {
			return err
		}
		if err := unique(where, p.ID); err != nil {
			return err
		}
		people[p.ID] = true
	}
	for i, g := range w.Groups {
		where := fmt.Sprintf("groups[%d]", i)
		if !workflow.IsGroupID(g.ID) {
			return fmt.Errorf("%s: id %q is not a Slack user group ID (S…)", where, g.ID)
		}
		if err := handle(where, "handle", g.Handle); err != nil {
			return err
		}
		if err := unique(where, g.ID); err != nil {
			return err
		}
		for _, m := range g.Members {
			if !people[m] {
				return fmt.Errorf("%s: member %q is not one of the people", where, m)
			}
		}
	}
	return nil
}

// Person returns the person with the ID.
func (w Workspace) Person(id string) (Person, bool) {
	for _, p := range w.People {
		if p.ID == id {
			return p, true
		}
	}
	return Person{}, false
}

// Group returns the group with the ID.
func (w Workspace) Group(id string) (Group, bool) {
	for _, g := range w.Groups {
		if g.ID == id {
			return g, true
		}
	}
	return Group{}, false
}

// Channel returns the channel with the ID.
func (w Workspace) Channel(id string) (Channel, bool) {
	for _, c := range w.Channels {
		if c.ID == id {
			return c, true
		}
	}
	return Channel{}, false
}

// Users are the people as the fake Slack's users.info shows them.
func (w Workspace) Users() []fakeslack.User {
	out := make([]fakeslack.User, 0, len(w.People))
	for _, p := range w.People {
		out = append(out, fakeslack.User{ID: p.ID, Name: p.Name, RealName: p.RealName})
	}
	return out
}

// SlackGroups are the groups' members as fakeslack.Options.Groups takes them.
func (w Workspace) SlackGroups() map[string][]string {
	out := make(map[string][]string, len(w.Groups))
	for _, g := range w.Groups {
		out[g.ID] = append([]string{}, g.Members...)
	}
	return out
}

// apply makes the fake Slack know the workspace's people and groups.
func (w Workspace) apply(s *fakeslack.Server) {
	for _, u := range w.Users() {
		s.SetUser(u)
	}
	for id, members := range w.SlackGroups() {
		s.SetGroup(id, members)
	}
}
