package token

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docs/ozone-scm.md#hadoop-vint.
func TestVInt(t *testing.T) {
	tests := []struct {
		v   int64
		hex string
	}{
		{0, "00"}, {27, "1b"}, {127, "7f"}, {128, "8f80"}, {200, "8fc8"},
		{1000, "8e03e8"}, {-1, "ff"}, {-112, "90"}, {-113, "8770"},
	}
	for _, tt := range tests {
		got := AppendVInt(nil, tt.v)
		if hex.EncodeToString(got) != tt.hex {
			t.Errorf("AppendVInt(%d) = %x, want %s", tt.v, got, tt.hex)
		}
		v, n, err := ReadVInt(unhex(t, tt.hex))
		if err != nil || v != tt.v || n != len(tt.hex)/2 {
			t.Errorf("ReadVInt(%s) = %d, %d, %v; want %d", tt.hex, v, n, err, tt.v)
		}
	}
}

func TestVIntRoundTripExtremes(t *testing.T) {
	for _, v := range []int64{1 << 40, -1 << 40, 1<<63 - 1, -1 << 63, 255, 256, -256, -257} {
		b := AppendVInt(nil, v)
		got, n, err := ReadVInt(b)
		if err != nil || got != v || n != len(b) {
			t.Errorf("round trip %d: got %d n=%d err=%v (bytes %x)", v, got, n, err, b)
		}
	}
	if _, _, err := ReadVInt([]byte{0x8e, 0x03}); err == nil {
		t.Error("truncated VInt decoded without error")
	}
}

// The worked example of docs/ozone-scm.md#worked-example.
const (
	exampleIdentifier = "0a087465737475736572120208011880d095ffbc312a0408011002"
	examplePassword   = "172a2cab340d508390e2640ca829a16cff55896e6c2853ebbf0b27c4705a4944"
	exampleWritable   = "1b0a087465737475736572120208011880d095ffbc312a040801100220172a2cab340d508390e2640ca829a16cff55896e6c2853ebbf0b27c4705a494414484444535f434f4e5441494e45525f544f4b454e022331"
	exampleURL        = "GwoIdGVzdHVzZXISAggBGIDQlf-8MSoECAEQAiAXKiyrNA1Qg5DiZAyoKaFs_1WJbmwoU-u_CyfEcFpJRBRIRERTX0NPTlRBSU5FUl9UT0tFTgIjMQ"
)

func exampleKey() SecretKey {
	k := SecretKey{Key: make([]byte, 32)}
	for i := range k.Key {
		k.Key[i] = byte(i)
	}
	k.ID = KeyID{7: 1, 15: 2} // mostSigBits 1, leastSigBits 2
	return k
}

func TestWorkedExample(t *testing.T) {
	tok, err := NewContainerToken(exampleKey(), "testuser", 1, time.UnixMilli(1700000000000))
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(tok.Identifier); got != exampleIdentifier {
		t.Errorf("identifier = %s\nwant        %s", got, exampleIdentifier)
	}
	if got := hex.EncodeToString(tok.Password); got != examplePassword {
		t.Errorf("password = %s, want %s", got, examplePassword)
	}
	if got := hex.EncodeToString(tok.Writable()); got != exampleWritable {
		t.Errorf("writable = %s\nwant      %s", got, exampleWritable)
	}
	if got := Encode(tok); got != exampleURL {
		t.Errorf("Encode = %s\nwant     %s", got, exampleURL)
	}
	back, err := Decode(exampleURL)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Identifier, tok.Identifier) || !bytes.Equal(back.Password, tok.Password) ||
		back.Kind != ContainerTokenKind || back.Service != "#1" {
		t.Errorf("Decode = %+v", back)
	}
}

func TestEmptyToken(t *testing.T) {
	if got := Encode(Token{}); got != "AAAAAA" {
		t.Errorf("Encode(empty) = %q, want AAAAAA", got)
	}
	tok, err := Decode("AAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	if len(tok.Identifier)+len(tok.Password)+len(tok.Kind)+len(tok.Service) != 0 {
		t.Errorf("Decode(AAAAAA) = %+v, want empty", tok)
	}
}

func TestDecodeLenient(t *testing.T) {
	std := strings.NewReplacer("-", "+", "_", "/").Replace(exampleURL)
	padded := exampleURL + strings.Repeat("=", (4-len(exampleURL)%4)%4)
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"url alphabet", exampleURL, true},
		{"standard alphabet", std, true},
		{"padded", padded, true},
		{"line breaks", exampleURL[:40] + "\r\n" + exampleURL[40:], true},
		{"trailing bytes ignored", exampleURL + "AAAA", true},
		{"empty padded", "AAAAAA==", true},
		{"undecodable", "!!", false},
		{"empty string", "", false},
		{"too few bytes", "AAA", false},
		{"truncated example", exampleURL[:60], false},
		{"declared length beyond input", "jgPo", false}, // VInt 1000, nothing follows
	}
	for _, tt := range tests {
		tok, err := Decode(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("%s: Decode(%q) err = %v, want ok=%v", tt.name, tt.in, err, tt.ok)
			continue
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v does not wrap ErrMalformed", tt.name, err)
		}
		if tt.ok && strings.HasPrefix(tt.in, exampleURL[:10]) && tok.Service != "#1" {
			t.Errorf("%s: service = %q", tt.name, tok.Service)
		}
	}
}

func TestProtoRoundTrip(t *testing.T) {
	tok := Token{Identifier: []byte{1}, Password: []byte{2}, Kind: "k", Service: "s"}
	back := FromProto(tok.Proto())
	if Encode(back) != Encode(tok) {
		t.Errorf("proto round trip: %+v != %+v", back, tok)
	}
	empty := Token{}.Proto()
	if empty.Identifier == nil || empty.Kind == nil {
		t.Error("empty token proto leaves required fields unset")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{exampleURL, "AAAAAA", "", "!!", "jgPo", "f39_fw", "gP____8P", "AAAA=AAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := Decode(s)
		if err != nil {
			return
		}
		// Whatever decodes must re-encode to something that decodes the same.
		again, err := Decode(Encode(tok))
		if err != nil || Encode(again) != Encode(tok) {
			t.Fatalf("re-decode of %q failed: %v", s, err)
		}
	})
}
