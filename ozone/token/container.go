package token

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/scmpb"
)

// ContainerTokenKind is the kind of a container token.
// Ozone: hadoop-hdds/framework/.../security/token/ContainerTokenIdentifier.java (KIND).
const ContainerTokenKind = "HDDS_CONTAINER_TOKEN"

// SecretKeySize is the length of an HmacSHA256 secret key, the default of
// hdds.secret.key.algorithm.
const SecretKeySize = 32

// KeyID identifies a secret key: the 16 bytes of a Java UUID.
type KeyID [16]byte

// String formats id as a UUID (8-4-4-4-12 hex), as Java prints it in messages.
func (id KeyID) String() string {
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexdigits[c>>4], hexdigits[c&0x0f])
	}
	return string(out)
}

// proto returns id as hadoop.hdds.UUID (most then least significant half).
func (id KeyID) proto() *hddspb.UUID { return hddspb.UUIDFromBytes(id) }

func keyIDFromProto(u *hddspb.UUID) KeyID { return u.Bytes() }

// SecretKey is an SCM secret key used to sign short-lived tokens.
type SecretKey struct {
	ID  KeyID
	Key []byte // HmacSHA256 key material
	// Expiry is when the key stops being usable for verification; zero means never.
	Expiry time.Time
}

// NewSecretKey returns a random HmacSHA256 key with a random id.
func NewSecretKey(expiry time.Time) (SecretKey, error) {
	k := SecretKey{Key: make([]byte, SecretKeySize), Expiry: expiry}
	if _, err := rand.Read(k.ID[:]); err != nil {
		return SecretKey{}, fmt.Errorf("token: new secret key: %w", err)
	}
	k.ID[6] = k.ID[6]&0x0f | 0x40 // version 4, so it prints like a Java random UUID
	k.ID[8] = k.ID[8]&0x3f | 0x80
	if _, err := rand.Read(k.Key); err != nil {
		return SecretKey{}, fmt.Errorf("token: new secret key: %w", err)
	}
	return k, nil
}

func (k SecretKey) sign(identifier []byte) []byte {
	m := hmac.New(sha256.New, k.Key)
	m.Write(identifier)
	return m.Sum(nil)
}

// ContainerService is the token service of a container: "#<id>".
func ContainerService(containerID uint64) string {
	return fmt.Sprintf("#%d", containerID)
}

// NewContainerToken builds the container token SCM hands out: identifier =
// serialised ContainerTokenSecretProto{owner, containerID, expiry ms, key id},
// password = HMAC-SHA256 of the identifier, kind HDDS_CONTAINER_TOKEN,
// service "#<id>". docs/ozone-scm.md#container-tokens.
func NewContainerToken(key SecretKey, owner string, containerID uint64, expiry time.Time) (Token, error) {
	if len(key.Key) == 0 {
		return Token{}, errors.New("token: new container token: empty secret key")
	}
	id, err := marshalIdentifier(&scmpb.ContainerTokenSecretProto{
		OwnerId:     &owner,
		ContainerId: &hddspb.ContainerID{Id: &containerID},
		ExpiryDate:  proto.Uint64(uint64(expiry.UnixMilli())),
		SecretKeyId: key.ID.proto(),
	})
	if err != nil {
		return Token{}, fmt.Errorf("token: new container token: %w", err)
	}
	return Token{
		Identifier: id,
		Password:   key.sign(id),
		Kind:       ContainerTokenKind,
		Service:    ContainerService(containerID),
	}, nil
}

// marshalIdentifier serialises the fields Ozone signs, in field order:
// ownerId, containerId, expiryDate, secretKeyId. Unknown fields and the
// deprecated certSerialId are left out, as Java's re-serialisation does.
func marshalIdentifier(p *scmpb.ContainerTokenSecretProto) ([]byte, error) {
	signed := &scmpb.ContainerTokenSecretProto{
		OwnerId:     p.OwnerId,
		ContainerId: p.ContainerId,
		ExpiryDate:  p.ExpiryDate,
		SecretKeyId: p.SecretKeyId,
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(signed)
}

// ParseContainerIdentifier decodes a container token's identifier.
func ParseContainerIdentifier(identifier []byte) (*scmpb.ContainerTokenSecretProto, error) {
	var p scmpb.ContainerTokenSecretProto
	if err := proto.Unmarshal(identifier, &p); err != nil {
		return nil, fmt.Errorf("%w: container token identifier: %v", ErrMalformed, err)
	}
	return &p, nil
}
