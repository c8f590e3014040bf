package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// decode parses the definition the way the engine does (UseNumber) and
// turns a parse failure into AWS's diagnostic for it.
func decode(definition []byte) (map[string]any, *Diagnostic) {
	notObject := &Diagnostic{Severity: SeverityError, Code: CodeSchema,
		Message: "Definition must be a valid JSON object"}
	if len(bytes.TrimSpace(definition)) == 0 {
		return nil, notObject
	}
	dec := json.NewDecoder(bytes.NewReader(definition))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = fmt.Errorf("unexpected data after the top-level value")
		}
	}
	if err != nil {
		line, col := position(definition, dec.InputOffset(), err)
		loc := fmt.Sprintf("line: %d, column: %d", line, col)
		return nil, &Diagnostic{Severity: SeverityError, Code: CodeInvalidJSON,
			Message: err.Error() + " at " + loc, Location: loc}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, notObject
	}
	return obj, nil
}

// position finds the 1-based line and column of a parse error.
func position(data []byte, fallback int64, err error) (line, col int) {
	offset := fallback
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		offset = syn.Offset
	}
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	// The offending byte is the last one read.
	line, col = 1, 1
	for _, b := range data[:max(offset-1, 0)] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
