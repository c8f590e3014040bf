package workflow

import (
	"regexp"
	"testing"
)

// shapeCorpus is every string of up to 3 characters over an alphabet that
// reaches each edge of the checks, plus longer ones around the length
// bounds.
func shapeCorpus() []string {
	alphabet := []string{"", "U", "W", "S", "C", "G", "D", "A", "Z", "0", "9", "a", ".", "-", "é", " "}
	var out []string
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				out = append(out, a+b+c)
			}
		}
	}
	for n := 0; n <= 24; n++ {
		digits, upper := "", ""
		for range n {
			digits += "7"
			upper += "Q"
		}
		for _, p := range []string{"U", "W", "S", "C", "G", "D", "u"} {
			out = append(out, p+upper, p+digits, p+upper+"a")
		}
		for m := 0; m <= 10; m++ {
			frac := digits[:min(m, len(digits))]
			out = append(out, digits+"."+frac, digits+"."+frac+".1", "1."+digits, digits)
		}
	}
	return out
}

// The plain checks accept exactly what the regular expressions they
// replaced accepted.
func TestSlackShapeChecksMatchTheirPatterns(t *testing.T) {
	t.Parallel()
	checks := []struct {
		name    string
		pattern *regexp.Regexp
		check   func(string) bool
	}{
		{"user", regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`), IsUserID},
		{"group", regexp.MustCompile(`^S[A-Z0-9]{2,20}$`), IsGroupID},
		{"channel", regexp.MustCompile(`^[CGD][A-Z0-9]{2,20}$`), isChannelID},
		{"ts", regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{1,8}$`), isTS},
	}
	corpus := shapeCorpus()
	for _, c := range checks {
		accepted := 0
		for _, s := range corpus {
			want := c.pattern.MatchString(s)
			if got := c.check(s); got != want {
				t.Errorf("%s(%q) = %v, want %v", c.name, s, got, want)
			}
			if want {
				accepted++
			}
		}
		if accepted < 10 {
			t.Errorf("%s: only %d strings of the corpus are accepted; the corpus does not reach it", c.name, accepted)
		}
	}
}

func TestPercentOffsets(t *testing.T) {
	t.Parallel()
	pattern := regexp.MustCompile(`^([0-9]{1,2})(?:\.([0-9]{1,2}))?$`)
	for _, s := range []string{"50", "5", "99", "99.99", "0.01", "1.5", "1.50", "12.3", "100", "0", "00", "0.0", "1.", ".5", "1.234",
		"a", "", "5.x", "-5", "+5", "1..2", "٣", "50.5.5"} {
		o, err := parseOffset(s + "%")
		if ok := pattern.MatchString(s) && s != "0" && s != "00" && s != "0.0"; ok != (err == nil) {
			t.Errorf("parseOffset(%q%%) = %v, %v; want accepted %v", s, o, err, ok)
		}
	}
	for s, bp := range map[string]int64{"50%": 5000, "1.5%": 150, "1.05%": 105, "99.99%": 9999, "0.01%": 1} {
		if o, err := parseOffset(s); err != nil || o.basisPoints != bp {
			t.Errorf("parseOffset(%q) = %v, %v; want %d basis points", s, o, err, bp)
		}
	}
}
