package loader

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// wrapperHeader turns a CommonJS module body into a function expression. It sits alone on the
// first line so that the body keeps its line numbers shifted by exactly one, which the source map
// accounts for. `open` is a parameter so that each module resolves relative paths against its
// own directory.
const wrapperHeader = "(function (exports, require, module, __filename, __dirname, open) {"

// esmSyntax spots files written as ES modules; they run in strict mode, as ES modules do. Plain
// CommonJS scripts keep sloppy mode.
var esmSyntax = regexp.MustCompile(`(?m)^[ \t]*(import[ \t]*[\w{*'"]|export[ \t]+)`)

// Module is one source file turned into a goja program, shared by every VU of the test. Running
// Program gives a function of (exports, require, module, __filename, __dirname, open): the
// module's CommonJS body, which the caller calls with its own require and open.
type Module struct {
	// Name is the absolute path or the URL: the module's identity and the file name of its
	// positions.
	Name string
	// Dir is where the module's relative imports and open() calls start from (Resolve, Open).
	Dir     string
	Program *goja.Program
}

// SyntaxError is a module that does not compile, positioned in the original (pre-transform)
// source; Line and Column are 1-based, 0 when unknown.
type SyntaxError struct {
	File         string
	Line, Column int
	// Message is the error as JavaScript shows it: "SyntaxError: ...".
	Message string
}

func (e *SyntaxError) Error() string {
	if e.File == "" {
		return e.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
}

// compileSource transforms src (JavaScript or TypeScript, ES module or CommonJS) into a CommonJS
// function wrapper and compiles it. Errors are *SyntaxError values positioned in the original file.
func compileSource(path string, src []byte) (*Module, error) {
	loader := api.LoaderJS
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		loader = api.LoaderTS
	}
	res := api.Transform(string(src), api.TransformOptions{
		Loader:         loader,
		Format:         api.FormatCommonJS,
		Target:         api.ESNext, // goja handles modern syntax; esbuild only strips types and rewrites modules
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentExclude,
		Sourcefile:     path,
	})
	if len(res.Errors) > 0 {
		return nil, esbuildError(path, res.Errors[0])
	}

	smap, err := adjustSourceMap(res.Map)
	if err != nil {
		return nil, fmt.Errorf("%s: source map: %w", path, err)
	}
	var b strings.Builder
	b.Grow(len(wrapperHeader) + len(res.Code) + len(smap.raw)*4/3 + 64)
	b.WriteString(wrapperHeader)
	if esmSyntax.Match(src) {
		b.WriteString(` "use strict";`)
	}
	b.WriteByte('\n')
	b.Write(res.Code)
	b.WriteString("\n})\n//# sourceMappingURL=data:application/json;base64,")
	b.WriteString(base64.StdEncoding.EncodeToString(smap.raw))
	b.WriteByte('\n')
	wrapped := b.String()

	ast, err := parser.ParseFile(nil, path, wrapped, 0)
	if err != nil {
		return nil, parseError(path, err, smap)
	}
	prog, err := goja.CompileAST(ast, false)
	if err != nil {
		return nil, compileError(path, err)
	}
	return &Module{Name: path, Dir: moduleDir(path), Program: prog}, nil
}

// esbuildError converts an esbuild diagnostic (1-based line, 0-based byte column) into a
// positioned syntax error.
func esbuildError(path string, msg api.Message) *SyntaxError {
	e := &SyntaxError{File: path, Message: "SyntaxError: " + msg.Text}
	if loc := msg.Location; loc != nil {
		e.Line, e.Column = loc.Line, loc.Column+1
		if loc.File != "" {
			e.File = loc.File
		}
	}
	return e
}

// parseError maps a goja parser error (positions in the wrapped code) back to the original file.
// esbuild already rejected invalid syntax, so this only happens for syntax goja lacks.
func parseError(path string, err error, smap *sourceMap) *SyntaxError {
	e := &SyntaxError{File: path, Message: "SyntaxError: " + err.Error()}
	list, ok := err.(parser.ErrorList)
	if !ok || len(list) == 0 {
		return e
	}
	first := list[0]
	e.Message = "SyntaxError: " + first.Message
	e.Line, e.Column = first.Position.Line, first.Position.Column
	if line, col, ok := smap.lookup(first.Position.Line, first.Position.Column); ok {
		e.Line, e.Column = line, col
	}
	return e
}

// compileError handles errors found after parsing (e.g. invalid assignment targets).
func compileError(path string, err error) *SyntaxError {
	e := &SyntaxError{File: path, Message: err.Error()}
	if se, ok := err.(*goja.CompilerSyntaxError); ok {
		e.Message = "SyntaxError: " + se.Message
		if se.File != nil {
			p := se.File.Position(se.Offset)
			e.File, e.Line, e.Column = p.Filename, p.Line, p.Column
		}
	}
	return e
}
