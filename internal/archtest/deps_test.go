package archtest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sfnapprovals/approvals"

type pkg struct {
	ImportPath   string
	Standard     bool
	Deps         []string // transitive, without tests
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// packages lists every package of the module with its dependencies.
func packages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; is the module path right?", len(pkgs))
	}
	return pkgs
}

func under(path, dir string) bool {
	full := module + "/" + dir
	return path == full || strings.HasPrefix(path, full+"/")
}

func isStd(path string) bool { return !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") }

func TestDependencyRules(t *testing.T) {
	t.Parallel()
	adapters := []string{"workflow/dynamo", "workflow/stepfunctions", "slackbot"}
	for _, p := range packages(t) {
		tests := append(append([]string{}, p.TestImports...), p.XTestImports...)
		switch {
		case p.ImportPath == module+"/workflow":
			for _, d := range p.Deps {
				if !isStd(d) {
					t.Errorf("workflow (the domain) depends on %s; it may use the standard library only", d)
				}
			}
		case under(p.ImportPath, "slackbot"):
			for _, d := range append(p.Deps, tests...) {
				if strings.HasPrefix(d, "github.com/aws/") {
					t.Errorf("%s depends on %s; slackbot never imports AWS packages (tests included)", p.ImportPath, d)
				}
			}
		case p.ImportPath == module+"/blocks":
			for _, d := range p.Imports {
				if !isStd(d) && d != "github.com/slack-go/slack" && d != module+"/workflow" {
					t.Errorf("blocks imports %s; it builds Block Kit from slack-go's types and the domain only", d)
				}
			}
		case under(p.ImportPath, "jsonata"):
			for _, d := range p.Deps {
				if !isStd(d) && !under(d, "jsonata") {
					t.Errorf("%s depends on %s; jsonata stands alone (standard library only)", p.ImportPath, d)
				}
			}
		case under(p.ImportPath, "sfnlocal"):
			for _, d := range p.Deps {
				for _, approvals := range []string{"workflow", "slackbot", "lambdas"} {
					if under(d, approvals) {
						t.Errorf("%s depends on %s; the engine stands beside the approvals, not on them", p.ImportPath, d)
					}
				}
			}
		case under(p.ImportPath, "lambdas"):
			for _, d := range p.Deps {
				for _, a := range adapters {
					if under(d, a) {
						t.Errorf("%s depends on the adapter %s; only cmd/ wires adapters", p.ImportPath, d)
					}
				}
			}
		}
		for _, a := range adapters {
			if !under(p.ImportPath, a) {
				continue
			}
			for _, d := range p.Imports {
				for _, other := range adapters {
					if other != a && under(d, other) {
						t.Errorf("adapter %s imports adapter %s; adapters do not import each other", p.ImportPath, d)
					}
				}
			}
		}
		for _, d := range append(p.Imports, tests...) {
			if under(d, "cmd") {
				t.Errorf("%s imports %s; nothing imports cmd/", p.ImportPath, d)
			}
		}
	}
}

// TestWorkflowIsTheApprovalsDomain keeps the engine out of workflow/: what
// lies under it is the domain, its adapters and the shipped definitions.
func TestWorkflowIsTheApprovalsDomain(t *testing.T) {
	t.Parallel()
	var got []string
	for _, p := range packages(t) {
		if under(p.ImportPath, "workflow") {
			got = append(got, strings.TrimPrefix(p.ImportPath, module+"/"))
		}
		if under(p.ImportPath, "workflow") && !under(p.ImportPath, "workflow/definitions") {
			for _, d := range p.Deps {
				if under(d, "sfnlocal") || under(d, "jsonata") {
					t.Errorf("%s depends on the local engine (%s)", p.ImportPath, d)
				}
			}
		}
	}
	want := []string{"workflow", "workflow/definitions", "workflow/dynamo", "workflow/stepfunctions",
		"workflow/stepfunctions/stepfunctionstest", "workflow/workflowtest"}
	if !slices.Equal(got, want) {
		t.Errorf("go list ./workflow/... = %q, want %q", got, want)
	}
}

// slackSocketOnly names what only a Socket Mode bot needs: a Lambda that
// links it carries the bot's connection code for nothing.
var slackSocketOnly = []string{"github.com/slack-go/slack/socketmode", "github.com/gorilla/websocket", "github.com/prometheus/", module + "/internal/metrics"}

// TestLambdasLinkNoSocketCode keeps the Lambdas small: they post with
// slack-go's Web API client and never depend on Socket Mode or metrics code.
// slack-go's own package imports gorilla/websocket for its legacy RTM
// client, with no build tag to leave it out, so that one path to it is
// allowed here and TestNotifierBinaryHasNoSocketCode checks what of it is
// actually linked.
func TestLambdasLinkNoSocketCode(t *testing.T) {
	t.Parallel()
	byPath := map[string]pkg{}
	for _, p := range packages(t) {
		byPath[p.ImportPath] = p
	}
	for _, main := range []string{"cmd/notifier", "cmd/approvals-events", "cmd/approvals-archive"} {
		p, ok := byPath[module+"/"+main]
		if !ok {
			t.Fatalf("%s is not in go list's answer", main)
		}
		for _, d := range p.Deps {
			for _, bad := range slackSocketOnly {
				if d == bad || strings.HasPrefix(d, bad) {
					if bad == "github.com/gorilla/websocket" && onlyThroughSlack(t, main, d) {
						continue
					}
					t.Errorf("%s depends on %s, which only the Socket Mode bot needs", main, d)
				}
			}
		}
	}
}

// onlyThroughSlack reports whether every package of the binary that imports
// dep is slack-go's core package.
func onlyThroughSlack(t *testing.T, main, dep string) bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/"+main).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", main, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 && slices.Contains(fields[1:], dep) && fields[0] != "github.com/slack-go/slack" {
			t.Logf("%s imports %s", fields[0], dep)
			return false
		}
	}
	return true
}

// TestNotifierBinaryHasNoSocketCode builds the notifier as it is deployed
// and reads its symbols: no Socket Mode, metrics or WebSocket connection
// code is linked (of gorilla/websocket only the package initialisation
// slack-go's import brings along remains).
func TestNotifierBinaryHasNoSocketCode(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "bootstrap")
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", bin, module+"/cmd/notifier")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	symbols := strings.Split(string(out), "\n")
	if len(symbols) < 1000 {
		t.Fatalf("go tool nm listed %d symbols; is the binary right?", len(symbols))
	}
	for _, s := range symbols {
		for _, bad := range []string{"slack-go/slack/socketmode.", "github.com/prometheus/", "approvals/internal/metrics.", "github.com/gorilla/websocket.(*Conn)", "github.com/gorilla/websocket.(*Dialer)"} {
			if strings.Contains(s, bad) {
				t.Errorf("the notifier links %s", strings.TrimSpace(s))
			}
		}
	}
}
