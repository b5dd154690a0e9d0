package executor

import (
	"encoding/json"

	"github.com/toolhint/toolhint/schema"
)

// checkArgs repairs near-miss arguments and validates them in one pass
// (schema.Validator.CoerceAndValidate), returning the arguments to run with and the repairs
// made, as "path: kind" strings.
func checkArgs(v *schema.Validator, args json.RawMessage, fill bool) (json.RawMessage, []string, error) {
	fixed, done, err := v.CoerceAndValidate(args, schema.CoerceOptions{FillDefaults: fill})
	var coerced []string
	for _, c := range done {
		p := c.Path
		if p == "" {
			p = "(root)"
		}
		coerced = append(coerced, p+": "+string(c.Kind))
	}
	if err != nil {
		return args, coerced, err
	}
	return fixed, coerced, nil
}
