package js

import (
	"crypto/sha512"
	"encoding/hex"
	"strings"
	"testing"
)

// evalScript runs one iteration of a script whose default function sets globalThis.out, and
// returns out. Init and iteration errors fail the test.
func evalScript(t *testing.T, src string) any {
	t.Helper()
	e := mustLoad(t, map[string]string{"script.js": src}, "script.js", Config{})
	vu := e.vu(t, 1)
	iterate(t, vu)
	return global(vu, "out")
}

func TestEncodingModule(t *testing.T) {
	out := evalScript(t, `
import encoding, { b64encode, b64decode } from "k6/encoding";
export default function () {
  const bytes = new Uint8Array([0xfb, 0xff, 0x01]).buffer;
  globalThis.out = [
    b64encode("hello"), b64encode("hello", "rawstd"), b64encode(bytes, "url"), b64encode(bytes, "rawurl"),
    b64encode("hello", "no such alphabet"), encoding.b64encode(new Uint8Array([104, 105])),
    b64decode("aGVsbG8=", "std", "s"), b64decode("aGVsbG8", "rawstd", "s"), b64decode("-_8B", "rawurl").byteLength,
    b64decode("aGk=") instanceof ArrayBuffer, b64encode("héllo"), b64decode("aMOpbGxv", "std", "s"),
  ];
  try { b64decode("not base64!", "std", "s"); } catch (e) { globalThis.out.push(String(e)); }
}`).([]any)
	want := []any{"aGVsbG8=", "aGVsbG8", "-_8B", "-_8B", "aGVsbG8=", "aGk=", "hello", "hello", int64(3), true, "aMOpbGxv", "héllo"}
	for i, w := range want {
		if out[i] != w {
			t.Errorf("case %d: %v, want %v", i, out[i], w)
		}
	}
	if s, _ := out[len(want)].(string); !strings.Contains(s, "b64decode: illegal base64 data") {
		t.Errorf("invalid input: %v", out[len(want)])
	}
}

func TestCryptoModule(t *testing.T) {
	sha512Hello := sha512.Sum512([]byte("hello"))
	out := evalScript(t, `
import crypto from "k6/crypto";
import { createHash, createHMAC, hmac, md4, md5, sha1, sha256, sha384, sha512, sha512_224, sha512_256, ripemd160, randomBytes } from "k6/crypto";
export default function () {
  const h = createHash("sha256");
  h.update("hel").update(new Uint8Array([108, 111]));
  const a = randomBytes(16), b = randomBytes(16);
  globalThis.out = {
    md4: md4("hello", "hex"), md5: md5("hello", "hex"), sha1: sha1("hello", "hex"), sha256: sha256("hello", "hex"),
    sha512: sha512("hello", "hex"), sha384len: sha384("hello", "hex").length,
    sha512_224len: sha512_224("hello", "hex").length, sha512_256len: sha512_256("hello", "hex").length,
    ripemd160: ripemd160("hello", "hex"),
    incremental: h.digest("hex"), again: h.digest("base64"),
    base64: md5("hello", "base64"), base64url: sha256([1].toString(), "base64url"), base64rawurl: sha256("1", "base64rawurl"),
    binary: sha256("hello", "binary").byteLength,
    hmac: hmac("sha256", "key", "The quick brown fox jumps over the lazy dog", "hex"),
    createHMAC: createHMAC("sha256", "key").update("The quick brown fox ").update("jumps over the lazy dog").digest("hex"),
    hexEncode: crypto.hexEncode(new Uint8Array([0, 255])),
    random: [a.byteLength, new Uint8Array(a).join() !== new Uint8Array(b).join()],
  };
  const errs = [];
  for (const f of [() => createHash("sha3"), () => md5("x", "octal"), () => randomBytes(0)]) {
    try { f(); } catch (e) { errs.push(String(e)); }
  }
  globalThis.out.errors = errs;
}`).(map[string]any)
	want := map[string]any{
		"md4":           "866437cb7a794bce2b727acc0362ee27",
		"md5":           "5d41402abc4b2a76b9719d911017c592",
		"sha1":          "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d",
		"sha256":        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		"sha512":        hex.EncodeToString(sha512Hello[:]),
		"sha384len":     int64(96),
		"sha512_224len": int64(56),
		"sha512_256len": int64(64),
		"ripemd160":     "108f07b8382412612c048d07d13f814118445acd",
		"incremental":   "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		"again":         "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=",
		"base64":        "XUFAKrxLKna5cZ2REBfFkg==",
		"base64url":     "a4ayc_80_OGda4BO_1o_V0etpOqiLx1JwB5S3beHW0s=",
		"base64rawurl":  "a4ayc_80_OGda4BO_1o_V0etpOqiLx1JwB5S3beHW0s",
		"binary":        int64(32),
		"hmac":          "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
		"createHMAC":    "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
		"hexEncode":     "00ff",
	}
	for k, w := range want {
		if out[k] != w {
			t.Errorf("%s: %v, want %v", k, out[k], w)
		}
	}
	if r := out["random"].([]any); r[0] != int64(16) || r[1] != true {
		t.Errorf("randomBytes: %v", r)
	}
	errs := out["errors"].([]any)
	for i, w := range []string{"invalid algorithm: sha3", "invalid output encoding: octal", "randomBytes: invalid size 0"} {
		if s, _ := errs[i].(string); !strings.Contains(s, w) {
			t.Errorf("error %d: %q, want %q", i, s, w)
		}
	}
}

// TestBinaryInputTypes: hashing and encoding take strings and binary data only; a number, a
// boolean or nothing is refused, as k6 refuses it, instead of being turned into text.
func TestBinaryInputTypes(t *testing.T) {
	out := evalScript(t, `
import { md5, sha256, hmac, createHash } from "k6/crypto";
import { b64encode } from "k6/encoding";
export default function () {
  const calls = [() => md5(5, "hex"), () => sha256(true, "hex"), () => b64encode(42), () => hmac("sha256", "key", 7, "hex"),
    () => hmac("sha256", 1, "data", "hex"), () => createHash("md5").update(3), () => md5(undefined, "hex")];
  globalThis.out = calls.map((f) => { try { f(); return "accepted"; } catch (e) { return String(e); } });
  globalThis.out.push(md5("5", "hex"));
}`).([]any)
	for i, v := range out[:len(out)-1] {
		if s, _ := v.(string); !strings.Contains(s, "want a string, an ArrayBuffer or a typed array") {
			t.Errorf("call %d: %v, want refused", i, v)
		}
	}
	if out[len(out)-1] != "e4da3b7fbbce2345d7772b0674a318d5" {
		t.Errorf("md5 of the string 5: %v", out[len(out)-1])
	}
}
