package jsonata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// The oracle's fixed clock and random sequence (tools/jsonata-oracle).
var oracleNow = time.UnixMilli(1767225600123).UTC()

func oracleRandom() func() float64 {
	k := 0
	return func() float64 {
		k = k%10 + 1
		return float64(k)/10 - 0.05
	}
}

// oracleEval is the $eval the oracle installs in place of jsonata-js's:
// a function that fails as a call of a non-function does.
var oracleEval = &Builtin{Name: "eval", Impl: func(*Call, []any) (any, error) {
	return nil, &Error{Code: "T1006", Message: "Attempted to invoke a non-function"}
}}

// oracleLibrary is the standard library with the oracle's $eval.
var oracleLibrary = NewLibrary([]*Builtin{oracleEval})

// goldenCase is one case of a testdata/*.golden.json file: the expression
// and what jsonata-js 2.0.6 answered.
type goldenCase struct {
	Expr      string                     `json:"expr"`
	Input     json.RawMessage            `json:"input"`
	Bindings  map[string]json.RawMessage `json:"bindings"`
	Note      string                     `json:"note"`
	Result    json.RawMessage            `json:"result"`
	Undefined bool                       `json:"undefined"`
	Function  bool                       `json:"function"`
	Error     *goldenError               `json:"error"`
}

type goldenError struct {
	Code     string `json:"code"`
	Message  string `json:"message"`
	Position *int   `json:"position"`
}

// TestConformance evaluates every golden case and demands jsonata-js's
// answer: the same result (object members in the same order), the same
// undefined-ness, the same error code, message and position (where
// jsonata-js reports one). A case listed in testdata/known_differences.txt must
// differ, so that the list cannot go stale.
func TestConformance(t *testing.T) {
	t.Parallel()
	known := readKnownDifferences(t)
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.golden.json files")
	}
	seen := map[string]bool{}
	for _, file := range files {
		suite := strings.TrimSuffix(filepath.Base(file), ".golden.json")
		cases := readGolden(t, file)
		for i := range cases {
			seen[suite+"/"+strconv.Itoa(i)] = true
		}
		t.Run(suite, func(t *testing.T) {
			t.Parallel()
			for i, c := range cases {
				name := suite + "/" + strconv.Itoa(i)
				if _, heavy := heavyCases[name]; heavy {
					continue // TestConformanceHeavy
				}
				t.Run(strconv.Itoa(i), func(t *testing.T) {
					t.Parallel()
					checkGolden(t, name, c, known)
				})
			}
		})
	}
	t.Cleanup(func() {
		for name := range known {
			if !seen[name] {
				t.Errorf("known_differences.txt lists %s, which is not a golden case", name)
			}
		}
	})
}

// heavyCases are golden cases that hold hundreds of megabytes, with why.
// TestConformanceHeavy runs them one at a time.
var heavyCases = map[string]string{
	"core-operators/118": "[1..10000000], the largest range jsonata-js allows: 400 MB, 1.4 GB under -race",
}

// TestConformanceHeavy runs the heavy golden cases alone (no t.Parallel),
// so their memory adds to no other test's. Under the race detector, which
// would take them past 1 GB, they are skipped: `make test` runs this test
// once more without it.
func TestConformanceHeavy(t *testing.T) {
	if raceDetector {
		t.Skip("over 1 GB under -race; make test runs this test without -race")
	}
	known := readKnownDifferences(t)
	for name := range heavyCases {
		suite, index, _ := strings.Cut(name, "/")
		cases := readGolden(t, filepath.Join("testdata", suite+".golden.json"))
		i, err := strconv.Atoi(index)
		if err != nil || i >= len(cases) {
			t.Fatalf("heavy case %s is not a golden case", name)
		}
		t.Run(name, func(t *testing.T) { checkGolden(t, name, cases[i], known) })
	}
}

// checkGolden fails t unless c's answer is jsonata-js's, or differs from
// it as known_differences.txt says.
func checkGolden(t *testing.T, name string, c goldenCase, known map[string]string) {
	t.Helper()
	reason, isKnown := known[name]
	problem := checkCase(c)
	switch {
	case isKnown && problem == "":
		t.Errorf("%s is listed in known_differences.txt (%s) but now matches jsonata-js; remove it", name, reason)
	case !isKnown && problem != "":
		t.Errorf("expr %q (input %s): %s", c.Expr, c.Input, problem)
	}
}

