package sfnlocal

import (
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// inlineMapConcurrency is AWS's cap on concurrent inline Map iterations;
// distributedMapConcurrency bounds the local engine's child runs.
const (
	inlineMapConcurrency      = 40
	distributedMapConcurrency = 1000
)

func (t *thread) runMap() flow {
	if f, ok := t.testMap(); ok {
		return f
	}
	st := t.st
	var items []any
	var in any
	var serr *stateError
	run := "" // the Map Run's ARN, once MapRunStarted is recorded
	if st.reader != nil {
		items, in, run, serr = t.readItems()
	} else {
		items, in, serr = t.mapItems()
	}
	if serr != nil {
		if serr.evaluation != nil {
			t.failEvent = EventMapStateFailed
		}
		return t.fail(serr)
	}
	inputs := make([]any, len(items))
	for i, item := range items {
		if inputs[i], serr = t.selectItem(i, item, in); serr != nil {
			return t.fail(serr)
		}
	}
	maxConc, serr := t.mapNumber("MaxConcurrency", st.maxConcurrency, st.maxConcurrencyPath, in, t.maxConcurrencyFromPath)
	if serr != nil {
		return t.fail(serr)
	}
	limit := inlineMapConcurrency
	if st.distributed {
		limit = distributedMapConcurrency
	}
	if maxConc <= 0 || maxConc > float64(limit) {
		maxConc = float64(limit)
	}
	g := &group{t: t, isMap: true, distributed: st.distributed, defs: func(int) *definition { return st.processor },
		maxConc: int(maxConc), vars: t.vars, tolCount: -1, tolPercent: -1}
	x := t.x
	if st.distributed {
		g.vars = nil
		// AWS reads the tolerances after MapStateStarted, but its failure
		// follows MapStateEntered, as a state-level field's would.
		var count float64
		g.tolPercent, serr = t.mapNumber("ToleratedFailurePercentage", st.toleratedPercent, st.toleratedPctPath, in, t.toleratedPercentFromPath)
		if serr == nil {
			count, serr = t.mapNumber("ToleratedFailureCount", st.toleratedCount, st.toleratedCountPath, in, t.toleratedCountFromPath)
		}
		if serr != nil {
			if run == "" {
				x.mu.Lock()
				entered := t.lastID
				t.recordLocked(EventMapStateStarted, &MapStateStartedEventDetails{Length: len(items)})
				t.lastID = entered
				x.mu.Unlock()
			}
			return t.fail(serr)
		}
		g.tolCount = int64(min(count, 1<<53)) // beyond any item count; a float past MaxInt64 would not convert
		if inputs, serr = t.batch(inputs, in); serr != nil {
			return t.fail(serr)
		}
	}
	g.inputs = inputs
	if g.export, serr = t.newExport(in, inputs); serr != nil {
		return t.fail(serr)
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	if run == "" {
		t.recordLocked(EventMapStateStarted, &MapStateStartedEventDetails{Length: len(items)})
		if st.distributed {
			run = t.mapRunARN()
			t.recordLocked(EventMapRunStarted, &MapRunEventDetails{MapRunArn: run})
		}
	}
	if g.export != nil {
		g.export.run = run
	}
	if !g.startLocked() {
		return flowEnd
	}
	return flowSuspend
}

func mapRunPrefix(machineArn string) string {
	return replaceOnce(machineArn, ":stateMachine:", ":mapRun:")
}

func replaceOnce(s, old, repl string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + repl + s[i+len(old):]
		}
	}
	return s
}

// mapItems returns the items to iterate and the effective input that
// ItemSelector's $ refers to.
func (t *thread) mapItems() ([]any, any, *stateError) {
	st := t.st
	if st.lang == langJSONata {
		v := t.input
		if st.items.set {
			var serr *stateError
			if v, serr = t.jsonataField("Items", st.items.value, t.jsonataVars(t.input, nil, nil)); serr != nil {
				return nil, nil, serr
			}
		}
		items, ok := v.([]any)
		if !ok {
			return nil, nil, t.itemsError(v)
		}
		return items, t.input, nil
	}
	in, serr := t.pathValue(st.inputPath, t.input)
	if serr != nil {
		return nil, nil, serr
	}
	v, serr := t.pathValue(st.itemsPath, in)
	if serr != nil {
		return nil, nil, serr
	}
	items, ok := v.([]any)
	if !ok {
		return nil, nil, t.itemsError(v)
	}
	return items, in, nil
}

// selectItem applies ItemSelector to one item, with $$.Map.Item bound.
func (t *thread) selectItem(i int, item, in any) (any, *stateError) {
	st := t.st
	if !st.itemSelector.set {
		return item, nil
	}
	t.item = &mapItem{index: i, value: item}
	defer func() { t.item = nil }()
	if st.lang == langJSONata {
		return t.jsonataField("ItemSelector", st.itemSelector.value, t.jsonataVars(t.input, nil, nil))
	}
	return t.template("ItemSelector", st.itemSelector.value, in)
}

// mapNumber evaluates a numeric Map field or its Path form (checked by
// fromPath); -1 if unset.
func (t *thread) mapNumber(name string, f field, path string, in any, fromPath func(string, any) (float64, *stateError)) (float64, *stateError) {
	var v any
	switch {
	case path != "" && fromPath != nil:
		return t.numberFromPath(path, in, fromPath)
	case path != "":
		var err error
		if v, err = t.resolver(in)(path); err != nil {
			return 0, t.noMatch(path, err)
		}
	case f.set && t.st.lang == langJSONata:
		var serr *stateError
		if v, serr = t.jsonataField(name, f.value, t.jsonataVars(t.input, nil, nil)); serr != nil {
			return 0, serr
		}
	case f.set:
		v = f.value
	default:
		return -1, nil
	}
	n, ok := jsonvalue.Float(v)
	if !ok || n < 0 {
		return 0, t.runtimef("The %s value %s is not a non-negative number", name, jsonvalue.Encode(v))
	}
	return n, nil
}

// batch groups items for ItemBatcher: each child gets {"Items": […]},
// preceded by "BatchInput" when set, as AWS orders them.
func (t *thread) batch(items []any, in any) ([]any, *stateError) {
	b := t.st.batcher
	if b == nil {
		return items, nil
	}
	size, serr := t.mapNumber("MaxItemsPerBatch", b.maxItems, b.maxItemsPath, in, nil)
	if serr != nil {
		return nil, serr
	}
	if size < 1 {
		size = float64(len(items))
	}
	var batchInput any
	if b.batchInput.set {
		if t.st.lang == langJSONata {
			batchInput, serr = t.jsonataField("BatchInput", b.batchInput.value, t.jsonataVars(t.input, nil, nil))
		} else {
			batchInput, serr = t.template("BatchInput", b.batchInput.value, in)
		}
		if serr != nil {
			return nil, serr
		}
	}
	n := int(size)
	var out []any
	for start := 0; start < len(items); start += n {
		end := min(start+n, len(items))
		m := jsonvalue.NewObject(2)
		if b.batchInput.set {
			m.Set("BatchInput", batchInput)
		}
		m.Set("Items", append([]any(nil), items[start:end]...))
		out = append(out, m)
	}
	return out, nil
}
