package responses

// The shapes of the objects farebox rebuilds, from OpenAI's published
// Responses API. A "caller" (the context of a provider-side program that
// made a call) is never kept: farebox runs no program for a client.

func shapeOf(fs ...field) *shape { return &shape{fields: fs} }

func unionOf(order []string, shapes ...*shape) *shape {
	u := &shape{union: map[string]*shape{}, unionOrder: order}
	for i, t := range order {
		u.union[t] = shapes[i]
	}
	return u
}

var (
	fStr     = func(name string) field { return field{name: name, kind: kString} }
	fReqStr  = func(name string) field { return field{name: name, kind: kString, required: true} }
	fInt     = func(name string) field { return field{name: name, kind: kInt} }
	fReqInt  = func(name string) field { return field{name: name, kind: kInt, required: true} }
	fStrs    = func(name string) field { return field{name: name, kind: kStrings} }
	fReqStrs = func(name string) field { return field{name: name, kind: kStrings, required: true} }
)

// localEnvironment is a shell's environment on the client's machine: its
// optional skills are names and paths there.
var localEnvironment = unionOf([]string{"local"}, shapeOf(
	field{name: "skills", kind: kObjects, sub: shapeOf(fReqStr("name"), fReqStr("description"), fReqStr("path"))},
))

// customFormat is a custom tool's input format: free text or a grammar.
var customFormat = unionOf([]string{"text", "grammar"},
	shapeOf(),
	shapeOf(field{name: "syntax", kind: kEnum, required: true, enum: []string{"lark", "regex"}}, fReqStr("definition")),
)

var safetyCheck = shapeOf(fReqStr("id"), fStr("code"), fStr("message"))

var dragPoint = shapeOf(fReqInt("x"), fReqInt("y"))

// computerAction is one action of a computer_call.
var computerAction = unionOf(
	[]string{"click", "double_click", "drag", "keypress", "move", "screenshot", "scroll", "type", "wait"},
	shapeOf(fReqStr("button"), fReqInt("x"), fReqInt("y"), fStrs("keys")),
	shapeOf(fReqInt("x"), fReqInt("y"), fStrs("keys")),
	shapeOf(field{name: "path", kind: kObjects, required: true, sub: dragPoint}, fStrs("keys")),
	shapeOf(fReqStrs("keys")),
	shapeOf(fReqInt("x"), fReqInt("y"), fStrs("keys")),
	shapeOf(),
	shapeOf(fReqInt("x"), fReqInt("y"), fReqInt("scroll_x"), fReqInt("scroll_y"), fStrs("keys")),
	shapeOf(fReqStr("text")),
	shapeOf(),
)

// clientCallShapes are the calls of the built-in client tools and their
// outputs, by item type (type itself is written by the caller).
var clientCallShapes = map[string]*shape{
	"local_shell_call": shapeOf(fReqStr("id"), fReqStr("call_id"),
		field{name: "action", kind: kObject, required: true, sub: unionOf([]string{"exec"}, shapeOf(
			fReqStrs("command"), field{name: "env", kind: kStringMap}, fInt("timeout_ms"),
			fStr("user"), fStr("working_directory")))},
		fStr("status")),
	"local_shell_call_output": shapeOf(fReqStr("id"), fReqStr("output"), fStr("status")),
	"shell_call": shapeOf(fStr("id"), fReqStr("call_id"),
		field{name: "action", kind: kObject, required: true, sub: shapeOf(
			fReqStrs("commands"), fInt("max_output_length"), fInt("timeout_ms"))},
		field{name: "environment", kind: kObject, sub: localEnvironment},
		fStr("status")),
	"shell_call_output": shapeOf(fStr("id"), fReqStr("call_id"),
		field{name: "output", kind: kObjects, required: true, sub: shapeOf(
			fReqStr("stdout"), fReqStr("stderr"),
			field{name: "outcome", kind: kObject, required: true, sub: unionOf([]string{"timeout", "exit"},
				shapeOf(), shapeOf(fReqInt("exit_code")))})},
		fInt("max_output_length"), fStr("status")),
	"apply_patch_call": shapeOf(fStr("id"), fReqStr("call_id"),
		field{name: "operation", kind: kObject, required: true, sub: unionOf(
			[]string{"create_file", "update_file", "delete_file"},
			shapeOf(fReqStr("path"), fReqStr("diff")),
			shapeOf(fReqStr("path"), fReqStr("diff")),
			shapeOf(fReqStr("path")))},
		fStr("status")),
	"apply_patch_call_output": shapeOf(fStr("id"), fReqStr("call_id"), fStr("output"), fStr("status")),
	"computer_call": shapeOf(fReqStr("id"), fReqStr("call_id"),
		field{name: "action", kind: kObject, sub: computerAction},
		field{name: "actions", kind: kObjects, sub: computerAction},
		field{name: "pending_safety_checks", kind: kObjects, sub: safetyCheck},
		fStr("status")),
	"computer_call_output": shapeOf(fStr("id"), fReqStr("call_id"),
		field{name: "output", kind: kObject, required: true, sub: unionOf([]string{"computer_screenshot"},
			shapeOf(fStr("image_url"), field{name: "file_id", kind: kFileID}))},
		field{name: "acknowledged_safety_checks", kind: kObjects, sub: safetyCheck},
		fStr("status")),
}

// moderationMode is moderation.policy.input and .output.
var moderationMode = shapeOf(field{name: "mode", kind: kEnum, required: true, enum: []string{"score", "block"}})

// passthroughShapes are the uninterpreted top-level objects a Responses
// upstream may get, as they are rebuilt. prompt_cache_options keeps no
// comparison_response_id (a stored response of the operator's account) and
// no prewarm (a model run nobody asked an answer of).
var passthroughShapes = map[string]*shape{
	"moderation": shapeOf(fReqStr("model"), field{name: "policy", kind: kObject, sub: shapeOf(
		field{name: "input", kind: kObject, sub: moderationMode},
		field{name: "output", kind: kObject, sub: moderationMode})}),
	"prompt_cache_options": shapeOf(
		field{name: "mode", kind: kEnum, enum: []string{"implicit", "explicit"}},
		field{name: "ttl", kind: kEnum, enum: []string{"30m", "12h"}}),
}
