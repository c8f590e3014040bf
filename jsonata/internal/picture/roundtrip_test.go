package picture

import "testing"

// TestIntegerPicturesRoundTrip formats and parses back every integer
// picture kind over a range of values.
func TestIntegerPicturesRoundTrip(t *testing.T) {
	t.Parallel()
	pictures := []string{"0", "#,##0", "000", "a", "A", "i", "I", "w", "W", "Ww", "w;o", "0;o", "٠", "0,000"}
	for _, picture := range pictures {
		for v := 1.0; v <= 5000; v += 7 {
			s, err := FormatInteger(v, picture)
			if err != nil {
				t.Fatalf("FormatInteger(%v, %q): %v", v, picture, err)
			}
			got, err := ParseInteger(s, picture)
			if err != nil || got != v {
				t.Fatalf("ParseInteger(%q, %q) = %v, %v; want %v", s, picture, got, err, v)
			}
		}
	}
}

// TestDatePicturesRoundTrip formats instants and parses them back, in a
// timezone other than UTC because jsonata-js cannot read back the "Z"
// that [Z01:01t] writes for UTC.
func TestDatePicturesRoundTrip(t *testing.T) {
	t.Parallel()
	pictures := []string{
		ISO8601,
		"[Y0001]-[M01]-[D01] [H01]:[m01]:[s01].[f001] [Z0101]",
		"[D1o] [MNn] [Y] [h]:[m01]:[s01].[f001] [PN] [Z]",
		"[Y,4]/[Mi]/[D01] [H]:[m]:[s].[f] [z]",
	}
	const now = 1767225600123
	zone := ParseOffset("+0100")
	for _, picture := range pictures {
		for ms := 946684800000.0; ms < 4102444800000; ms += 86400000*37 + 3600000*5 + 61001 {
			s, err := FormatDateTime(ms, picture, zone)
			if err != nil {
				t.Fatalf("format %v with %q: %v", ms, picture, err)
			}
			got, ok, err := ParseDateTime(s, picture, now)
			if err != nil || !ok || got != ms {
				t.Fatalf("parse %q with %q = %v, %v, %v; want %v", s, picture, got, ok, err, ms)
			}
		}
	}
}

// TestISOTimestampsRoundTrip: $toMillis reads back what $fromMillis
// writes, for years 0 to 9999.
func TestISOTimestampsRoundTrip(t *testing.T) {
	t.Parallel()
	for ms := -62167219200000.0; ms < 253402300800000; ms += 86400000*997 + 3723456 {
		s, err := FormatDateTime(ms, ISO8601, Offset{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseISO(s)
		if err != nil || got != ms {
			t.Fatalf("ParseISO(%q) = %v, %v; want %v", s, got, err, ms)
		}
	}
}
