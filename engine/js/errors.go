package js

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/dnecho/dnecho/engine/js/eventloop"
	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dnecho/dnecho/internal/exitcode"
	"github.com/dop251/goja"
)

// Error kinds of a ScriptError.
const (
	KindSyntax    = "syntax"    // the file does not parse
	KindModule    = "module"    // an import cannot be resolved or loaded
	KindException = "exception" // an uncaught exception
)

// ScriptError is a script failure positioned in the original source: a syntax error, an
// unresolvable import or an uncaught exception. Uncaught in init, setup or teardown it ends the
// run with exit code 107; in an iteration it is logged and the iteration still counts.
type ScriptError struct {
	Kind string
	// File, Line and Column locate the error in the original (pre-transform) source; Line and
	// Column are 1-based, and 0 when unknown.
	File         string
	Line, Column int
	// Message is the error as JavaScript shows it, e.g. "Error: boom" or "GoError: bad".
	Message string
	// Stack is the JS call stack, one "\tat fn (file:line:col)" line per frame, innermost first.
	Stack string
}

func (e *ScriptError) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	}
	b.WriteString(e.Message)
	if e.Stack != "" {
		b.WriteByte('\n')
		b.WriteString(e.Stack)
	}
	return b.String()
}

// ExitCode is the process exit code for an uncaught script error.
func (e *ScriptError) ExitCode() int { return exitcode.ScriptException }

// TimeoutError reports a lifecycle function that ran past its timeout (setupTimeout,
// teardownTimeout, handleSummaryTimeout): the context given to it hit its deadline.
type TimeoutError struct {
	Stage string // "setup", "teardown" or "handleSummary"
}

func (e *TimeoutError) Error() string { return e.Stage + "() execution timed out" }

// ExitCode is 100 for setup, 101 for teardown and 102 otherwise.
func (e *TimeoutError) ExitCode() int {
	switch e.Stage {
	case "setup":
		return exitcode.SetupTimeout
	case "teardown":
		return exitcode.TeardownTimeout
	}
	return exitcode.GenericTimeout
}

// ExitCode returns the process exit code an error from this package asks for: 107 for script
// errors, 108 for exec.test.abort, 100-102 for lifecycle timeouts. ok is false for other errors.
func ExitCode(err error) (code int, ok bool) {
	var c interface{ ExitCode() int }
	if errors.As(err, &c) {
		return c.ExitCode(), true
	}
	return 0, false
}

// errInterrupted is the interrupt value the runner uses when a VU's context ends: the event
// loop's, so that a call the loop stopped reads as one the runtime stopped.
var errInterrupted = eventloop.ErrInterrupted

// fromJS classifies an error returned by goja. It returns the abort error of exec.test.abort,
// interrupted=true for any other interrupt, or a *ScriptError for an exception.
func fromJS(err error) (abort *modules.AbortError, interrupted bool, script *ScriptError) {
	if errors.Is(err, errInterrupted) {
		return nil, true, nil // the event loop stopped waiting
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if a, ok := ie.Value().(*modules.AbortError); ok {
			return a, true, nil
		}
		return nil, true, nil
	}
	var se *ScriptError
	if errors.As(err, &se) {
		return nil, false, se
	}
	var so *goja.StackOverflowError // not a *goja.Exception, and it carries no value
	if errors.As(err, &so) {
		return nil, false, stackOverflowError(so)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return nil, false, exceptionError(ex)
	}
	return nil, false, &ScriptError{Kind: KindException, Message: err.Error()}
}

// exceptionError positions an exception at its innermost script frame. goja has already mapped
// frame positions through the source map, so they point into the original files.
func exceptionError(ex *goja.Exception) *ScriptError {
	e := &ScriptError{Kind: KindException, Message: exceptionMessage(ex)}
	// A module-resolution failure thrown by require carries its own kind and position.
	if obj, ok := ex.Value().(*goja.Object); ok {
		if v := obj.Get("value"); v != nil {
			if inner, ok := v.Export().(*ScriptError); ok {
				return inner
			}
		}
	}
	var b strings.Builder
	for _, f := range ex.Stack() {
		pos := f.Position()
		e.addFrame(&b, f.FuncName(), pos.Filename, pos.Line, pos.Column)
	}
	e.Stack = strings.TrimSuffix(b.String(), "\n")
	return e
}

// stackOverflowMessage is what V8, and so browsers, Node and k6 users, show for runaway
// recursion; goja's own error has no message, only the stack.
const stackOverflowMessage = "RangeError: Maximum call stack size exceeded"

// overflowFrames is how many of a stack overflow's innermost frames are shown: its stack is
// maxCallStackSize frames deep, mostly the same few repeated.
const overflowFrames = 10