// checkCase evaluates c and describes how the answer differs from
// jsonata-js's, or returns "".
func checkCase(c goldenCase) string {
	// jsonata-js sees its input through JSON.parse, which puts
	// integer-like keys first; give the evaluator the same objects.
	input := Undefined
	if len(c.Input) > 0 {
		input = jsObjectOrder(decodeJSON(c.Input))
	}
	var bindings map[string]any
	if len(c.Bindings) > 0 {
		bindings = map[string]any{}
		for k, v := range c.Bindings {
			bindings[k] = jsObjectOrder(decodeJSON(v))
		}
	}
	var got any
	expr, err := Parse(c.Expr)
	if err == nil {
		opts := &Options{Library: oracleLibrary, Now: oracleNow, Random: oracleRandom()}
		got, err = expr.Evaluate(input, bindings, opts)
	}
	switch {
	case c.Error != nil && c.Error.Code == "NONFINITE":
		if f, ok := got.(float64); err != nil || !ok || !(math.IsInf(f, 0) || math.IsNaN(f)) {
			return fmt.Sprintf("want a non-finite number (%s), got %s", c.Error.Message, describe(got, err))
		}
	case c.Error != nil:
		e, ok := err.(*Error)
		if !ok {
			return fmt.Sprintf("want error %s %q, got %s", c.Error.Code, c.Error.Message, describe(got, err))
		}
		if e.Code != goldenCode(c.Error.Code) || e.Message != c.Error.Message {
			return fmt.Sprintf("want error %s %q, got %s %q", c.Error.Code, c.Error.Message, e.Code, e.Message)
		}
		if c.Error.Position != nil && *c.Error.Position != e.Position {
			return fmt.Sprintf("error %s: want position %d, got %d", e.Code, *c.Error.Position, e.Position)
		}
	case err != nil:
		return "unexpected error: " + err.Error()
	case c.Undefined:
		if !IsUndefined(got) {
			return "want undefined, got " + describe(got, nil)
		}
	case c.Function:
		if !containsFunction(got) {
			return "want a function, got " + describe(got, nil)
		}
	default:
		want := decodeJSON(c.Result)
		if !sameJSON(want, got) {
			return fmt.Sprintf("want %s, got %s", c.Result, describe(got, nil))
		}
	}
	return ""
}

// goldenCode is the Error.Code that imitates a golden error code: the
// oracle records JavaScript's own errors, which have no code, as NOCODE,
// and the evaluator imitates them with the empty code.
func goldenCode(code string) string {
	if code == "NOCODE" {
		return ""
	}
	return code
}

func describe(v any, err error) string {
	if err != nil {
		return "error " + err.Error()
	}
	if IsUndefined(v) {
		return "undefined"
	}
	if isFunction(v) {
		return "a function"
	}
	b, jerr := json.Marshal(v)
	if jerr != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func containsFunction(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, m := range x {
			if containsFunction(m) {
				return true
			}
		}
	case *jsonvalue.Object:
		found := false
		x.Range(func(_ string, m any) bool { found = containsFunction(m); return !found })
		return found
	}
	return isFunction(v)
}

// sameJSON compares values as JSON: object members in order, numbers as
// float64, and a NaN or infinite member as the null JSON.stringify makes
// of it in the oracle (jsonata-js itself returns the number).
func sameJSON(want, got any) bool {
	switch w := want.(type) {
	case *jsonvalue.Object:
		g, ok := got.(*jsonvalue.Object)
		if !ok || w.Len() != g.Len() {
			return false
		}
		gk := g.Keys()
		for i, k := range w.Keys() {
			if gk[i] != k {
				return false
			}
			wv, _ := w.Get(k)
			gv, _ := g.Get(k)
			if !sameMember(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(w) != len(g) {
			return false
		}
		for i := range w {
			if !sameMember(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return want == got
}

func sameMember(want, got any) bool {
	if f, ok := got.(float64); ok && want == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return true
	}
	return sameJSON(want, got)
}

// decodeJSON decodes JSON text into evaluator values: ordered objects,
// float64 numbers.
func decodeJSON(raw json.RawMessage) any {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		panic(fmt.Sprintf("bad JSON in golden file: %v: %s", err, raw))
	}
	return numbersToFloat(v)
}

// jsObjectOrder orders the keys of every object in v as JavaScript does.
func jsObjectOrder(v any) any {
	switch x := v.(type) {
	case []any:
		for i, m := range x {
			x[i] = jsObjectOrder(m)
		}
	case *jsonvalue.Object:
		for _, k := range x.Keys() {
			m, _ := x.Get(k)
			x.Set(k, jsObjectOrder(m))
		}
		jsReorder(x)
	}
	return v
}

func numbersToFloat(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			panic(err)
		}
		return f
	case []any:
		for i, m := range x {
			x[i] = numbersToFloat(m)
		}
	case *jsonvalue.Object:
		for _, k := range x.Keys() {
			m, _ := x.Get(k)
			x.Set(k, numbersToFloat(m))
		}
	}
	return v
}

func readGolden(t *testing.T, file string) []goldenCase {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cases
}

// readKnownDifferences reads testdata/known_differences.txt: lines
// "suite/index reason", # comments and blank lines ignored.
func readKnownDifferences(t *testing.T) map[string]string {
	t.Helper()
	known := map[string]string{}
	f, err := os.Open(filepath.Join("testdata", "known_differences.txt"))
	if os.IsNotExist(err) {
		return known
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		known[name] = strings.TrimSpace(reason)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return known
}
