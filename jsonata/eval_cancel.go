package jsonata

// stopCheckInterval is how many evaluation steps pass between two looks
// at Options.Context: often enough that an endless loop stops within
// microseconds, rarely enough to cost nothing measurable.
const stopCheckInterval = 256

// stopped returns the context's error once Options.Context is done. It
// looks only every stopCheckInterval steps; every loop of the evaluator
// (tail calls, higher-order built-ins, paths) takes steps, so none can
// run on unchecked.
func (s *state) stopped() error {
	s.steps++
	if s.steps%stopCheckInterval != 0 {
		return nil
	}
	select {
	case <-s.done:
		return s.ctx.Err()
	default:
		return nil
	}
}

// workCheckInterval is how many units of work (members built, visited or
// compared) pass between two looks at Options.Context inside a loop that
// takes no evaluation steps: a range, an aggregate, a sort, $distinct, a
// copy. 16,384 members take well under a millisecond.
const workCheckInterval = 1 << 14

// tick counts n units of work and returns the context's error when the
// count crosses a multiple of workCheckInterval and the context is done.
func (s *state) tick(n int) error {
	if s.done == nil || n <= 0 {
		return nil
	}
	before := s.work
	s.work += uint64(n)
	if before/workCheckInterval == s.work/workCheckInterval {
		return nil
	}
	select {
	case <-s.done:
		return s.ctx.Err()
	default:
		return nil
	}
}
