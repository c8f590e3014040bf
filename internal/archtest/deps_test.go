package archtest

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
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
