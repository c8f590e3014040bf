package validate

// parallel checks a Parallel state: each branch is a machine of its own.
func (c *checker) parallel(s *state) {
	if c.required(s.obj, s.loc, "Branches") {
		loc := child(s.loc, "Branches")
		if v := s.obj["Branches"]; c.expectType(loc, v, "ARRAY") {
			branches := v.([]any)
			if len(branches) == 0 {
				c.schema(loc, "Value cannot be empty")
			}
			for i, b := range branches {
				c.nestedMachine(b, index(loc, i), false)
			}
		}
	}
	c.retry(s)
	c.catch(s)
}
