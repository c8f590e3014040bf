package picture

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/sfnapprovals/approvals/jsonata/internal/js"
)

// Numbers as English words, Roman numerals and spreadsheet-style letters,
// both ways, as jsonata-js spells and reads them.

var (
	wordsFew = []string{"Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
		"Eleven", "Twelve", "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen", "Eighteen", "Nineteen"}
	wordsOrdinal = []string{"Zeroth", "First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth",
		"Eleventh", "Twelfth", "Thirteenth", "Fourteenth", "Fifteenth", "Sixteenth", "Seventeenth", "Eighteenth", "Nineteenth"}
	wordsDecades    = []string{"Twenty", "Thirty", "Forty", "Fifty", "Sixty", "Seventy", "Eighty", "Ninety", "Hundred"}
	wordsMagnitudes = []string{"Thousand", "Million", "Billion", "Trillion"}
)

// numberToWords spells a non-negative integer in English, title case:
// 123 is "One Hundred and Twenty-Three", ordinal "One Hundred and
// Twenty-Third".
func numberToWords(num float64, ordinal bool) string {
	if math.IsNaN(num) || math.IsInf(num, 0) {
		return js.NumberToString(num) // jsonata-js overflows its stack here
	}
	return wordsLookup(num, false, ordinal)
}

func wordsLookup(num float64, prev, ord bool) string {
	var words string
	switch {
	case num <= 19:
		if prev {
			words = " and "
		}
		if ord {
			words += wordsOrdinal[int(num)]
		} else {
			words += wordsFew[int(num)]
		}
	case num < 100:
		tens, rem := math.Floor(num/10), math.Mod(num, 10)
		if prev {
			words = " and "
		}
		words += wordsDecades[int(tens)-2]
		if rem > 0 {
			words += "-" + wordsLookup(rem, false, ord)
		} else if ord {
			words = words[:len(words)-1] + "ieth"
		}
	case num < 1000:
		hundreds, rem := math.Floor(num/100), math.Mod(num, 100)
		if prev {
			words = ", "
		}
		words += wordsFew[int(hundreds)] + " Hundred"
		if rem > 0 {
			words += wordsLookup(rem, true, ord)
		} else if ord {
			words += "th"
		}
	default:
		mag := floorLog10(num) / 3
		if mag > len(wordsMagnitudes) {
			mag = len(wordsMagnitudes)
		}
		factor := math.Pow(10, float64(mag*3))
		mant := math.Floor(num / factor)
		rem := num - mant*factor
		if prev {
			words = ", "
		}
		words += wordsLookup(mant, false, false) + " " + wordsMagnitudes[mag-1]
		if rem > 0 {
			words += wordsLookup(rem, true, ord)
		} else if ord {
			words += "th"
		}
	}
	return words
}

// floorLog10 is floor(log10(x)) for x >= 1, computed exactly.
func floorLog10(x float64) int {
	k := 0
	for k < 308 && math.Pow10(k+1) <= x {
		k++
	}
	return k
}

// wordValues maps each lower-case number word to its value; wordKeys
// lists the words in the order jsonata-js's parsing regex tries them.
var wordValues, wordKeys = func() (map[string]float64, []string) {
	m := map[string]float64{}
	var keys []string
	set := func(k string, v float64) {
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
		m[k] = v
	}
	for i, w := range wordsFew {
		set(strings.ToLower(w), float64(i))
	}
	for i, w := range wordsOrdinal {
		set(strings.ToLower(w), float64(i))
	}
	for i, w := range wordsDecades {
		lw := strings.ToLower(w)
		set(lw, float64((i+2)*10))
		set(lw[:len(lw)-1]+"ieth", float64((i+2)*10))
	}
	set("hundredth", 100)
	for i, w := range wordsMagnitudes {
		lw := strings.ToLower(w)
		v := math.Pow(10, float64((i+1)*3))
		set(lw, v)
		set(lw+"th", v)
	}
	return m, keys
}()

// wordsSplitter is jsonata-js's /,\s|\sand\s|[\s\\-]/.
var wordsSplitter = regexp.MustCompile(`,[` + js.Space + `]|[` + js.Space + `]and[` + js.Space + `]|[` + js.Space + `\\-]`)

// wordsToNumber reads lower-case English number words; NaN when a word
// is unknown.
func wordsToNumber(text string) float64 {
	segs := []float64{0}
	for _, part := range wordsSplitter.Split(text, -1) {
		value, ok := wordValues[part]
		if !ok {
			value = math.NaN()
		}
		last := len(segs) - 1
		if value < 100 {
			top := segs[last]
			segs = segs[:last]
			if top >= 1000 {
				segs = append(segs, top)
				top = 0
			}
			segs = append(segs, top+value)
		} else {
			segs[last] *= value
		}
	}
	var sum float64
	for _, s := range segs {
		sum += s
	}
	return sum
}

var romanNumerals = []struct {
	value   float64
	numeral string
}{
	{1000, "m"}, {900, "cm"}, {500, "d"}, {400, "cd"}, {100, "c"}, {90, "xc"},
	{50, "l"}, {40, "xl"}, {10, "x"}, {9, "ix"}, {5, "v"}, {4, "iv"}, {1, "i"},
}

// toRoman writes a non-negative integer in lower-case Roman numerals
// (0 is "").
func toRoman(value float64) string {
	var b strings.Builder
	for _, r := range romanNumerals {
		for value >= r.value {
			b.WriteString(r.numeral)
			value -= r.value
		}
	}
	return b.String()
}

// fromRoman reads upper-case Roman numerals; NaN on any other letter.
func fromRoman(roman string) float64 {
	values := map[rune]float64{'M': 1000, 'D': 500, 'C': 100, 'L': 50, 'X': 10, 'V': 5, 'I': 1}
	var decimal float64
	max := 1.0
	runes := []rune(roman)
	for i := len(runes) - 1; i >= 0; i-- {
		v, ok := values[runes[i]]
		if !ok {
			return math.NaN()
		}
		if v < max {
			decimal -= v
		} else {
			max = v
			decimal += v
		}
	}
	return decimal
}

// toLetters writes a non-negative integer as spreadsheet columns do:
// 1 is a, 26 is z, 27 is aa (0 is "").
func toLetters(value float64, a rune) string {
	var letters []rune
	for value > 0 {
		letters = append([]rune{rune(math.Mod(value-1, 26)) + a}, letters...)
		value = math.Floor((value - 1) / 26)
	}
	return string(letters)
}

// fromLetters reads spreadsheet-style letters, counting each UTF-16
// code unit's distance from a.
func fromLetters(letters string, a rune) float64 {
	units := utf16.Encode([]rune(letters))
	var decimal float64
	for i := range units {
		c := units[len(units)-i-1]
		decimal += float64(int(c)-int(a)+1) * math.Pow(26, float64(i))
	}
	return decimal
}
