package picture

import (
	"math"
	"regexp"
	"strings"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// Date/time pictures (XPath fn:format-dateTime) as jsonata-js reads them:
// literal text with variable markers such as [Y0001], [MNn,3-3] or
// [D1o]; "[[" and "]]" stand for brackets.

// dtPart is a literal or an analysed variable marker.
type dtPart struct {
	literal   string
	marker    bool
	component string // the marker's first character ("" for "[]")
	hasWidth  bool
	minWidth  float64 // NaN when not a number; only when hasMin
	maxWidth  float64 // NaN when not a number; only when hasMax
	hasMin    bool
	hasMax    bool
	pres1     string
	pres2     string // "a", "t", "c", "o" or ""
	names     letterCase
	hasNames  bool
	intFmt    *intPicture // integer-valued components and Z/z
	yearWidth float64     // Y, M, D: digits kept (-1 for all; NaN possible)
}

var dtDefaultPresentation = map[string]string{
	"Y": "1", "M": "1", "D": "1", "d": "1", "F": "n", "W": "1", "w": "1", "X": "1", "x": "1", "H": "1", "h": "1",
	"P": "n", "m": "01", "s": "01", "f": "1", "Z": "01:01", "z": "01:01", "C": "n", "E": "n",
}

// markerSpace is the white space dropped from a variable marker.
var markerSpace = regexp.MustCompile(`[` + js.Space + `]+`)

// analyseDatePicture splits a date/time picture into parts: D3135 for an
// unclosed marker, D3132 for an unknown component without modifiers,
// D3131 for a digit pattern mixing digit families.
func analyseDatePicture(picture string) ([]*dtPart, error) {
	var parts []*dtPart
	pic := js.String(picture)
	addLiteral := func(start, end int) {
		if end > start {
			lit := strings.ReplaceAll(string(pic[start:end]), "]]", "]")
			parts = append(parts, &dtPart{literal: lit})
		}
	}
	start, pos := 0, 0
	for pos < len(pic) {
		if pic[pos] == '[' {
			if pos+1 < len(pic) && pic[pos+1] == '[' {
				addLiteral(start, pos)
				parts = append(parts, &dtPart{literal: "["})
				pos += 2
				start = pos
				continue
			}
			addLiteral(start, pos)
			start = pos
			end := pic.IndexOf(js.String("]"), start)
			if end < 0 {
				return nil, &Error{Code: "D3135", Message: "No matching closing bracket ']' in date/time picture string"}
			}
			part, err := analyseMarker(markerSpace.ReplaceAllString(string(pic[start+1:end]), ""))
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
			pos = end
			start = pos + 1
		}
		pos++
	}
	addLiteral(start, pos)
	return parts, nil
}

func analyseMarker(marker string) (*dtPart, error) {
	m := js.String(marker)
	d := &dtPart{marker: true}
	if len(m) > 0 {
		d.component = string(m[0])
	}
	var pres []rune
	if comma := m.LastIndexOf(js.String(",")); comma >= 0 {
		d.hasWidth = true
		width := string(m[comma+1:])
		minW, maxW, dash := strings.Cut(width, "-")
		d.minWidth, d.hasMin = dtParseWidth(minW)
		if dash {
			d.maxWidth, d.hasMax = dtParseWidth(maxW)
		}
		pres = m[1:comma]
	} else if len(m) > 0 {
		pres = m[1:]
	}
	switch {
	case len(pres) == 1:
		d.pres1 = string(pres)
	case len(pres) > 1:
		last := pres[len(pres)-1]
		if strings.ContainsRune("atco", last) {
			d.pres2 = string(last)
			d.pres1 = string(pres[:len(pres)-1])
		} else {
			d.pres1 = string(pres)
		}
	default:
		def, ok := dtDefaultPresentation[d.component]
		if !ok {
			return nil, &Error{Code: "D3132", Value: d.component,
				Message: "Unknown component specifier " + js.Quote(d.component) + " in date/time picture string"}
		}
		d.pres1 = def
	}
	if err := d.analysePresentation(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *dtPart) analysePresentation() error {
	switch {
	case strings.HasPrefix(d.pres1, "n"):
		d.names, d.hasNames = lowerCase, true
	case strings.HasPrefix(d.pres1, "N"):
		d.names, d.hasNames = upperCase, true
		if strings.HasPrefix(d.pres1, "Nn") {
			d.names = titleCase
		}
	case d.component != "" && strings.Contains("YMDdFWwXxHhmsf", d.component):
		pattern := d.pres1
		if d.pres2 != "" {
			pattern += ";" + d.pres2
		}
		f, err := analyseIntPicture(pattern)
		if err != nil {
			return err
		}
		d.intFmt = f
		if d.hasMin && float64(f.mandatory) < d.minWidth {
			f.mandatory = int(d.minWidth)
		}
		if strings.Contains("YMD", d.component) {
			d.yearWidth = -1
			if d.hasMax {
				d.yearWidth = d.maxWidth
				f.mandatory = intOrZero(d.maxWidth)
			} else if w := f.mandatory + f.optional; w >= 2 {
				d.yearWidth = float64(w)
			}
		}
	}
	if d.component == "Z" || d.component == "z" {
		f, err := analyseIntPicture(d.pres1)
		if err != nil {
			return err
		}
		d.intFmt = f
	}
	return nil
}

// intOrZero converts a width that may be NaN; a NaN count of mandatory
// digits pads nothing, as zero does.
func intOrZero(f float64) int {
	if math.IsNaN(f) {
		return 0
	}
	return int(f)
}

// dtParseWidth reads one side of a width modifier: "" after the comma and
// "*" mean no limit only for "*"; anything else goes through parseInt.
func dtParseWidth(w string) (float64, bool) {
	if w == "*" {
		return 0, false
	}
	return js.ParseInt(w), true
}
