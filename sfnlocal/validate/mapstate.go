package validate

import (
	"strings"
	"unicode/utf8"
)

// Map processing modes.
const (
	modeInline      = "INLINE"
	modeDistributed = "DISTRIBUTED"
)

// maxLabelLength is the longest Map Label Step Functions accepts.
const maxLabelLength = 40

// mapState checks a Map state, inline or distributed.
func (c *checker) mapState(s *state) {
	mode := modeInline
	switch c.onlyOne(s.obj, child(s.loc, "ItemProcessor"), "ItemProcessor", "Iterator") {
	case 0:
		c.schema(s.loc, "This object should have only one of the following fields: [ItemProcessor, Iterator]")
	}
	for _, f := range []string{"ItemProcessor", "Iterator"} {
		if v, ok := s.obj[f]; ok {
			loc := child(s.loc, f)
			c.nestedMachine(v, loc, true)
			if p, ok := v.(map[string]any); ok {
				if cfg, ok := p["ProcessorConfig"]; ok {
					mode = c.processorConfig(child(loc, "ProcessorConfig"), cfg)
				}
			}
		}
	}
	c.mapItems(s)
	c.mapLimits(s)
	if v, ok := s.obj["ItemReader"]; ok {
		c.itemReader(child(s.loc, "ItemReader"), v, s.ql)
	}
	if v, ok := s.obj["ItemBatcher"]; ok {
		loc := child(s.loc, "ItemBatcher")
		if mode != modeDistributed {
			c.schema(loc, "Field 'ItemBatcher' is supported only when the ProcessorConfig Mode is 'DISTRIBUTED'")
		}
		c.itemBatcher(loc, v, s.ql)
	}
	if v, ok := s.obj["ResultWriter"]; ok {
		c.resultWriter(child(s.loc, "ResultWriter"), v, s.ql)
	}
	if v, ok := s.obj["Label"]; ok {
		c.label(child(s.loc, "Label"), v)
	}
	c.retry(s)
	c.catch(s)
}

// processorConfig checks Mode and ExecutionType and returns the mode.
func (c *checker) processorConfig(loc string, v any) string {
	cfg, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return modeInline
	}
	c.unsupported(cfg, loc, set("Mode", "ExecutionType"))
	mode := modeInline
	if m, ok := cfg["Mode"]; ok && c.enum(child(loc, "Mode"), m, modeInline, modeDistributed) {
		mode = m.(string)
	}
	et, hasET := cfg["ExecutionType"]
	switch {
	case mode == modeDistributed:
		if c.required(cfg, loc, "ExecutionType") {
			c.enum(child(loc, "ExecutionType"), et, "STANDARD", "EXPRESS")
		}
	case hasET:
		c.schema(loc, "Field 'ExecutionType' is not supported")
	}
	return mode
}

// mapItems checks where the items come from: ItemsPath or Items.
func (c *checker) mapItems(s *state) {
	if v, ok := s.obj["ItemsPath"]; ok && s.ql == jsonPath {
		c.path(child(s.loc, "ItemsPath"), "ItemsPath", v, valuePath)
	}
	if v, ok := s.obj["Items"]; ok && s.ql == jsonata {
		switch v.(type) {
		case []any, map[string]any:
		default:
			if _, ok := jsonataExpr(v); !ok {
				c.schema(child(s.loc, "Items"), "Expected value of type [ARRAY]")
			}
		}
	}
}

// mapLimits checks MaxConcurrency and the tolerated failure thresholds.
func (c *checker) mapLimits(s *state) {
	limits := []struct {
		field string
		b     bounds
	}{
		{"MaxConcurrency", atLeast(0, true)},
		{"ToleratedFailurePercentage", bounds{min: 0, max: 100, hasMin: true, hasMax: true}},
		{"ToleratedFailureCount", atLeast(0, true)},
	}
	for _, l := range limits {
		loc := child(s.loc, l.field)
		c.onlyOne(s.obj, loc, l.field, l.field+"Path")
		if v, ok := s.obj[l.field]; ok {
			c.number(loc, v, l.b, s.ql)
		}
		if v, ok := s.obj[l.field+"Path"]; ok && s.ql == jsonPath {
			c.path(child(s.loc, l.field+"Path"), l.field+"Path", v, valuePath)
		}
	}
}

// label checks a Map Run label: short, free of reserved characters, and
// unique in the machine.
func (c *checker) label(loc string, v any) {
	if !c.expectType(loc, v, "STRING") {
		return
	}
	name := v.(string)
	if name == "" || utf8.RuneCountInString(name) > maxLabelLength || strings.IndexFunc(name, badLabelRune) >= 0 {
		c.add(SeverityError, CodeInvalidLabelName, loc, "Label '%s' does not follow the naming convention", name)
	}
	if c.labels[name] {
		c.add(SeverityError, CodeDuplicateLabelName, loc, "Duplicate Label name: %s", name)
	}
	c.labels[name] = true
}

func badLabelRune(r rune) bool {
	return r <= 0x20 || (r >= 0x7f && r <= 0x9f) || strings.ContainsRune("<>{}[]?*\"#%\\^|~`$&,;:/", r)
}
