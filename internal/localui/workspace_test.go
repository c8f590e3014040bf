package localui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sfnapprovals/approvals/internal/localui"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

func TestDefaultWorkspace(t *testing.T) {
	t.Parallel()
	w := localui.DefaultWorkspace()
	for _, id := range []string{"U0ALICE", "U0CAROL", definitions.Requester, "U0MALLORY"} {
		if _, ok := w.Person(id); !ok {
			t.Errorf("the default workspace has no %s", id)
		}
	}
	if g, ok := w.Group("S0EDITORS"); !ok || !cmp.Equal(g.Members, []string{"U0CAROL"}) {
		t.Errorf("editors = %+v, %v", g, ok)
	}
	if diff := cmp.Diff(map[string][]string{"S0EDITORS": {"U0CAROL"}}, w.SlackGroups()); diff != "" {
		t.Errorf("SlackGroups (-want +got):\n%s", diff)
	}
	if c, ok := w.Channel("C0PUBLISH"); !ok || c.Name != "publishing" {
		t.Errorf("channel = %+v, %v", c, ok)
	}
}

func TestParseWorkspace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, err string
	}{
		{"minimal", `{"people":[{"id":"U1A","name":"a"}]}`, ""},
		{"not JSON", `{`, "decode the workspace"},
		{"misspelt field", `{"people":[{"id":"U1A","name":"a","realNmae":"A"}]}`, `unknown field "realNmae"`},
		{"nobody", `{"channels":[{"id":"C1A","name":"x"}]}`, "at least one person"},
		{"person ID", `{"people":[{"id":"bob","name":"bob"}]}`, `people[0]: id "bob" is not a Slack user ID`},
		{"person name with a space", `{"people":[{"id":"U1A","name":"Bob B"}]}`, `people[0]: name "Bob B" must be`},
		{"person twice", `{"people":[{"id":"U1A","name":"a"},{"id":"U1A","name":"b"}]}`, "people[1]: id U1A is already used by people[0]"},
		{"channel ID", `{"channels":[{"id":"#general","name":"general"}],"people":[{"id":"U1A","name":"a"}]}`, `channels[0]: id "#general" is not a Slack channel ID`},
		{"group ID", `{"people":[{"id":"U1A","name":"a"}],"groups":[{"id":"G1","handle":"g"}]}`, `groups[0]: id "G1" is not a Slack user group ID`},
		{"group handle", `{"people":[{"id":"U1A","name":"a"}],"groups":[{"id":"S1A","handle":"@g"}]}`, `groups[0]: handle "@g" must be`},
		{"stranger in a group", `{"people":[{"id":"U1A","name":"a"}],"groups":[{"id":"S1A","handle":"g","members":["U2B"]}]}`, `groups[0]: member "U2B" is not one of the people`},
		{"group with a person's ID", `{"people":[{"id":"U1A","name":"a"}],"groups":[{"id":"S1A","handle":"g"},{"id":"S1A","handle":"h"}]}`, "groups[1]: id S1A is already used by groups[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := localui.ParseWorkspace([]byte(tt.file))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p, _ := w.Person("U1A"); p.RealName != "a" {
					t.Errorf("RealName defaults to the name; got %q", p.RealName)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error = %v, want one with %q", err, tt.err)
			}
		})
	}
}

func TestLoadWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"people":[{"id":"U1A","name":"ann","realName":"Ann Example"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := localui.LoadWorkspace(good)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := w.Person("U1A"); !ok || p.RealName != "Ann Example" {
		t.Errorf("person = %+v", p)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"people":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := localui.LoadWorkspace(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": invalid workspace") {
		t.Errorf("error = %v, want it to name the file", err)
	}
	if _, err := localui.LoadWorkspace(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "read the workspace file") {
		t.Errorf("error = %v", err)
	}
}
