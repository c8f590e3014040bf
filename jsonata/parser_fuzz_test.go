package jsonata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzEvaluate parses and evaluates arbitrary expressions: whatever the
// text, the result is a value or an error, never a panic.
func FuzzEvaluate(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "core*.cases.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var cases []struct {
			Expr string `json:"expr"`
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			f.Add(c.Expr)
		}
	}
	input := decodeJSON([]byte(`{"a":[{"b":1,"c":"x"},{"b":[2,3],"c":"y"}],"d":{"e":null,"f":true},"n":[3,1,2]}`))
	f.Fuzz(func(t *testing.T, src string) {
		expr, err := Parse(src)
		if err == nil && (strings.Contains(src, "function") || strings.Contains(src, "λ")) {
			// A mutated lambda can loop forever by tail recursion, as it
			// would in jsonata-js; only parsing is checked.
			return
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse(%q): error %T is not *Error", src, err)
			}
			return
		}
		// Small limits: the seeds include the largest range jsonata-js
		// allows, which takes over a gigabyte to build under -race.
		opts := &Options{MaxDepth: 500, MaxItems: 1 << 16, MaxStringBytes: 1 << 20, Now: time.UnixMilli(0), Random: func() float64 { return 0.5 }}
		_, err = expr.Evaluate(input, map[string]any{"v": float64(1)}, opts)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Evaluate(%q): error %T is not *Error: %v", src, err, err)
			}
		}
	})
}
