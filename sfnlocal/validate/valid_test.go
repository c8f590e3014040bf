package validate

import (
	"os"
	"path/filepath"
	"testing"
)

// TestValidDefinitions checks that definitions using every state type and
// most optional fields, in both query languages, pass with no diagnostics.
func TestValidDefinitions(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "valid", "*.asl.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden definitions: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			def, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := Definition(def); len(got) != 0 {
				t.Errorf("Definition() = %+v, want no diagnostics", got)
			}
			if err := Check(def); err != nil {
				t.Errorf("Check() = %v, want nil", err)
			}
		})
	}
}
