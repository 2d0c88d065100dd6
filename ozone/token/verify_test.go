package token

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestVerifyContainerToken(t *testing.T) {
	now := time.Unix(1700000000, 0)
	key := exampleKey()
	expiredKey := exampleKey()
	expiredKey.Expiry = now.Add(-time.Second)
	good, err := NewContainerToken(key, "alice", 7, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	stale, _ := NewContainerToken(key, "alice", 7, now.Add(-time.Millisecond))
	forged := good
	forged.Password = append([]byte{}, good.Password...)
	forged.Password[0] ^= 1
	// Same fields plus the deprecated certSerialId (field 4): still verifies,
	// because the verifier re-serialises without it.
	withCert := good
	withCert.Identifier = append(append([]byte{}, good.Identifier...), 0x22, 0x01, 'x')

	known := func(k SecretKey) KeyLookup {
		return func(id KeyID) (SecretKey, bool) { return k, id == k.ID }
	}
	tests := []struct {
		name      string
		tok       Token
		container uint64
		keys      KeyLookup
		reason    error
		prefix    string
	}{
		{"valid", good, 7, known(key), nil, ""},
		{"certSerialId ignored", withCert, 7, known(key), nil, ""},
		{"garbage identifier", Token{Identifier: []byte{0xff}}, 7, known(key), ErrMalformed, "Failed to decode token : "},
		{"unknown key", good, 7, known(SecretKey{Key: key.Key}), ErrUnknownKey, "Can't find the signing secret key 00000000-0000-0001-0000-000000000002 of the token for user: alice"},
		{"expired key", good, 7, known(expiredKey), ErrKeyExpired, "Token can't be verified due to expired secret key "},
		{"bad signature", forged, 7, known(key), ErrBadSignature, "Invalid token for user: alice"},
		{"expired token", stale, 7, known(key), ErrExpired, "Expired token for user: alice"},
		{"other container", good, 8, known(key), ErrIDMismatch, "ID mismatch. Token for ID: #7 can't be used to access: #8"},
	}
	for _, tt := range tests {
		err := VerifyContainerToken(tt.tok, tt.container, tt.keys, now)
		if tt.reason == nil {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tt.name, err)
			}
			continue
		}
		var ve *VerifyError
		if !errors.As(err, &ve) || !errors.Is(err, tt.reason) {
			t.Errorf("%s: err = %v, want reason %v", tt.name, err, tt.reason)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.prefix) {
			t.Errorf("%s: message %q lacks prefix %q", tt.name, err.Error(), tt.prefix)
		}
	}
}

func TestNewSecretKey(t *testing.T) {
	k, err := NewSecretKey(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Key) != SecretKeySize || k.ID == (KeyID{}) {
		t.Errorf("key = %+v", k)
	}
	if s := k.ID.String(); len(s) != 36 || s[14] != '4' {
		t.Errorf("id %q is not a version-4 UUID", s)
	}
}
