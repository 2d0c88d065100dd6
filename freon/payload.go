package freon

import (
	"bytes"
	"crypto/rand"
	"math"
	"sync"
)

// Payload sizes and limits of dn-echo (apache/ozone: hadoop-ozone/freon/src/main/java/org/
// apache/hadoop/ozone/freon/DNRPCLoadGenerator.java, ozone-echo.md §6.2).
const (
	// PayloadUnit is the multiplier of --payload-req and --payload-resp (KiB).
	PayloadUnit = 1024
	// MaxResponseBytes caps payloadSizeResp: freon compares bytes against its MAX_SIZE_KB
	// constant, so the response is at most 2,097,151 bytes (2 MiB − 1), not KiB.
	MaxResponseBytes = 2097151
	// MaxRequestKB caps --payload-req inside freon's payload helper (2097151 × 1024 bytes).
	MaxRequestKB = 2097151
)

// payloadSeed is generated once per process, as freon's is once per JVM.
var payloadSeed = sync.OnceValue(func() []byte {
	b := make([]byte, PayloadUnit)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return b
})

// RequestPayload returns the request payload for kb KiB: the process's 1024-byte random
// seed repeated kb times (empty for kb <= 0, capped at MaxRequestKB).
func RequestPayload(kb int) []byte {
	return RequestPayloadFromSeed(payloadSeed(), kb)
}

// RequestPayloadFromSeed repeats seed kb times (capped at MaxRequestKB); tests pass a fixed seed.
func RequestPayloadFromSeed(seed []byte, kb int) []byte {
	if kb <= 0 || len(seed) == 0 {
		return []byte{}
	}
	return bytes.Repeat(seed, min(kb, MaxRequestKB))
}

// ResponseSize returns echo.payloadSizeResp for kb KiB: min(kb × 1024, MaxResponseBytes),
// or kb × 1024 up to the int32 field's maximum when uncapped; 0 for kb <= 0.
func ResponseSize(kb int, uncapped bool) int32 {
	if kb <= 0 {
		return 0
	}
	n := int64(kb) * PayloadUnit
	if !uncapped {
		return int32(min(n, MaxResponseBytes))
	}
	return int32(min(n, math.MaxInt32))
}
