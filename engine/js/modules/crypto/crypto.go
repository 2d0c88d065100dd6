// Package crypto is the built-in `k6/crypto` module: hashes, HMAC, incremental hashers and random
// bytes, with k6's names, algorithms and output encodings (grafana/k6
// internal/js/modules/k6/crypto/crypto.go; docs/k6-compat.md#module-k6crypto).
package crypto

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"
	"strings"

	"golang.org/x/crypto/md4" // deprecated upstream, and weak, but k6 offers it
	"golang.org/x/crypto/ripemd160"

	"github.com/dnecho/dnecho/engine/js/modules"
	"github.com/dop251/goja"
)

// algorithms are the hash functions by k6's names.
var algorithms = map[string]func() hash.Hash{
	"md4":        md4.New,
	"md5":        md5.New,
	"sha1":       sha1.New,
	"sha256":     sha256.New,
	"sha384":     sha512.New384,
	"sha512":     sha512.New,
	"sha512_224": sha512.New512_224,
	"sha512_256": sha512.New512_256,
	"ripemd160":  ripemd160.New,
}

// Encodings are the output encodings of digests.
var Encodings = []string{"hex", "base64", "base64url", "base64rawurl", "binary"}

// New returns the module's root; it holds nothing.
func New() modules.Module {
	return modules.Stateless(func(vu modules.VU) modules.Exports { return instance{vu}.exports() })
}

type instance struct{ vu modules.VU }

func (i instance) exports() modules.Exports {
	named := map[string]any{
		"createHash":  i.createHash,
		"createHMAC":  i.createHMAC,
		"hmac":        i.hmac,
		"randomBytes": i.randomBytes,
		"hexEncode":   i.hexEncode,
	}
	for name := range algorithms {
		named[name] = i.digestFunc(name)
	}
	return modules.Exports{Named: named}
}

// digestFunc is md5(input, outputEncoding) and its siblings.
func (i instance) digestFunc(alg string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		h := i.newHash(alg, nil)
		i.write(h, alg, call.Argument(0))
		return i.encode(h.Sum(nil), call.Argument(1))
	}
}

// hmac(algorithm, secret, data, outputEncoding) is an HMAC of data.
func (i instance) hmac(call goja.FunctionCall) goja.Value {
	alg := call.Argument(0).String()
	h := i.newHash(alg, call.Argument(1))
	i.write(h, "hmac", call.Argument(2))
	return i.encode(h.Sum(nil), call.Argument(3))
}

// createHash(algorithm) returns a hasher with update(input) and digest(outputEncoding).
func (i instance) createHash(call goja.FunctionCall) goja.Value {
	return i.hasher(i.newHash(call.Argument(0).String(), nil))
}

// createHMAC(algorithm, secret) returns a hasher computing an HMAC.
func (i instance) createHMAC(call goja.FunctionCall) goja.Value {
	return i.hasher(i.newHash(call.Argument(0).String(), call.Argument(1)))
}

// hasher is the object createHash and createHMAC return. update returns the hasher, so calls
// chain; digest may be called more than once.
func (i instance) hasher(h hash.Hash) goja.Value {
	rt := i.vu.Runtime()
	obj := rt.NewObject()
	_ = obj.Set("update", func(call goja.FunctionCall) goja.Value {
		i.write(h, "update", call.Argument(0))
		return obj
	})
	_ = obj.Set("digest", func(call goja.FunctionCall) goja.Value {
		return i.encode(h.Sum(nil), call.Argument(0))
	})
	return obj
}

// newHash returns the hash named alg, keyed for HMAC when key is not nil.
func (i instance) newHash(alg string, key goja.Value) hash.Hash {
	newFn, ok := algorithms[alg]
	if !ok {
		names := make([]string, 0, len(algorithms))
		for n := range algorithms {
			names = append(names, n)
		}
		sort.Strings(names)
		modules.Throw(i.vu.Runtime(), fmt.Errorf("invalid algorithm: %s (one of %s)", alg, strings.Join(names, ", ")))
	}
	if key == nil {
		return newFn()
	}
	secret, err := modules.Bytes(key)
	if err != nil {
		modules.Throw(i.vu.Runtime(), fmt.Errorf("hmac secret: %w", err))
	}
	return hmac.New(newFn, secret)
}

func (i instance) write(h hash.Hash, what string, v goja.Value) {
	data, err := modules.Bytes(v)
	if err != nil {
		modules.Throw(i.vu.Runtime(), fmt.Errorf("%s: %w", what, err))
	}
	_, _ = h.Write(data) // a hash.Hash never fails to write
}

// encode renders a digest in one of Encodings; "binary" is an ArrayBuffer.
func (i instance) encode(sum []byte, enc goja.Value) goja.Value {
	rt := i.vu.Runtime()
	switch name := enc.String(); name {
	case "hex":
		return rt.ToValue(hex.EncodeToString(sum))
	case "base64":
		return rt.ToValue(base64.StdEncoding.EncodeToString(sum))
	case "base64url":
		return rt.ToValue(base64.URLEncoding.EncodeToString(sum))
	case "base64rawurl":
		return rt.ToValue(base64.RawURLEncoding.EncodeToString(sum))
	case "binary":
		return rt.ToValue(rt.NewArrayBuffer(sum))
	default:
		modules.Throw(rt, fmt.Errorf("invalid output encoding: %s (one of %s)", name, strings.Join(Encodings, ", ")))
		return nil
	}
}

// randomBytes(n) returns n cryptographically random bytes in an ArrayBuffer.
func (i instance) randomBytes(call goja.FunctionCall) goja.Value {
	rt := i.vu.Runtime()
	n := call.Argument(0).ToInteger()
	if n < 1 || n > 1<<30 {
		modules.Throw(rt, fmt.Errorf("randomBytes: invalid size %d (1 to 2^30)", n))
	}
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return rt.ToValue(rt.NewArrayBuffer(b))
}

// hexEncode(data) returns the hex text of a string, an ArrayBuffer or a typed array.
func (i instance) hexEncode(call goja.FunctionCall) goja.Value {
	data, err := modules.Bytes(call.Argument(0))
	if err != nil {
		modules.Throw(i.vu.Runtime(), fmt.Errorf("hexEncode: %w", err))
	}
	return i.vu.Runtime().ToValue(hex.EncodeToString(data))
}