// stackOverflowError positions a stack overflow at its innermost script frame, with the
// innermost frames of its stack (a run of one frame, direct recursion, is one line and a count)
// and how many more there are.
func stackOverflowError(so *goja.StackOverflowError) *ScriptError {
	e := &ScriptError{Kind: KindException, Message: stackOverflowMessage}
	frames := so.Stack()
	var b strings.Builder
	i, shown := 0, 0
	for ; i < len(frames) && shown < overflowFrames; shown++ {
		f, pos := frames[i], frames[i].Position()
		e.addFrame(&b, f.FuncName(), pos.Filename, pos.Line, pos.Column)
		run := 1
		for i+run < len(frames) && frames[i+run].FuncName() == f.FuncName() && frames[i+run].Position() == pos {
			run++
		}
		if run > 1 {
			fmt.Fprintf(&b, "\t... the same frame %d more times\n", run-1)
		}
		i += run
	}
	if more := len(frames) - i; more > 0 {
		fmt.Fprintf(&b, "\t... %d more frames\n", more)
	}
	e.Stack = strings.TrimSuffix(b.String(), "\n")
	return e
}

// addFrame writes one stack frame ("\tat name (file:line:col)", or "\tat name (native)" when
// file is empty) and positions e at the first frame with a file.
func (e *ScriptError) addFrame(b *strings.Builder, name, file string, line, col int) {
	if file == "" {
		if name = nativeName(name); name == "" {
			b.WriteString("\tat native\n")
		} else {
			fmt.Fprintf(b, "\tat %s (native)\n", name)
		}
		return
	}
	if name == "" {
		name = "<anonymous>"
	}
	if name == defaultExportName(file) {
		name = "default"
	}
	if e.File == "" {
		e.File, e.Line, e.Column = file, line, col
	}
	fmt.Fprintf(b, "\tat %s (%s:%d:%d)\n", name, file, line, col)
}

// defaultExportName is the name the compiler (esbuild) gives the anonymous default export of
// the module in file: the file's base name without extension (its directory's for an index
// file) as an identifier, then "_default". k6 runs that function as `default`, and so names it
// in stacks.
func defaultExportName(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	if base == "index" {
		base = filepath.Base(filepath.Dir(file))
	}
	var b strings.Builder
	for i, r := range base {
		switch {
		case r == '_' || r == '$' || unicode.IsLetter(r):
		case unicode.IsDigit(r):
			if i == 0 {
				b.WriteByte('_')
			}
		default:
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String() + "_default"
}

// exceptionMessage is the thrown value as JavaScript would print it ("Error: boom").
func exceptionMessage(ex *goja.Exception) string {
	v := ex.Value()
	if v == nil {
		return ex.Error()
	}
	return v.String()
}

// uncaughtPrefix starts the message of a promise rejection nobody handled; it is the wording
// browsers, Deno and k6 use (grafana/k6 internal/js/eventloop/eventloop.go).
const uncaughtPrefix = "Uncaught (in promise) "

// rejectionError is the *ScriptError of a promise rejected with no handler. An Error value keeps
// the stack of where it was created, which goja only exposes as its `stack` text; the frames are
// parsed from it so that the error is positioned and printed exactly like a thrown exception.
func rejectionError(rt *goja.Runtime, v goja.Value) *ScriptError {
	e := &ScriptError{Kind: KindException, Message: uncaughtPrefix + "undefined"}
	if v == nil {
		return e
	}
	e.Message = uncaughtPrefix + v.String()
	obj, ok := v.(*goja.Object)
	if !ok {
		return e
	}
	if s := obj.Get("stack"); s != nil && !goja.IsUndefined(s) {
		parseStack(e, s.String())
	}
	return e
}

// stackFrame matches a frame line of goja's `stack` text: "name (file:line:col(pc))",
// "file:line:col(pc)", "name (native)" or "native".
var stackFrame = regexp.MustCompile(`^(?:(.*) \()?(?:(.*):(\d+):(\d+)\(\d+\)|native)\)?$`)

// parseStack fills e's position and Stack from goja's `stack` text, in the format exceptionError
// uses.
func parseStack(e *ScriptError, stack string) {
	var b strings.Builder
	for _, line := range strings.Split(stack, "\n") {
		frame, ok := strings.CutPrefix(line, "\tat ")
		if !ok {
			continue
		}
		m := stackFrame.FindStringSubmatch(frame)
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		e.addFrame(&b, m[1], m[2], line, col)
	}
	e.Stack = strings.TrimSuffix(b.String(), "\n")
}
