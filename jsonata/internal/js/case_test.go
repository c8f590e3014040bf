package js

import "testing"

func TestCaseMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
	}{
		{"upper", ToUpperCase("straße ǰ ﬁ"), "STRASSE J̌ FI"},
		{"upper keeps the rest", ToUpperCase("é1-ß"), "É1-SS"},
		{"lower dotted I", ToLowerCase("İ"), "i\u0307"},
		{"lower final sigma", ToLowerCase("ΟΔΟΣ ΟΔΟΣ."), "οδος οδος."},
		{"lower lone sigma", ToLowerCase("Σ"), "σ"},
		{"lower sigma inside a word", ToLowerCase("ΣΑΣΑ"), "σασα"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
