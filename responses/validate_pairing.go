package responses

// checkPairing enforces what OpenAI enforces between function calls and
// their outputs in input: every function_call has exactly one
// function_call_output after it, every output answers an earlier call, and
// no call_id is used by two calls. A Chat upstream would otherwise fail
// with a less helpful message, after the client paid.
func checkPairing(items []Item) *Error {
	var idx callIndex
	for i := range items {
		it := &items[i]
		switch it.Type {
		case ItemFunctionCall, ItemCustomCall, ItemClientCall:
			if idx.find(it.CallID) >= 0 {
				return Invalid(where{base: "input", i: i}.at("call_id"), "invalid_value",
					"Duplicate call_id '%s' in input: every function_call needs its own call_id.", it.CallID)
			}
			idx.add(it.CallID)
		case ItemFunctionCallOutput, ItemCustomCallOutput, ItemClientCallOutput:
			k := idx.find(it.CallID)
			if k < 0 && it.Wire == "local_shell_call_output" {
				k = idx.find(localShellKey(items, it.CallID))
			}
			if k < 0 {
				return Invalid("input", "", "No tool call found for function call output with call_id %s.", it.CallID)
			}
			if idx.answered[k] {
				return Invalid(where{base: "input", i: i}.at("call_id"), "invalid_value",
					"Duplicate function_call_output for call_id '%s': every function call takes exactly one output.", it.CallID)
			}
			idx.answered[k] = true
		}
	}
	for k, done := range idx.answered {
		if !done {
			return Invalid("input", "", "No tool output found for function call %s.", idx.ids[k])
		}
	}
	return nil
}

// localShellKey returns the call_id of the local_shell_call whose id is
// id (a local_shell_call_output names the call by its item id), or "".
func localShellKey(items []Item, id string) string {
	for i := range items {
		if items[i].Wire == "local_shell_call" && items[i].ID == id {
			return items[i].CallID
		}
	}
	return ""
}

// callIndex is a nameIndex of call_ids that also records which calls have
// their output.
type callIndex struct {
	nameIndex
	answered []bool
}

func (c *callIndex) add(id string) {
	c.nameIndex.add(id)
	c.answered = append(c.answered, false)
}

// nameIndex finds names (call_ids, tool names) by linear scan while there
// are few of them, the common case with no allocation beyond one slice, and
// by map past that, so a body with thousands of them stays linear.
type nameIndex struct {
	ids  []string
	byID map[string]int
}

const nameIndexScan = 16

// find returns the position of id, or -1.
func (c *nameIndex) find(id string) int {
	if c.byID != nil {
		if k, ok := c.byID[id]; ok {
			return k
		}
		return -1
	}
	for k, s := range c.ids {
		if s == id {
			return k
		}
	}
	return -1
}

func (c *nameIndex) add(id string) {
	c.ids = append(c.ids, id)
	switch {
	case c.byID != nil:
		c.byID[id] = len(c.ids) - 1
	case len(c.ids) > nameIndexScan:
		c.byID = make(map[string]int, 2*len(c.ids))
		for k, s := range c.ids {
			c.byID[s] = k
		}
	}
}
