package validate

// Resources a distributed Map may read from and write to.
var (
	readerResources = set("arn:aws:states:::s3:getObject", "arn:aws:states:::s3:listObjectsV2")
	writerResources = set("arn:aws:states:::s3:putObject")
)

// itemReader checks a distributed Map's ItemReader.
func (c *checker) itemReader(loc string, v any, ql string) {
	r, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return
	}
	c.unsupported(r, loc, set("Resource", "ReaderConfig", "Parameters", "Arguments"))
	if c.required(r, loc, "Resource") {
		c.resource(child(loc, "Resource"), r["Resource"], readerResources)
	}
	c.integrationArguments(loc, r, ql)
	cfgV, ok := r["ReaderConfig"]
	if !ok {
		return
	}
	cloc := child(loc, "ReaderConfig")
	cfg, ok := cfgV.(map[string]any)
	if !ok {
		c.expectType(cloc, cfgV, "OBJECT")
		return
	}
	if t, ok := cfg["InputType"]; ok {
		c.enum(child(cloc, "InputType"), t, "CSV", "JSON", "JSONL", "MANIFEST", "PARQUET")
	}
	if h, ok := cfg["CSVHeaderLocation"]; ok && c.enum(child(cloc, "CSVHeaderLocation"), h, "FIRST_ROW", "GIVEN") && h == "GIVEN" {
		c.required(cfg, cloc, "CSVHeaders")
	}
	c.onlyOne(cfg, child(cloc, "MaxItems"), "MaxItems", "MaxItemsPath")
	if m, ok := cfg["MaxItems"]; ok {
		c.number(child(cloc, "MaxItems"), m, intRange(0, 100000000), ql)
	}
}

// itemBatcher checks a distributed Map's ItemBatcher.
func (c *checker) itemBatcher(loc string, v any, ql string) {
	b, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return
	}
	fields := []string{"MaxItemsPerBatch", "MaxItemsPerBatchPath", "MaxInputBytesPerBatch", "MaxInputBytesPerBatchPath"}
	c.unsupported(b, loc, set(append(fields, "BatchInput")...))
	present := 0
	for _, f := range fields {
		if has(b, f) {
			present++
		}
	}
	if present == 0 {
		c.schema(loc, "At least one of the following fields is required: %s", list(fields))
	}
	limits := map[string]bounds{"MaxItemsPerBatch": atLeast(1, true), "MaxInputBytesPerBatch": intRange(1, 262144)}
	for _, f := range []string{"MaxItemsPerBatch", "MaxInputBytesPerBatch"} {
		floc := child(loc, f)
		c.onlyOne(b, floc, f, f+"Path")
		if n, ok := b[f]; ok {
			c.number(floc, n, limits[f], ql)
		}
		if p, ok := b[f+"Path"]; ok {
			if ql == jsonata {
				c.wrongLanguage(loc, f+"Path", ql)
			} else {
				c.path(child(loc, f+"Path"), f+"Path", p, valuePath)
			}
		}
	}
	if in, ok := b["BatchInput"]; ok {
		if ql == jsonPath && c.expectType(child(loc, "BatchInput"), in, "OBJECT") {
			c.template(child(loc, "BatchInput"), in)
		}
		if ql == jsonata {
			c.jsonataValues(child(loc, "BatchInput"), in, false)
		}
	}
}

// resultWriter checks a distributed Map's ResultWriter.
func (c *checker) resultWriter(loc string, v any, ql string) {
	w, ok := v.(map[string]any)
	if !ok {
		c.expectType(loc, v, "OBJECT")
		return
	}
	c.unsupported(w, loc, set("Resource", "Parameters", "Arguments", "WriterConfig"))
	if !has(w, "Resource") && !has(w, "WriterConfig") {
		c.schema(loc, "At least one of the following fields is required: [Resource, WriterConfig]")
	}
	if r, ok := w["Resource"]; ok {
		c.resource(child(loc, "Resource"), r, writerResources)
		args := "Parameters"
		if ql == jsonata {
			args = "Arguments"
		}
		c.required(w, loc, args)
	}
	c.integrationArguments(loc, w, ql)
	if p, ok := w["Parameters"].(map[string]any); ok && ql == jsonPath {
		for _, f := range []string{"Bucket", "Prefix"} {
			if b, ok := p[f]; ok {
				c.expectType(child(child(loc, "Parameters"), f), b, "STRING")
			}
		}
	}
	cfgV, ok := w["WriterConfig"]
	if !ok {
		return
	}
	cloc := child(loc, "WriterConfig")
	cfg, ok := cfgV.(map[string]any)
	if !ok {
		c.expectType(cloc, cfgV, "OBJECT")
		return
	}
	if !c.required(cfg, cloc, "Transformation", "OutputType") {
		return
	}
	if _, ok := cfg["Transformation"].(string); !ok {
		c.schema(cloc, "Expected value of type [STRING] for the fields 'Transformation' and 'OutputType'")
		return
	}
	if _, ok := cfg["OutputType"].(string); !ok {
		c.schema(cloc, "Expected value of type [STRING] for the fields 'Transformation' and 'OutputType'")
		return
	}
	c.enum(child(cloc, "Transformation"), cfg["Transformation"], "NONE", "COMPACT", "FLATTEN")
	c.enum(child(cloc, "OutputType"), cfg["OutputType"], "JSON", "JSONL")
}

// resource checks an ItemReader or ResultWriter resource, in any partition.
func (c *checker) resource(loc string, v any, allowed map[string]bool) {
	if !c.expectType(loc, v, "STRING") {
		return
	}
	if !allowed[normalizePartition(v.(string))] {
		c.schema(loc, "The field 'Resource' does not match any of the allowed values")
	}
}

// normalizePartition rewrites "arn:<partition>:" to "arn:aws:".
func normalizePartition(arn string) string {
	const prefix = "arn:"
	if len(arn) <= len(prefix) || arn[:len(prefix)] != prefix {
		return arn
	}
	for i := len(prefix); i < len(arn); i++ {
		if arn[i] == ':' {
			return "arn:aws" + arn[i:]
		}
	}
	return arn
}

// integrationArguments checks Parameters (JSONPath) or Arguments (JSONata)
// of an ItemReader or ResultWriter; the other language's field is reported
// at the field itself (measured).
func (c *checker) integrationArguments(loc string, obj map[string]any, ql string) {
	if _, ok := obj["Parameters"]; ok && ql == jsonata {
		c.wrongLanguage(child(loc, "Parameters"), "Parameters", ql)
	}
	if _, ok := obj["Arguments"]; ok && ql == jsonPath {
		c.wrongLanguage(child(loc, "Arguments"), "Arguments", ql)
	}
	if p, ok := obj["Parameters"]; ok && ql == jsonPath && c.expectType(child(loc, "Parameters"), p, "OBJECT") {
		c.template(child(loc, "Parameters"), p)
	}
}
