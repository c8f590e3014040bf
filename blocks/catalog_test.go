package blocks

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/workflow"
)

// catalogKeys are the keys the code can ask for: every Key constant of
// catalog.go, the Why texts and the one Why text chosen by its argument.
func catalogKeys(t *testing.T) []Key {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "catalog.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []Key
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || spec.Type == nil || fmt.Sprint(spec.Type) != "Key" {
			return true
		}
		for _, v := range spec.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok {
				t.Fatalf("key %v is not a string literal", spec.Names)
			}
			s, _ := strconv.Unquote(lit.Value)
			keys = append(keys, Key(s))
		}
		return true
	})
	for _, why := range workflow.Whys {
		key, ok := whyKeys[why]
		if !ok {
			t.Errorf("refusal %q has no text in the catalog (whyKeys)", why)
		}
		keys = append(keys, key)
	}
	return append(keys, "why.voted_elsewhere_none")
}

// Every language has a text for every key, and none for a key nobody
// asks for.
func TestCatalogsAreComplete(t *testing.T) {
	keys := catalogKeys(t)
	if len(keys) < 100 {
		t.Fatalf("found only %d keys in catalog.go: the test reads it wrong", len(keys))
	}
	for _, locale := range workflow.Locales {
		texts, ok := catalogs[locale]
		if !ok {
			t.Errorf("locale %q has no catalog", locale)
			continue
		}
		for _, k := range keys {
			if strings.TrimSpace(texts[k]) == "" {
				t.Errorf("%s catalog lacks %q", locale, k)
			}
		}
		for k := range texts {
			if !slices.Contains(keys, k) {
				t.Errorf("%s catalog has %q, which no code asks for", locale, k)
			}
		}
	}
	if len(catalogs) != len(workflow.Locales) {
		t.Errorf("catalogs for %d languages, workflow.Locales lists %d", len(catalogs), len(workflow.Locales))
	}
}

var formatVerb = regexp.MustCompile(`%(\[(\d+)\])?[-+# 0]*\d*(\.\d+)?([a-zA-Z%])`)

// verbs lists a format's arguments as "index:verb", in index order.
func verbs(format string) []string {
	var out []string
	next := 1
	for _, m := range formatVerb.FindAllStringSubmatch(format, -1) {
		if m[4] == "%" {
			continue
		}
		i := next
		if m[2] != "" {
			i, _ = strconv.Atoi(m[2])
		}
		next = i + 1
		out = append(out, fmt.Sprintf("%d:%s", i, m[4]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A translation takes the same arguments as the English text, in any
// order, so no caller can fill it wrongly.
func TestTranslationsTakeTheSameArguments(t *testing.T) {
	for _, locale := range workflow.Locales {
		for k, en := range english {
			if got, want := verbs(catalogs[locale][k]), verbs(en); !slices.Equal(got, want) {
				t.Errorf("%s %q takes %v, English takes %v", locale, k, got, want)
			}
		}
	}
}

// Japanese reads as Japanese: every text that is prose in English is
// written in Japanese, not left in English.
func TestJapaneseIsTranslated(t *testing.T) {
	kana := regexp.MustCompile(`[\p{Hiragana}\p{Katakana}\p{Han}]`)
	for k, en := range english {
		ja := japanese[k]
		if regexp.MustCompile(`[a-z]{3,} [a-z]{3,}`).MatchString(en) && !kana.MatchString(ja) {
			t.Errorf("%q is not translated: %q", k, ja)
		}
	}
	if got := T(workflow.LocaleJapanese, KBtnApprove); got != "承認" {
		t.Errorf("Approve in Japanese = %q", got)
	}
}

// prose matches text a person reads: two words of letters, or Japanese.
var prose = regexp.MustCompile(`[A-Za-z]{2,}[,.;:!?'’]? +[A-Za-z]{2,}|[\p{Hiragana}\p{Katakana}\p{Han}]`)

// TestNoTextOutsideTheCatalog reads the code that writes what people see
// (blocks, and the bot in slackbot) and fails on any string literal of
// prose outside the catalog, except where it is not for people: log
// lines, errors, metric help and tests.
func TestNoTextOutsideTheCatalog(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../slackbot"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.Type()&fs.ModeType != 0 || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "catalog") {
				continue
			}
			files = append(files, filepath.Join(dir, name))
		}
	}
	if len(files) < 20 {
		t.Fatalf("read only %d files", len(files))
	}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		allowed := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if notForPeople(n.Fun) {
					markLiterals(n, allowed)
					return false
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && (id.Name == "Help" || id.Name == "Name") {
					markLiterals(n, allowed)
				}
			case *ast.Field:
				if n.Tag != nil {
					allowed[n.Tag] = true
				}
			case *ast.ImportSpec:
				allowed[n.Path] = true
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || allowed[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && prose.MatchString(s) {
				t.Errorf("%s: text for people outside the catalog: %s", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}

// notForPeople reports whether a call's text goes to logs, errors or
// metrics rather than to people.
func notForPeople(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if pkg, ok := sel.X.(*ast.Ident); ok {
		switch pkg.Name {
		case "zap", "errors", "metrics":
			return true
		case "fmt":
			return sel.Sel.Name == "Errorf"
		}
	}
	switch sel.Sel.Name {
	case "Debug", "Info", "Warn", "Error", "Fatal", "Panic", "With", "Named", "Errorf", "NewAPIError", "ignore":
		return true
	}
	return false
}

func markLiterals(n ast.Node, allowed map[*ast.BasicLit]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok {
			allowed[lit] = true
		}
		return true
	})
}

// The check above finds text built outside the catalog.
func TestTheCatalogCheckFindsProse(t *testing.T) {
	for _, s := range []string{"Approved by you", "承認", "Could not list"} {
		if !prose.MatchString(s) {
			t.Errorf("prose %q not recognised", s)
		}
	}
	for _, s := range []string{"approve_draft_", "*", " · ", "\n", "<!subteam^", "chat.postMessage", "draft=", "%[1]s: %[2]s"} {
		if prose.MatchString(s) {
			t.Errorf("%q taken for prose", s)
		}
	}
}

// Dates fall back to the catalog's format; Slack renders the token in the
// reader's own locale and time zone.
func TestDateFallbackInEachLanguage(t *testing.T) {
	at := workflowSampleTime()
	tests := map[string]string{
		"":                      "<!date^1795944600^{date_short_pretty} {time}|2026-11-29 09:30 UTC>",
		workflow.LocaleEnglish:  "<!date^1795944600^{date_short_pretty} {time}|2026-11-29 09:30 UTC>",
		workflow.LocaleJapanese: "<!date^1795944600^{date_short_pretty} {time}|2026年11月29日 09:30 UTC>",
		"fr":                    "<!date^1795944600^{date_short_pretty} {time}|2026-11-29 09:30 UTC>",
	}
	for locale, want := range tests {
		if got := Date(locale, at); got != want {
			t.Errorf("Date(%q) = %q, want %q", locale, got, want)
		}
	}
}

func workflowSampleTime() time.Time { return stopped }
