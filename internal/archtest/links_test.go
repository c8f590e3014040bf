package archtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestMarkdownLinksResolve checks every relative link in the repository's
// Markdown files: the file or folder it names exists, and a #fragment names
// a heading of the Markdown file it points at (GitHub's anchors).
func TestMarkdownLinksResolve(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	files := markdownFiles(t, root)
	if len(files) < 5 {
		t.Fatalf("found %d Markdown files under %s; is the root right?", len(files), root)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := headingAnchors(t, path)
		anchors[path] = a
		return a
	}
	checked := 0
	for _, file := range files {
		for _, l := range markdownLinks(t, file) {
			target, fragment, _ := strings.Cut(l.target, "#")
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link to %q: %s does not exist", rel(root, file), l.line, l.target, rel(root, path))
					continue
				}
			}
			checked++
			if fragment == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !anchorsOf(path)[fragment] {
				t.Errorf("%s:%d: link to %q: %s has no heading with the anchor #%s", rel(root, file), l.line, l.target, rel(root, path), fragment)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link was checked")
	}
}

// TestHeadingAnchor pins the GitHub anchor rules the link check relies on.
func TestHeadingAnchor(t *testing.T) {
	t.Parallel()
	tests := []struct{ heading, want string }{
		{"Run it on your machine: `make run`", "run-it-on-your-machine-make-run"},
		{"The contract (v1)", "the-contract-v1"},
		{"Notifier input (the Task's Payload)", "notifier-input-the-tasks-payload"},
		{"Lambda metrics (CloudWatch Embedded Metric Format)", "lambda-metrics-cloudwatch-embedded-metric-format"},
		{"IAM, by role", "iam-by-role"},
		{"Wait & see", "wait--see"},
	}
	for _, tt := range tests {
		if got := anchor(tt.heading); got != tt.want {
			t.Errorf("anchor(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

type link struct {
	target string
	line   int
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
)

// markdownLinks returns the relative links of a Markdown file, outside code
// blocks and code spans.
func markdownLinks(t *testing.T, path string) []link {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var links []link
	fenced := false
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links = append(links, link{target: target, line: n})
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file (a repeated heading gets -1, -2, …).
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		a := anchor(strings.TrimLeft(line, "#"))
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// anchor is GitHub's heading anchor: lower case, punctuation dropped
// (hyphens and underscores kept), spaces as hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.md").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Fields(string(out)) {
		if strings.Contains(f, "node_modules/") || strings.Contains(f, "/testdata/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			files = append(files, filepath.Join(root, f))
		}
	}
	return files
}

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return r
}

var testName = regexp.MustCompile("`(Test[A-Z][A-Za-z0-9_]*)`")

// TestDocsNameTestsThatExist keeps the documentation's claims checkable:
// every `TestXxx` a Markdown page names is a test function in the module.
func TestDocsNameTestsThatExist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "grep", "--untracked", "-h", "-o", "-E", `^func (Test[A-Za-z0-9_]+)\(`, "--", "*_test.go").Output()
	if err != nil {
		t.Fatalf("git grep: %v", err)
	}
	exists := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		exists[strings.TrimSuffix(strings.TrimPrefix(line, "func "), "(")] = true
	}
	named := 0
	for _, file := range markdownFiles(t, root) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testName.FindAllStringSubmatch(string(text), -1) {
			named++
			if !exists[m[1]] {
				t.Errorf("%s names %s, which is no test function in the module", rel(root, file), m[1])
			}
		}
	}
	if named == 0 {
		t.Fatal("no Markdown page names a test")
	}
}
