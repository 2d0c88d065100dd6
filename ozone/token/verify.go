package token

import (
	"crypto/hmac"
	"errors"
	"time"
)

// Reasons a container token is refused. VerifyContainerToken wraps one of
// them in a *VerifyError whose text is the DataNode's message.
var (
	ErrUnknownKey   = errors.New("token: signing secret key not found")
	ErrKeyExpired   = errors.New("token: secret key expired")
	ErrBadSignature = errors.New("token: invalid signature")
	ErrExpired      = errors.New("token: expired")
	ErrIDMismatch   = errors.New("token: container id mismatch")
)

// VerifyError is a refused token. Error() is the exact text a DataNode puts
// after its "BLOCK_TOKEN_VERIFICATION_FAILED" prefix; Unwrap gives the reason.
type VerifyError struct {
	Reason error
	Msg    string
}

func (e *VerifyError) Error() string { return e.Msg }

// Unwrap returns the reason sentinel (ErrUnknownKey, ErrExpired, ...).
func (e *VerifyError) Unwrap() error { return e.Reason }

func refuse(reason error, msg string) error { return &VerifyError{Reason: reason, Msg: msg} }

// KeyLookup finds a secret key by id, as a DataNode asks its secret-key client.
type KeyLookup func(KeyID) (SecretKey, bool)

// VerifyContainerToken checks t for a command on containerID at time now, in
// the DataNode's order: identifier decodes, signing key known, key not
// expired, HMAC matches, token not expired, container matches. The outer kind
// and service are not checked and the owner is not compared, as in Ozone.
// docs/ozone-scm.md#container-tokens; Ozone:
// hadoop-hdds/framework/.../security/token/ShortLivedTokenVerifier.java.
func VerifyContainerToken(t Token, containerID uint64, keys KeyLookup, now time.Time) error {
	id, err := ParseContainerIdentifier(t.Identifier)
	if err != nil {
		return refuse(ErrMalformed, "Failed to decode token : "+err.Error())
	}
	owner := id.GetOwnerId()
	keyName := "null"
	var key SecretKey
	found := false
	if id.SecretKeyId != nil {
		kid := keyIDFromProto(id.SecretKeyId)
		keyName = kid.String()
		key, found = keys(kid)
	}
	if !found {
		return refuse(ErrUnknownKey, "Can't find the signing secret key "+keyName+" of the token for user: "+owner)
	}
	if !key.Expiry.IsZero() && key.Expiry.Before(now) {
		return refuse(ErrKeyExpired, "Token can't be verified due to expired secret key "+keyName)
	}
	signed, err := marshalIdentifier(id)
	if err != nil || !hmac.Equal(key.sign(signed), t.Password) {
		return refuse(ErrBadSignature, "Invalid token for user: "+owner)
	}
	if time.UnixMilli(int64(id.GetExpiryDate())).Before(now) {
		return refuse(ErrExpired, "Expired token for user: "+owner)
	}
	if got, want := ContainerService(id.GetContainerId().GetId()), ContainerService(containerID); got != want {
		return refuse(ErrIDMismatch, "ID mismatch. Token for ID: "+got+" can't be used to access: "+want+" by user: "+owner)
	}
	return nil
}
